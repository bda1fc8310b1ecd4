package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/latgate/latgate/internal/trend"
	"github.com/latgate/latgate/pkg/results"
)

// TuneYAML writes latgate tune's proposal as a YAML snippet to paste into
// latgate.yaml: gate.checks with the proposed tolerances and floors, and
// gate.overrides for the prompts that need more, each line with a comment
// giving the run-to-run variation it was learnt from (the estimate and the
// upper bound used), and the runs a tighter proposal needs; the head gives
// the false-alarm rate per run of the tolerances configured now and of the
// proposal.
func TuneYAML(w io.Writer, rep trend.TuneReport, source string) error {
	ew := &errWriter{w: w}
	checks := rep.ByCheck()
	runs := 0
	for _, p := range rep.Proposals {
		runs = max(runs, p.Runs)
	}
	o := rep.Options
	fmt.Fprintf(ew, "# latgate tune: learnt from %s (up to %d runs per series, the newest %d).\n", source, runs, o.Window)
	fmt.Fprintf(ew, "# Proposed for %s false alarms per run: an unchanged endpoint fails some check of\n", pctRate(o.FalseAlarm))
	fmt.Fprintf(ew, "# some prompt in at most that share of runs. Each series' run-to-run variation σ\n")
	fmt.Fprintf(ew, "# (of ln, around its level between change points) is taken at its %s upper\n", confPct(o.Confidence))
	fmt.Fprintln(ew, "# bound, allowing for autocorrelated runs; the series are correlated as the history")
	fmt.Fprintln(ew, "# shows (a slow night slows every prompt). The floor is the same margin in ms at")
	fmt.Fprintln(ew, "# today's level. The gate's interval must also clear the tolerance, so real rates")
	fmt.Fprintln(ew, "# are lower. Paste over gate.checks and gate.overrides in latgate.yaml.")
	refused := 0
	for _, c := range checks {
		refused += len(c.Refused)
	}
	if refused > 0 {
		fmt.Fprintf(ew, "# False alarms per run: %s with the tolerances configured now, %s with these (the %d series without a proposal, below, not counted).\n",
			pctRate(rep.NowPerRun), pctRate(rep.PerRun), refused)
	} else {
		fmt.Fprintf(ew, "# False alarms per run: %s with the tolerances configured now, %s with these.\n", pctRate(rep.NowPerRun), pctRate(rep.PerRun))
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(ew, "# not enough runs (fewer than %d): %s %s %s\n", trend.MinTuneRuns, s.Prompt, s.Metric, s.Stat)
	}
	for _, c := range checks {
		for _, p := range c.Refused {
			fmt.Fprintf(ew, "# no proposal: %s %s %s: %s\n", p.Prompt, p.Metric, p.Stat, refusedWhy(p))
		}
	}
	fmt.Fprintln(ew, "gate:")
	fmt.Fprintln(ew, "  checks:")
	for _, c := range checks {
		p := c.Proposal
		line := fmt.Sprintf("    - {metric: %s, stat: %s, tolerance: %s, floor: %s}", c.Metric, c.Stat, tolPct(p.Tolerance), yamlFloor(p))
		if p.Refused {
			fmt.Fprintf(ew, "%s   # as configured: no prompt's history supports a tolerance (see above)\n", line)
			continue
		}
		fmt.Fprintf(ew, "%s   # %s (%s)\n", line, tuneNote(p), p.Prompt)
	}
	var overrides []trend.Proposal
	for _, c := range checks {
		overrides = append(overrides, c.Overrides...)
	}
	if len(overrides) > 0 {
		fmt.Fprintln(ew, "  overrides:")
		for _, p := range overrides {
			line := fmt.Sprintf("    - {prompt: %s, metric: %s, stat: %s, tolerance: %s, floor: %s}", yamlString(p.Prompt), p.Metric, p.Stat, tolPct(p.Tolerance), yamlFloor(p))
			fmt.Fprintf(ew, "%s   # %s\n", line, tuneNote(p))
		}
	}
	return ew.err
}

// tuneNote is a proposal's comment: "σ 5.1% (≤ 7.2%), 30 runs; 60 runs: 24%".
func tuneNote(p trend.Proposal) string {
	s := fmt.Sprintf("σ %s (≤ %s), %d runs", pctRate(p.Noise.Sigma), pctRate(p.Upper), p.Runs)
	if p.Noise.Rho > 0.05 {
		s += fmt.Sprintf(", autocorrelation %.2f", p.Noise.Rho)
	}
	if p.Twice < p.Tolerance {
		s += fmt.Sprintf("; %d runs: about %s", 2*p.Runs, tolPct(p.Twice))
	}
	if p.ForTighter > p.Runs {
		s += fmt.Sprintf("; σ within 25%% of its estimate from %d runs", p.ForTighter)
	}
	return s
}

// refusedWhy says why a series has no proposal, and what would give it one.
func refusedWhy(p trend.Proposal) string {
	s := fmt.Sprintf("its σ %s is known only up to %s from %d runs, and a tolerance for that would be above %s",
		pctRate(p.Noise.Sigma), pctRate(p.Upper), p.Runs, tolPct(trend.MaxTolerance))
	if p.NeedRuns > 0 {
		return s + fmt.Sprintf("; about %d runs would support one. Its configured tolerance is kept", p.NeedRuns)
	}
	return s + " however many runs: it varies more than a tolerance can gate (an absolute limit, max:, may). Its configured tolerance is kept"
}

func tolPct(r float64) string { return yamlNum(100*r) + "%" }

func yamlMS(ms float64) string { return yamlNum(ms) + "ms" }

// yamlFloor is a proposal's floor as the config reads it: ms for a
// duration, a plain number of tokens/s for tokens_per_s.
func yamlFloor(p trend.Proposal) string {
	if results.HigherIsBetter(p.Metric) {
		return yamlNum(p.FloorMS)
	}
	return yamlMS(p.FloorMS)
}

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
