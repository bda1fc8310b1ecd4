package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUnknownMetric: a check naming no metric gets one error, the one to
// fix: the closest metric, share metrics included, else every metric. What
// else the check needs (a stat, a tolerance, a floor's unit, min: and off:)
// depends on the metric, and is not an error of its own. A typo of
// slo_attainment was told to use a duration metric and to add a stat.
func TestUnknownMetric(t *testing.T) {
	t.Parallel()
	const head = `targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate:
`
	tests := []struct {
		name, gate, want string
	}{
		{"a share's typo", `  checks: [{metric: slo_attainmnt, tolerance: 5%}]`,
			`latgate.yaml:4: gate.checks[0].metric: "slo_attainmnt" is not a metric; did you mean "slo_attainment"?`},
		{"a share's typo with min", `  checks: [{metric: cache_hit_rat, min: 80%}]`,
			`latgate.yaml:4: gate.checks[0].metric: "cache_hit_rat" is not a metric; did you mean "cache_hit_rate"?`},
		{"a share's typo with off", `  checks: [{metric: stream_integrty, off: true}]`,
			`latgate.yaml:4: gate.checks[0].metric: "stream_integrty" is not a metric; did you mean "stream_integrity"?`},
		{"a rate's typo with its floor", `  checks: [{metric: tokens_per_sec, stat: p50, tolerance: 15%, floor: 5}]`,
			`latgate.yaml:4: gate.checks[0].metric: "tokens_per_sec" is not a metric; did you mean "tokens_per_s"?`},
		{"a duration's typo with max", `  checks: [{metric: tft, stat: p95, max: 800ms}]`,
			`latgate.yaml:4: gate.checks[0].metric: "tft" is not a metric; did you mean "ttft"?`},
		{"no metric close", `  checks: [{metric: latency, tolerance: 5%}]`,
			`latgate.yaml:4: gate.checks[0].metric: "latency" is not a metric; use one of ttfb, ttft, ttfct, itl, tpot, total, max_stall, chain_total, chain_ttft_last, tokens_per_s, or a share of requests (no stat): stream_integrity, cache_hit_rate, slo_attainment`},
		{"a bad stat is its own error", `  checks: [{metric: slo_attainmnt, stat: p80, tolerance: 5%}]`,
			`latgate.yaml:4: gate.checks[0].metric: "slo_attainmnt" is not a metric; did you mean "slo_attainment"?
latgate.yaml:4: gate.checks[0].stat: "p80" is not a stat; use one of p50, p90, p95, p99, mean`},
		{"a known metric still needs its stat", `  checks: [{metric: ttft, tolerance: 5%}]`,
			`latgate.yaml:4: gate.checks[0]: missing required field stat; add e.g. stat: p90`},
		{"an override's typo", `  checks: [{metric: ttft, stat: p50, tolerance: 5%}]
  overrides: [{prompt: p, metric: tft, stat: p50, tolerance: 9%}]`,
			`latgate.yaml:5: gate.overrides[0].metric: "tft" is not a metric; did you mean "ttft"?`},
		{"an override names no share", `  checks: [{metric: ttft, stat: p50, tolerance: 5%}]
  overrides: [{prompt: p, metric: latency, stat: p50, tolerance: 9%}]`,
			`latgate.yaml:5: gate.overrides[0].metric: "latency" is not a metric; use one of ttfb, ttft, ttfct, itl, tpot, total, max_stall, chain_total, chain_ttft_last, tokens_per_s`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := ""
			if _, err := Parse([]byte(head+tt.gate+"\n"), "latgate.yaml", Options{Getenv: noEnv, CheckSimSpec: checkSim}); err != nil {
				got = err.Error()
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("error (-want +got):\n%s", d)
			}
		})
	}
}
