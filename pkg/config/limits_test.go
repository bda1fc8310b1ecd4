package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestCheckMax: an absolute limit parses alone (MaxOnly) or beside a
// tolerance.
func TestCheckMax(t *testing.T) {
	dir := t.TempDir()
	cfg := mustParse(t, y(`
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate:
  checks:
    - {metric: ttft, stat: p95, max: 800ms}
    - {metric: itl, stat: p50, tolerance: 20%, floor: 1ms, max: 15ms}
`), filepath.Join(dir, "latgate.yaml"), Options{})
	want := []Check{
		{Metric: "ttft", Stat: "p95", Max: 800 * time.Millisecond, MaxOnly: true},
		{Metric: "itl", Stat: "p50", Tolerance: Tolerance{Rel: 0.2, Floor: time.Millisecond}, Max: 15 * time.Millisecond},
	}
	if diff := cmp.Diff(want, cfg.Gate.Checks); diff != "" {
		t.Errorf("checks (-want +got):\n%s", diff)
	}
}

// TestCheckMaxErrors: a bad max names file:line:field and the fix.
func TestCheckMaxErrors(t *testing.T) {
	const head = `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate:
  checks:
`
	tests := []struct {
		name, check string
		want        []string
	}{
		{"no unit", `    - {metric: ttft, stat: p95, max: 800}`, []string{"latgate.yaml:5: gate.checks[0].max:", "800 has no unit", "800ms"}},
		{"not a duration", `    - {metric: ttft, stat: p95, max: fast}`, []string{":5: gate.checks[0].max:", "not a duration", "max: 800ms"}},
		{"zero", `    - {metric: ttft, stat: p95, max: 0s}`, []string{":5: gate.checks[0].max:", "must be > 0", "max: 800ms"}},
		{"negative", `    - {metric: ttft, stat: p95, max: -5ms}`, []string{":5: gate.checks[0].max:", "must be > 0"}},
		{"rate metric", `    - {metric: tokens_per_s, stat: p50, max: 10ms}`, []string{":5: gate.checks[0].metric:", `max is a duration limit and "tokens_per_s" is not a duration metric`, "tpot"}},
		{"floor without tolerance", `    - {metric: ttft, stat: p95, max: 800ms, floor: 5ms}`, []string{":5: gate.checks[0].floor:", "add e.g. tolerance: 20%"}},
		{"neither", `    - {metric: ttft, stat: p95}`, []string{":5: gate.checks[0]:", "missing required field tolerance", "max: 800ms"}},
		{"override of a max-only check", `    - {metric: ttft, stat: p95, max: 800ms}
  overrides:
    - {prompt: p, metric: ttft, stat: p95, tolerance: 30%}`, []string{":7: gate.overrides[0]:", "has only max"}},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "latgate.yaml")
			_, err := Parse(y(head+tt.check+"\n"), path, Options{Getenv: noEnv, CheckSimSpec: checkSim})
			if err == nil {
				t.Fatal("Parse succeeded, want an error")
			}
			msg := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error does not contain %q:\n%s", w, msg)
				}
			}
		})
	}
}
