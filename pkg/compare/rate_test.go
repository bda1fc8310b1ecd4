package compare

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// rateSamples makes one sample per decode rate (tokens/s): 33 tokens whose
// decode time gives that rate, so TPOT and tokens_per_s agree.
func rateSamples(rates ...float64) []results.Sample {
	out := make([]results.Sample, len(rates))
	for i, r := range rates {
		tpot := 1000 / r
		out[i] = results.Sample{Seq: i, TTFT: 100, TTFB: 90, Total: 100 + 32*tpot, OutputTokens: 33, TPOT: tpot, TokensPerS: r}
	}
	return out
}

// TestRateDecisionRule gates tokens_per_s through Compare: higher is better,
// so a lower rate beyond the tolerance regressed and a higher one improved.
func TestRateDecisionRule(t *testing.T) {
	tps := config.Check{Metric: results.TokensPerS, Stat: "p50", Tolerance: config.Tolerance{Rel: 0.15}}
	tests := []struct {
		name      string
		base, cur []float64
		check     config.Check
		want      Verdict
		floor     bool // the tokens/s floor sets the threshold
	}{
		{"30% lower rate regressed", grid(200, 50, 0.2, 1), grid(200, 50, 0.2, 0.7), tps, Regressed, false},
		{"30% higher rate improved", grid(200, 50, 0.2, 1), grid(200, 50, 0.2, 1.3), tps, Improved, false},
		{"unchanged rate ok", grid(300, 50, 0.2, 1), grid(300, 50, 0.2, 1), tps, OK, false},
		{"a drop under the tokens/s floor is not a regression", grid(200, 50, 0.2, 1), grid(200, 50, 0.2, 0.7),
			config.Check{Metric: results.TokensPerS, Stat: "p50", Tolerance: config.Tolerance{Rel: 0.15, FloorRate: 20}}, OK, true},
		{"a drop beyond the tokens/s floor is", grid(200, 50, 0.2, 1), grid(200, 50, 0.2, 0.5),
			config.Check{Metric: results.TokensPerS, Stat: "p50", Tolerance: config.Tolerance{Rel: 0.15, FloorRate: 20}}, Regressed, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Compare(side(prompt("a", rateSamples(tt.base...))), side(prompt("a", rateSamples(tt.cur...))), gateWith(tt.check))
			c := only(t, r, "a")
			_, unit, floor := c.FloorSets()
			if c.Verdict != tt.want || floor != tt.floor || unit != "tokens/s" {
				t.Errorf("verdict %s, floor %v %s; want %s, floor %v in tokens/s", c.Verdict, floor, unit, tt.want, tt.floor)
			}
			// A rate: current/baseline, its threshold below 1.
			if c.Threshold >= 1 || math.Abs(c.Ratio-1) > 1e-9 && (c.Ratio < 1) != (c.Current < c.Baseline) {
				t.Errorf("ratio %v, threshold %v for %v → %v", c.Ratio, c.Threshold, c.Baseline, c.Current)
			}
			if r.Verdict != tt.want {
				t.Errorf("report verdict %s, want %s", r.Verdict, tt.want)
			}
		})
	}
}

// TestDecideRate pins the mirrored rule for a rate on hand-made intervals:
// the threshold lies below 1 (1/τ), a regression is a drop (the sentences:
// internal/report's TestSummary).
func TestDecideRate(t *testing.T) {
	tests := []struct {
		name   string
		c      Check
		tol    config.Tolerance
		want   Verdict
		reason string
	}{
		{"whole interval below 1/τ", Check{Baseline: 50, Current: 35, Ratio: 0.7, Lo: 0.62, Hi: 0.78}, config.Tolerance{Rel: 0.15}, Regressed,
			"-30% [95% CI -38%, -22%] < -13% tolerance (50.0 tokens/s -> 35.0 tokens/s)"},
		{"upper bound on 1/τ is not enough", Check{Baseline: 50, Current: 42, Ratio: 0.84, Lo: 0.8, Hi: 0.88}, config.Tolerance{Rel: 0.15}, Inconclusive,
			"-16% [95% CI -20%, -12%] straddles -13% tolerance"},
		{"lower bound above 1/τ is ok", Check{Baseline: 50, Current: 51, Ratio: 1.02, Lo: 0.9, Hi: 1.12}, config.Tolerance{Rel: 0.15}, OK,
			"+2% [95% CI -10%, +12%] within -13% tolerance: rules out < -10% (50.0 tokens/s -> 51.0 tokens/s)"},
		{"whole interval above τ", Check{Baseline: 50, Current: 70, Ratio: 1.4, Lo: 1.25, Hi: 1.55}, config.Tolerance{Rel: 0.15}, Improved,
			"+40% [95% CI +25%, +55%] > +15% tolerance (50.0 tokens/s -> 70.0 tokens/s)"},
		{"floor sets the threshold: a 10 tokens/s drop of 50", Check{Baseline: 50, Current: 35, Ratio: 0.7, Lo: 0.62, Hi: 0.78}, config.Tolerance{Rel: 0.15, FloorRate: 10}, Regressed,
			"< -20% tolerance (10 tokens/s floor)"},
		{"a floor at the baseline allows any drop", Check{Baseline: 50, Current: 10, Ratio: 0.2, Lo: 0.1, Hi: 0.3}, config.Tolerance{Rel: 0.15, FloorRate: 50}, OK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.c
			c.Metric, c.Stat, c.Confidence, c.Tolerance = results.TokensPerS, "p50", 0.95, tt.tol
			c.NBase, c.NCur = 100, 100
			Decide(&c)
			if c.Verdict != tt.want {
				t.Errorf("verdict = %s, want %s", c.Verdict, tt.want)
			}
		})
	}
}

// TestRateThreshold: a drop of exactly the floor is the threshold.
func TestRateThreshold(t *testing.T) {
	tests := []struct {
		rel, floor, base float64
		want             float64
	}{
		{0.15, 0, 50, 1.15},
		{0.15, 10, 50, 50.0 / 40}, // 50 → 40 tokens/s is a drop of the floor
		{0.50, 10, 50, 1.5},       // the relative tolerance is larger
		{0.15, 1, 1000, 1.15},     // a small floor on a fast rate
	}
	for _, tt := range tests {
		got := RateThreshold(tt.rel, tt.floor, tt.base)
		if diff := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 })); diff != "" {
			t.Errorf("RateThreshold(%v, %v, %v) (-want +got):\n%s", tt.rel, tt.floor, tt.base, diff)
		}
	}
	if Resolution(results.TokensPerS) != 0 {
		t.Errorf("Resolution(tokens_per_s) = %v, want 0: a rate's floor is in tokens/s", Resolution(results.TokensPerS))
	}
	if got := Resolvable(results.TokensPerS, config.Tolerance{Rel: 0.15}); got.Floor != 0*time.Millisecond {
		t.Errorf("Resolvable(tokens_per_s) raised the floor to %v ms", got.Floor)
	}
}
