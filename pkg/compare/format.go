package compare

import (
	"fmt"
	"math"
	"strings"

	"github.com/latgate/latgate/internal/numfmt"
	"github.com/latgate/latgate/pkg/results"
)

// Summary returns the verdict of c as one sentence in the style of the text
// table and the JUnit failure message, for example
//
//	+38% [CI +22%, +55%] > +15% tolerance (412 ms -> 569 ms)
//
// ("CI" alone when the ok end has its own level, OkConfidence; "95% CI"
// when both ends are at Confidence).
//
// It is derived from the other fields only; Compare stores it in Reason.
func (c Check) Summary() string {
	if c.IsShare() {
		return c.shareSummary()
	}
	if c.Max > 0 {
		return c.limitSummary()
	}
	values := fmt.Sprintf("(%s -> %s)", FormatValue(c.Metric, c.Baseline), FormatValue(c.Metric, c.Current))
	switch {
	case c.NBase == 0 && c.NCur == 0:
		return fmt.Sprintf("no %s values in either run", c.Metric)
	case c.NBase == 0:
		return fmt.Sprintf("no %s values in the baseline", c.Metric)
	case c.NCur == 0:
		return fmt.Sprintf("no %s values in the current run", c.Metric)
	case !c.resolved():
		have, need, unit := c.unresolved()
		return fmt.Sprintf("%s unresolved: %s needs at least %d %s per side, have %d %s", pctOrDash(c.Ratio), c.Stat, need, unit, have, values)
	case c.Scale == ScaleDifference:
		return c.differenceSummary(values)
	case c.Baseline <= 0:
		return fmt.Sprintf("baseline %s is %s, so no ratio can be formed %s", c.Stat, map[bool]string{false: "0 ms", true: "0 tokens/s"}[c.higherIsBetter()], values)
	}
	if c.Lo == 0 && c.Hi == 0 {
		return fmt.Sprintf("%s, interval unbounded: the data do not bound it at this level %s", numfmt.Pct(c.Ratio), values)
	}
	change := fmt.Sprintf("%s [%s %s, %s]", numfmt.Pct(c.Ratio), c.ciLabel(), numfmt.PctBeside(c.Lo, c.bound()), numfmt.PctBeside(c.Hi, c.bound()))
	tol := numfmt.Pct(c.Threshold)
	if c.Verdict == Improved {
		tol = numfmt.Pct(1 / c.Threshold)
	}
	tol += " tolerance"
	if f, unit, sets := c.FloorSets(); sets {
		tol += fmt.Sprintf(" (%g %s floor)", f, unit)
	}
	worse, better, bound := ">", "<", c.Hi // the bad direction is up
	if c.higherIsBetter() {
		worse, better, bound = "<", ">", c.Lo // a rate: the bad direction is down
	}
	_, lo, _, tau := c.slowdown()
	switch {
	case c.Verdict == Regressed && c.Family > 1:
		return fmt.Sprintf("%s %s %s %s, adjusted for %d prompt tests (Holm)", change, worse, tol, values, c.Family)
	case c.Verdict == Regressed:
		return fmt.Sprintf("%s %s %s %s", change, worse, tol, values)
	case c.Verdict == Improved:
		return fmt.Sprintf("%s %s %s %s", change, better, tol, values)
	case c.Verdict == OK:
		return fmt.Sprintf("%s within %s: rules out %s %s %s", change, tol, worse, numfmt.Pct(bound), values)
	case lo > tau:
		return fmt.Sprintf("%s %s %s on its own, not after adjusting for %d prompt tests (Holm) %s", change, worse, tol, c.Family, values)
	case c.Diagnostic:
		return fmt.Sprintf("%s straddles %s (pooled into all prompts: does not hold the run) %s", change, tol, values)
	}
	return fmt.Sprintf("%s straddles %s: %s %s", change, tol, c.Decider(), values)
}

// differenceSummary is Summary on the difference scale, for example
// "+3.1 ms [CI +2.8, +3.5] > 0.25 ms margin (0.00 ms -> 3.12 ms)".
func (c Check) differenceSummary(values string) string {
	ms := func(x float64) string {
		s := strings.TrimSuffix(fmtMS(x), " ms")
		if x >= 0 {
			s = "+" + s
		}
		return s
	}
	change := fmt.Sprintf("%s ms [%s %s, %s] on the difference", ms(c.Current-c.Baseline), c.ciLabel(), ms(c.Lo), ms(c.Hi))
	margin := fmtMS(c.Margin) + " margin"
	switch c.Verdict {
	case Regressed:
		return fmt.Sprintf("%s > %s %s", change, margin, values)
	case Improved:
		return fmt.Sprintf("%s < -%s %s", change, margin, values)
	case OK:
		return fmt.Sprintf("%s within %s %s", change, margin, values)
	}
	return fmt.Sprintf("%s straddles %s: %s %s", change, margin, c.Decider(), values)
}

func pctOrDash(r float64) string {
	if r <= 0 {
		return "-"
	}
	return numfmt.Pct(r)
}

// Decider says what would decide an inconclusive check, for example "about
// 90 more requests would decide it", "the baseline has too few requests to
// decide it: bless with more", or "the day-to-day noise (±3%) keeps it
// undecided: compare both in one run (latgate ab) or watch the nightly".
func (c Check) Decider() string {
	switch {
	case c.More < 0 && (c.Max > 0 || c.Min > 0):
		return "the statistic sits on the limit: more requests may not decide it"
	case c.More < 0 && c.Stuck == StuckDayToDay:
		return fmt.Sprintf("the day-to-day noise (±%s per run) keeps it undecided however many requests: compare both in one run (latgate ab) or watch the nightly trend", pctNum(c.DayNoise))
	case c.More < 0:
		return "the baseline has too few requests to decide it: bless with more"
	case c.More > 0:
		return fmt.Sprintf("about %d more %s would decide it", c.More, plural(c.More, "request", "requests"))
	}
	return "more requests may decide it"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// bound is the threshold an interval bound is judged against: the tolerance,
// or its mirror for an improvement.
func (c Check) bound() float64 {
	if c.Verdict == Improved && c.Threshold > 0 {
		return 1 / c.Threshold
	}
	return c.Threshold
}

// Interval formats the interval of the ratio: "[+22%, +55%]", with a decimal
// where a bound would otherwise print equal to the tolerance.
func (c Check) Interval() string {
	return "[" + numfmt.PctBeside(c.Lo, c.bound()) + ", " + numfmt.PctBeside(c.Hi, c.bound()) + "]"
}

// ciLabel names the check's interval: "95% CI" when both ends are at the
// gate's confidence; "CI" when the ok end has its own (OkConfidence), the
// report's provenance line and legend then giving both levels.
func (c Check) ciLabel() string {
	if c.OkConfidence > 0 {
		return "CI"
	}
	return fmtConf(c.Confidence) + "% CI"
}

// fmtConf formats a confidence level as a percentage: 0.95 → "95".
func fmtConf(c float64) string { return fmt.Sprintf("%.4g", c*100) }

// FloorSets reports whether the check's absolute floor, rather than its
// relative tolerance, sets its threshold, and the floor in its unit: "ms"
// for a duration, "tokens/s" for tokens_per_s (whose threshold the floor
// sets when floor/(baseline − floor) exceeds the relative tolerance).
func (c Check) FloorSets() (floor float64, unit string, sets bool) {
	if c.Baseline <= 0 {
		return 0, "", false
	}
	if c.higherIsBetter() {
		f := c.Tolerance.FloorRate
		return f, "tokens/s", f > 0 && (f >= c.Baseline || f/(c.Baseline-f) > c.Tolerance.Rel)
	}
	f := floorMS(c.Tolerance)
	return f, "ms", f/c.Baseline > c.Tolerance.Rel
}

// FormatValue formats a value of metric in its unit: milliseconds (fmtMS)
// for a duration, tokens per second with three significant digits for
// tokens_per_s.
func FormatValue(metric string, v float64) string {
	if !results.HigherIsBetter(metric) {
		return fmtMS(v)
	}
	switch a := math.Abs(v); {
	case a >= 100:
		return fmt.Sprintf("%.0f tokens/s", v)
	case a >= 10:
		return fmt.Sprintf("%.1f tokens/s", v)
	case a == 0:
		return "0 tokens/s"
	}
	return fmt.Sprintf("%.2f tokens/s", v)
}

// fmtMS formats milliseconds with three significant digits or whole numbers.
func fmtMS(ms float64) string {
	switch a := math.Abs(ms); {
	case a >= 100:
		return fmt.Sprintf("%.0f ms", ms)
	case a >= 10:
		return fmt.Sprintf("%.1f ms", ms)
	}
	return fmt.Sprintf("%.2f ms", ms)
}

// Change is c's change with its interval, in one phrase for a progress or
// warning line: "+12% [-3%, +31%]" of the ratio; on the difference scale,
// where a baseline near 0 ms makes any ratio meaningless,
// "+0.57 ms [+0.06, +0.69 ms]"; a limit's statistic, "812 ms [790, 840 ms]";
// a share's difference, "-3 pts [-5, -1 pts]".
func (c Check) Change() string {
	signed := func(ms float64) string {
		s := strings.TrimSuffix(fmtMS(ms), " ms")
		if ms >= 0 {
			s = "+" + s
		}
		return s
	}
	switch {
	case c.IsShare() && c.Min > 0:
		return Percent(c.Current) + " " + c.ShareInterval()
	case c.IsShare():
		return Points(c.Current-c.Baseline) + " " + c.ShareInterval()
	case c.Max > 0:
		return fmtMS(c.Current) + " [" + c.LimitInterval() + " ms]"
	case c.Scale == ScaleDifference:
		return fmt.Sprintf("%s ms [%s, %s ms]", signed(c.Current-c.Baseline), signed(c.Lo), signed(c.Hi))
	}
	return fmt.Sprintf("%s [%s, %s]", pctOrDash(c.Ratio), numfmt.PctBeside(c.Lo, c.bound()), numfmt.PctBeside(c.Hi, c.bound()))
}

// Allowed is what c's change is held to, in the unit of Change: "+35%", a
// margin "±0.25 ms" on the difference scale, "max 800 ms", "min 95%".
func (c Check) Allowed() string {
	switch {
	case c.IsShare() && c.Min > 0:
		return "min " + Percent(c.Min)
	case c.IsShare():
		return Points(c.Threshold)
	case c.Max > 0:
		return "max " + fmtMS(c.Max)
	case c.Scale == ScaleDifference:
		return "±" + fmtMS(c.Margin)
	case c.Verdict == Improved && c.Threshold > 0:
		return numfmt.Pct(1 / c.Threshold)
	}
	return numfmt.Pct(c.Threshold)
}
