package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// DescribeGate says in one line what a gate checks: "ttft p50 (20%, floor
// 1ms (timing resolution)), …; 95% intervals, 2000 resamples, seed 1;
// aggregate on".
func DescribeGate(g config.Gate) string {
	var checks []string
	for _, c := range g.Checks {
		if c.IsShare() {
			checks = append(checks, describeShare(c))
			continue
		}
		t := compare.Resolvable(c.Metric, c.Tolerance)
		floor := fmt.Sprintf("floor %v", t.Floor)
		if c.Tolerance.Floor < t.Floor {
			floor += " (timing resolution)"
		}
		if results.HigherIsBetter(c.Metric) { // a rate: its floor is in tokens/s
			floor = fmt.Sprintf("floor %g tokens/s, higher is better", c.Tolerance.FloorRate)
		}
		switch {
		case c.MaxOnly:
			checks = append(checks, fmt.Sprintf("%s %s (max %v)", c.Metric, c.Stat, c.Max))
		case c.Max > 0:
			checks = append(checks, fmt.Sprintf("%s %s (%s%%, %s, max %v)", c.Metric, c.Stat, pctOf(c.Tolerance.Rel), floor, c.Max))
		default:
			checks = append(checks, fmt.Sprintf("%s %s (%s%%, %s)", c.Metric, c.Stat, pctOf(c.Tolerance.Rel), floor))
		}
	}
	day := pctOf(g.DayToDay) + "%"
	if g.DayToDay < 0 {
		day = fmt.Sprintf("%s%% (local or sim endpoint) or %s%% (any other)", pctOf(config.DefaultDayToDay), pctOf(config.DefaultDayToDayRemote))
	}
	s := fmt.Sprintf("%s; %s%% intervals, day-to-day noise %s assumed without a history", strings.Join(checks, ", "),
		pctOf(g.Confidence), day)
	if g.OkConfidence > 0 {
		s = fmt.Sprintf("%s; a regression %s%% sure, an ok %s%%, day-to-day noise %s assumed without a history", strings.Join(checks, ", "),
			pctOf((1+g.Confidence)/2), pctOf(g.OkConfidence), day)
	}
	if n := len(g.Overrides); n > 0 {
		s += fmt.Sprintf("; %d per-prompt override(s)", n)
	}
	if g.Aggregate {
		s += "; prompts pooled per target"
	}
	if g.OnInconclusive != "" {
		s += "; on_inconclusive " + g.OnInconclusive
	}
	return s
}

// pctOf formats a fraction as a percentage without float noise: 0.9 → "90".
func pctOf(f float64) string { return strconv.FormatFloat(math.Round(f*1e6)/1e4, 'f', -1, 64) }

// describeShare says what a share check holds: "slo_attainment (min 95%)",
// "cache_hit_rate (-10 pts, min 80%)", "stream_integrity (off)".
func describeShare(c config.Check) string {
	var what []string
	switch {
	case c.Off:
		what = append(what, "off")
	case !c.MinOnly:
		what = append(what, sharePoints(-c.Tolerance.Rel))
	}
	if c.Min > 0 {
		what = append(what, "min "+sharePercent(c.Min))
	}
	return c.Metric + " (" + strings.Join(what, ", ") + ")"
}
