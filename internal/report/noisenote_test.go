package report

import (
	"strings"
	"testing"

	"github.com/latgate/latgate/pkg/compare"
)

// TestNoiseNote: the line that says where each interval's day-to-day
// noise came from — assumed, learned from the history, or read at the
// baseline's age when the history's level wanders (#29).
func TestNoiseNote(t *testing.T) {
	check := func(n compare.DayNoise) compare.Check {
		return compare.Check{Metric: "ttft", Stat: "p50", NBase: 60, NCur: 60, Baseline: 100, Current: 100, Ratio: 1, Lo: 0.9, Hi: 1.1,
			Confidence: 0.95, DayNoise: n.Sigma, DayRuns: n.Runs, DayLag: n.Lag}
	}
	for _, tt := range []struct {
		name string
		n    compare.DayNoise
		want string
	}{
		{"assumed", compare.DayNoise{Sigma: 0.01}, "day-to-day noise ±1% per run (assumed: no history of 20 runs to learn it from)"},
		{"learned", compare.DayNoise{Sigma: 0.05, Runs: 24}, "day-to-day noise ±5% per run (from 24 runs of the history) widens"},
		{"wandering", compare.DayNoise{Sigma: 0.08, Runs: 20, Lag: 10},
			"day-to-day noise ±8% per run (from 20 runs of the history, read at the baseline's age of 10+ runs: its level wanders from run to run) widens"},
	} {
		got := noiseNote(compare.Report{Checks: []compare.Check{check(tt.n)}})
		if !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s: %q, want it to start with %q", tt.name, got, tt.want)
		}
	}
}

// TestNoiseNotePerStatistic: noise learned per statistic is said per
// statistic where a metric's differ, and once where they agree.
func TestNoiseNotePerStatistic(t *testing.T) {
	check := func(metric, stat string, sigma float64) compare.Check {
		return compare.Check{Metric: metric, Stat: stat, NBase: 60, NCur: 60, Baseline: 100, Current: 100, Ratio: 1, Lo: 0.9, Hi: 1.1,
			Confidence: 0.95, DayNoise: sigma, DayRuns: 20}
	}
	fellBack := check("ttft", "p90", 0.05)
	fellBack.DayFrom = "p50"
	for _, tt := range []struct {
		name   string
		checks []compare.Check
		want   string
	}{
		{"one σ", []compare.Check{check("ttft", "p50", 0.05), check("ttft", "p90", 0.05), check("itl", "p50", 0.05)},
			"day-to-day noise ±5% per run (from 20 runs of the history) widens"},
		{"a tail of its own", []compare.Check{check("ttft", "p50", 0.05), check("ttft", "p90", 0.12), check("itl", "p50", 0.03), check("itl", "p95", 0.03)},
			"day-to-day noise ttft p50 ±5% per run (from 20 runs of the history); ttft p90 ±12% per run (from 20 runs of the history); itl ±3% per run (from 20 runs of the history) widens"},
		{"a tail with the median's", []compare.Check{check("ttft", "p50", 0.05), fellBack},
			"day-to-day noise ttft p50 ±5% per run (from 20 runs of the history); ttft p90 ±5% per run (from 20 runs of the history, its p50's: the history's records keep no p90) widens"},
	} {
		if got := noiseNote(compare.Report{Checks: tt.checks}); !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s: %q, want it to start with %q", tt.name, got, tt.want)
		}
	}
}
