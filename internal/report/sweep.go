package report

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/latgate/latgate/internal/numfmt"
	"github.com/latgate/latgate/pkg/results"
)

// Sweep writes a sweep as text: per target, a row per rate (the rate sent,
// latency from the schedule, goodput, how late latgate's sends were) and
// its knee with its interval.
func Sweep(w io.Writer, sw *results.Sweep) error {
	ew := &errWriter{w: w}
	for ti, t := range sw.Targets {
		if ti > 0 {
			fmt.Fprintln(ew)
		}
		fmt.Fprintln(ew, wrap(fmt.Sprintf("target %s: model %s, %s arrivals, times from each scheduled send", t.Label(), t.Model, sw.Arrival), lineWidth, "  "))
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "rate/s\tsent/s\tn\tTTFT p50\tTTFT p95\tITL p95\ttotal p95\tgoodput\tgood/s\tlate p99\terrors\t")
		for _, s := range t.Steps {
			good, perS := "-", "-"
			if s.WithSLO > 0 {
				good, perS = fmt.Sprintf("%.1f%%", 100*s.Goodput), strconv.FormatFloat(s.GoodputPerS, 'f', 1, 64)
			}
			sent, late := "-", "-"
			if s.Sends != nil {
				sent, late = strconv.FormatFloat(s.Sends.SentRate, 'f', 1, 64), numfmt.Millis(s.Sends.LateP99MS)
				if !s.Sends.Held() {
					late += " (missed)"
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t\n", strconv.FormatFloat(s.Rate, 'g', -1, 64), sent, s.Requests,
				numfmt.Millis(s.TTFTP50), numfmt.Millis(s.TTFTP95), numfmt.Millis(s.ITLP95), numfmt.Millis(s.TotalP95), good, perS, late, s.Errors)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(ew, wrap(KneeLine(t, sw), lineWidth, "      "))
	}
	if sw.Partial {
		fmt.Fprintln(ew, "note: the sweep was interrupted: the rates after the last row were not measured")
	}
	return ew.err
}

// KneeLine says where target t's knee is, how sure, and against what goal.
func KneeLine(t results.SweepTarget, sw *results.Sweep) string {
	k := t.Knee
	goal := fmt.Sprintf("%s%% of requests met the SLO", pctOf(sw.Goal))
	r := func(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }
	switch {
	case k == nil:
		return "knee: none (no prompt of this target has an slo:; set one, e.g. slo: {ttft: 500ms}, to find the highest rate that meets it)"
	case k.Below:
		return fmt.Sprintf("knee: below the lowest rate swept (at %s requests/s fewer than %s): sweep lower rates", r(t.Steps[0].Rate), goal)
	case k.Above && sw.Partial && len(sw.Rates) > 0 && k.Rate < sw.Rates[len(sw.Rates)-1]:
		// Interrupted before the rates above: they were asked for, not
		// measured, so "sweep higher rates" would be the wrong advice.
		return fmt.Sprintf("knee: not found: the sweep stopped at %s requests/s, where %s, before %s requests/s: run it again",
			r(k.Rate), goal, r(sw.Rates[len(sw.Rates)-1]))
	case k.Above:
		return fmt.Sprintf("knee: above the highest rate swept (at %s requests/s %s): sweep higher rates", r(k.Rate), goal)
	}
	sure := fmt.Sprintf("%s%% sure it is in [%s, %s]: sweep finer rates there to narrow it", pctOf(sw.Level), r(k.Lo), r(k.Hi))
	switch {
	case k.Lo == 0 && k.HiOpen:
		sure = "no rate swept had the requests to be sure of either side of the goal: measure each longer (--duration)"
	case k.Lo == 0:
		sure = fmt.Sprintf("%s%% sure it is below %s; no lower rate had the requests to be sure it kept the goal: measure each longer (--duration)", pctOf(sw.Level), r(k.Hi))
	case k.HiOpen:
		sure = fmt.Sprintf("%s%% sure it is above %s; no higher rate swept was surely below the goal", pctOf(sw.Level), r(k.Lo))
	}
	return fmt.Sprintf("knee: %s requests/s, the highest rate at which %s (interpolated between the rates around it; %s)", r(k.Rate), goal, sure)
}
