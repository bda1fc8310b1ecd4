package config

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRateCheck: tokens_per_s is gateable, its floor a number of tokens/s
// (written plain or with the unit), also in an override.
func TestRateCheck(t *testing.T) {
	cfg := mustParse(t, y(`
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate:
  checks:
    - {metric: tokens_per_s, stat: p50, tolerance: 15%}
    - {metric: tokens_per_s, stat: p95, tolerance: 20%, floor: 5}
  overrides:
    - {prompt: p, metric: tokens_per_s, stat: p50, floor: 2.5 tokens/s}
`), filepath.Join(t.TempDir(), "latgate.yaml"), Options{Getenv: noEnv, CheckSimSpec: checkSim})
	want := []Check{
		{Metric: "tokens_per_s", Stat: "p50", Tolerance: Tolerance{Rel: 0.15}},
		{Metric: "tokens_per_s", Stat: "p95", Tolerance: Tolerance{Rel: 0.20, FloorRate: 5}},
	}
	if diff := cmp.Diff(want, cfg.Gate.Checks); diff != "" {
		t.Errorf("checks (-want +got):\n%s", diff)
	}
	if got := cfg.Gate.ToleranceFor("p", want[0]); got != (Tolerance{Rel: 0.15, FloorRate: 2.5}) {
		t.Errorf("override tolerance = %+v, want rel 0.15 and a 2.5 tokens/s floor", got)
	}
}

// TestRateFloorErrors: a duration floor on tokens_per_s is refused, naming
// file:line:field, the unit it wants and the fix.
func TestRateFloorErrors(t *testing.T) {
	const head = `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate:
  checks:
    - {metric: tokens_per_s, stat: p50, tolerance: 15%}
`
	tests := []struct {
		name, extra string
		want        []string
	}{
		{"ms floor on a check", `    - {metric: tokens_per_s, stat: p95, tolerance: 15%, floor: 20ms}`,
			[]string{"latgate.yaml:6: gate.checks[1].floor:", `"20ms"`, "floor is in tokens/s, not a duration", "floor: 5 (tokens/s)"}},
		{"negative", `    - {metric: tokens_per_s, stat: p95, tolerance: 15%, floor: -3}`,
			[]string{"latgate.yaml:6: gate.checks[1].floor:", "must be >= 0"}},
		{"ms floor on an override", "  overrides:\n    - {prompt: p, metric: tokens_per_s, stat: p50, floor: 1s}",
			[]string{"latgate.yaml:7: gate.overrides[0].floor:", "floor is in tokens/s, not a duration"}},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "latgate.yaml")
			_, err := Parse(y(head+tt.extra+"\n"), path, Options{Getenv: noEnv, CheckSimSpec: checkSim})
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
