package compare

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// TestDecideLimit: the interval of the current statistic against max (the
// sentences: internal/report's TestSummaryLimit).
func TestDecideLimit(t *testing.T) {
	base := Check{Metric: results.TTFT, Stat: "p95", Confidence: 0.95, NCur: 80, Max: 800}
	with := func(cur, lo, hi float64, f ...func(*Check)) Check {
		c := base
		c.Current, c.Lo, c.Hi = cur, lo, hi
		for _, g := range f {
			g(&c)
		}
		return c
	}
	short := func(have, need int, unit string) func(Check) bool {
		return func(c Check) bool {
			h, n, u := c.Unresolved()
			return !c.Resolved() && h == have && n == need && u == unit
		}
	}
	tests := []struct {
		name string
		c    Check
		want Verdict
		why  func(Check) bool // what the verdict rests on, beyond the interval (nil: nothing)
		more int              // -1, 0, or 1 for "some"
	}{
		{"whole interval above", with(912, 871, 960), Regressed, nil, 0},
		{"whole interval below", with(512, 490, 540), OK, nil, 0},
		{"upper bound on the limit", with(700, 650, 800), OK, nil, 0},
		{"lower bound on the limit", with(850, 800, 900), Inconclusive, nil, 1},
		{"straddles below", with(780, 700, 860), Inconclusive, nil, 1},
		{"straddles above", with(820, 760, 900), Inconclusive, nil, 1},
		{"on the limit", with(800, 760, 840), Inconclusive, nil, -1},
		{"too few for p95", with(500, 400, 600, func(c *Check) { c.NCur = 30 }), Inconclusive, short(30, 72, "requests"), 1},
		{"no values", with(0, 0, 0, func(c *Check) { c.NCur = 0 }), Inconclusive, func(c Check) bool { return c.NCur == 0 }, 0},
		{"unbounded", with(500, math.NaN(), 600), Inconclusive, func(c Check) bool { return c.Lo == 0 && c.Hi == 0 }, 0},
		{"itl short of gaps", with(5, 4, 6, func(c *Check) {
			c.Metric, c.Max, c.GapsCur, c.NCur = results.ITL, 10, 40, 20
		}), Inconclusive, short(40, 72, "gaps"), 1},
		{"itl enough gaps", with(5, 4, 6, func(c *Check) {
			c.Metric, c.Max, c.GapsCur, c.NCur = results.ITL, 10, 400, 20
		}), OK, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.c
			Decide(&c) // Decide hands a limit check to DecideLimit
			if c.Verdict != tt.want || tt.why != nil && !tt.why(c) {
				t.Errorf("verdict = %s (%+v), want %s for its stated reason", c.Verdict, c, tt.want)
			}
			switch {
			case tt.more == 1 && c.More <= 0, tt.more != 1 && c.More != tt.more:
				t.Errorf("More = %d, want %d (1: some)", c.More, tt.more)
			}
			if c.Ratio != 0 || c.Threshold != 0 || c.Baseline != 0 {
				t.Errorf("a limit check has no ratio: %+v", c)
			}
		})
	}
}

// TestCompareLimits: max adds a limit check per prompt, with or without a
// baseline for it; a max-only check compares nothing with the baseline.
func TestCompareLimits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	p := profile{TTFTMedian: 30, TTFTSigma: 0.2, ITLMedian: 2, ITLReqSigma: 0.1, ITLGapSigma: 0.2, Gaps: 20}
	old := prompt("old", simSamples(rng, p, 80))
	cur := side(prompt("old", simSamples(rng, p, 80)), prompt("added", simSamples(rng, p, 80)))
	gate := config.Gate{Confidence: 0.95, Resamples: 1000, Seed: 1, Checks: []config.Check{
		{Metric: results.TTFT, Stat: "p50", MaxOnly: true, Max: 10 * time.Millisecond},
		{Metric: results.TTFT, Stat: "p95", Max: 500 * time.Millisecond, Tolerance: config.Tolerance{Rel: 0.5}},
	}}
	type row struct {
		Prompt, Stat string
		Limit        bool
		Verdict      Verdict
	}
	rows := func(cs []Check) []row {
		var out []row
		for _, c := range cs {
			out = append(out, row{c.Prompt, c.Stat, c.Max > 0, c.Verdict})
		}
		return out
	}
	for _, tt := range []struct {
		name    string
		base    Side
		checks  []row
		newRows []row
		verdict Verdict
	}{
		{"with a baseline", side(old),
			[]row{
				{"old", "p50", true, Regressed}, {"added", "p50", true, Regressed},
				{"old", "p95", false, OK}, {"old", "p95", true, OK}, {"added", "p95", true, OK},
			},
			[]row{{"added", "p95", false, Unbaselined}},
			Regressed},
		{"no baseline", Side{},
			[]row{
				{"old", "p50", true, Regressed}, {"added", "p50", true, Regressed},
				{"old", "p95", true, OK}, {"added", "p95", true, OK},
			},
			[]row{{"old", "p95", false, Unbaselined}, {"added", "p95", false, Unbaselined}},
			Regressed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rep := Compare(tt.base, cur, gate)
			if diff := cmp.Diff(tt.checks, rows(rep.Checks)); diff != "" {
				t.Errorf("checks (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.newRows, rows(rep.New)); diff != "" {
				t.Errorf("new (-want +got):\n%s", diff)
			}
			if rep.Verdict != tt.verdict {
				t.Errorf("verdict = %s, want %s", rep.Verdict, tt.verdict)
			}
			for _, c := range rep.Checks {
				if c.Max > 0 && !(c.Lo <= c.Current && c.Current <= c.Hi && c.Lo > 0) {
					t.Errorf("%s %s: interval [%g, %g] does not hold the statistic %g", c.Prompt, c.Stat, c.Lo, c.Hi, c.Current)
				}
			}
		})
	}
}

// TestLimitRounds: an undecided limit check asks for another round, at the
// one-sample level of the sequential design.
func TestLimitRounds(t *testing.T) {
	// TTFT p50 right at the limit: the interval straddles it.
	cur := side(prompt("p", ttftSamples(grid(60, 30, 0.3, 1)...)))
	gate := config.Gate{Confidence: 0.95, Resamples: 1000, Seed: 1, Checks: []config.Check{
		{Metric: results.TTFT, Stat: "p50", MaxOnly: true, Max: 30 * time.Millisecond},
	}}
	d := NewDesign(60, 150)
	rep := CompareSequential(Side{}, cur, gate, d)
	if len(rep.Checks) != 1 || rep.Checks[0].Verdict != Inconclusive {
		t.Fatalf("checks = %+v, want one inconclusive limit check", rep.Checks)
	}
	c := rep.Checks[0]
	if c.Look != 1 || c.Level <= 0.95 {
		t.Errorf("look %d level %g, want look 1 at a level above 95%%", c.Look, c.Level)
	}
	r, more := NextRound(rep, d)
	if !more || r.To != 90 || !cmp.Equal(r.Prompts[TargetID{Name: "t"}], []string{"p"}) {
		t.Errorf("NextRound = %+v, %v; want prompt p to 90 requests", r, more)
	}
}
