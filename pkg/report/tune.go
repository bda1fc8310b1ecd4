package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/latgate/latgate/pkg/trend"
)

// TuneYAML writes latgate tune's proposal as a YAML snippet to paste into
// latgate.yaml: gate.checks with the proposed tolerances and floors, and
// gate.overrides for the prompts that need more, each line with a comment
// giving the run-to-run variation it was learnt from and the false-alarm
// rate per run of the tolerance configured now and of the proposal.
func TuneYAML(w io.Writer, rep trend.TuneReport, source string) error {
	ew := &errWriter{w: w}
	checks := rep.ByCheck()
	runs := 0
	for _, p := range rep.Proposals {
		runs = max(runs, p.Runs)
	}
	fmt.Fprintf(ew, "# latgate tune: learnt from %s (up to %d runs per series, the newest %d).\n", source, runs, rep.Options.Window)
	fmt.Fprintf(ew, "# Each tolerance is what an unchanged endpoint exceeds in %s of runs, from its\n", pctRate(rep.Options.FalseAlarm))
	fmt.Fprintln(ew, "# run-to-run variation σ (of ln, from consecutive runs; a step or slow drift barely")
	fmt.Fprintln(ew, "# moves it) on both sides of the comparison. The floor is the same margin in ms at")
	fmt.Fprintln(ew, "# today's level. \"now A → B\": false alarms per check and run with your tolerance")
	fmt.Fprintln(ew, "# now, and with this one; the gate's interval must also clear the tolerance, so")
	fmt.Fprintln(ew, "# real rates are lower. Paste over gate.checks and gate.overrides in latgate.yaml.")
	for _, s := range rep.Skipped {
		fmt.Fprintf(ew, "# not enough runs (fewer than %d): %s %s %s\n", trend.MinTuneRuns, s.Prompt, s.Metric, s.Stat)
	}
	fmt.Fprintln(ew, "gate:")
	fmt.Fprintln(ew, "  checks:")
	for _, c := range checks {
		p := c.Proposal
		line := fmt.Sprintf("    - {metric: %s, stat: %s, tolerance: %s, floor: %s}", c.Metric, c.Stat, tolPct(p.Tolerance), yamlMS(p.FloorMS))
		fmt.Fprintf(ew, "%s   # σ %s (%s); now %s → %s\n", line, pctRate(p.Noise), p.Prompt, pctRate(p.NowRate), pctRate(p.Rate))
	}
	var overrides []trend.Proposal
	for _, c := range checks {
		overrides = append(overrides, c.Overrides...)
	}
	if len(overrides) > 0 {
		fmt.Fprintln(ew, "  overrides:")
		for _, p := range overrides {
			line := fmt.Sprintf("    - {prompt: %s, metric: %s, stat: %s, tolerance: %s, floor: %s}", yamlString(p.Prompt), p.Metric, p.Stat, tolPct(p.Tolerance), yamlMS(p.FloorMS))
			fmt.Fprintf(ew, "%s   # σ %s; now %s → %s\n", line, pctRate(p.Noise), pctRate(p.NowRate), pctRate(p.Rate))
		}
	}
	return ew.err
}

func tolPct(r float64) string { return yamlNum(100*r) + "%" }

func yamlMS(ms float64) string { return yamlNum(ms) + "ms" }

// yamlNum writes x to paste into a config: rounded to a millionth, so that
// float arithmetic (100 × 2.3) does not print as 229.99999999999997.
func yamlNum(x float64) string { return strconv.FormatFloat(math.Round(x*1e6)/1e6, 'f', -1, 64) }

func pctRate(r float64) string {
	switch {
	case r < 0.0005:
		return "<0.1%"
	case r < 0.1:
		return fmt.Sprintf("%.1f%%", 100*r)
	}
	return fmt.Sprintf("%.0f%%", 100*r)
}

// yamlString quotes a prompt id when YAML would read it as something else.
func yamlString(s string) string {
	if s == "" || strings.ContainsAny(s, ":#{}[],&*!|>'\"%@`") || strings.TrimSpace(s) != s {
		return strconv.Quote(s)
	}
	return s
}
