package selftest

import (
	"math"
	"testing"
)

func TestVerdict(t *testing.T) {
	tests := []struct {
		name     string
		c        ResolvedCheck
		requests int
		want     string
	}{
		{"resolves the floor", ResolvedCheck{Stat: "p50", FloorMS: 20, MinChangeMS: 0.1, NeedRequests: 5}, 30, "ok"},
		{"too few requests for p95", ResolvedCheck{Stat: "p95", FloorMS: 20, MinChangeMS: 0.1, NeedRequests: 59}, 30,
			"always inconclusive: p95 needs ≥ 59 requests per prompt at 95% confidence (run.requests is 30)"},
		{"noise over the floor: 4× the requests halve it", ResolvedCheck{Stat: "p50", FloorMS: 1, MinChangeMS: 2, NeedRequests: 5}, 30,
			"floor under latgate's noise here: raise the floor above 2.000ms or run.requests to ≥ 120"},
		{"no noise model", ResolvedCheck{Stat: "p50", FloorMS: 1, MinChangeMS: math.NaN()}, 30, "not assessed: no noise model for this metric or statistic"},
	}
	for _, tt := range tests {
		if got := verdict(tt.c, tt.requests, 0.95); got != tt.want {
			t.Errorf("%s: verdict = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestFmtSpread(t *testing.T) {
	tests := []struct {
		s    Spread
		want string
	}{
		{Spread{Median: -0.0001, Min: -0.001, Max: 0.001}, "+0.000 ±0.001"},
		{Spread{Median: 0.0144, Min: 0.002, Max: 0.026}, "+0.014 ±0.012"},
		{Spread{Median: -0.019, Min: -0.03, Max: -0.002}, "-0.019 ±0.014"},
	}
	for _, tt := range tests {
		if got := fmtSpread(tt.s); got != tt.want {
			t.Errorf("fmtSpread(%+v) = %q, want %q", tt.s, got, tt.want)
		}
	}
}
