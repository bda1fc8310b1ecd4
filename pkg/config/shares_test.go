package config

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestShareChecks: a share metric takes a tolerance in points, a min, or
// off, and its stat is the share.
func TestShareChecks(t *testing.T) {
	cfg := mustParse(t, y(`
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate:
  checks:
    - {metric: ttft, stat: p50, tolerance: 20%}
    - {metric: slo_attainment, min: 95%}
    - {metric: cache_hit_rate, tolerance: 10%, min: 80%}
    - {metric: stream_integrity, off: true}
`), filepath.Join(t.TempDir(), "latgate.yaml"), Options{})
	want := []Check{
		{Metric: "ttft", Stat: "p50", Tolerance: Tolerance{Rel: 0.2}},
		{Metric: "slo_attainment", Stat: "share", Min: 0.95, MinOnly: true},
		{Metric: "cache_hit_rate", Stat: "share", Tolerance: Tolerance{Rel: 0.1}, Min: 0.8},
		{Metric: "stream_integrity", Stat: "share", Off: true},
	}
	if diff := cmp.Diff(want, cfg.Gate.Checks); diff != "" {
		t.Errorf("checks (-want +got):\n%s", diff)
	}
}

// TestShareCheckErrors: each mistake names file:line:field and the fix.
func TestShareCheckErrors(t *testing.T) {
	const head = `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate:
  checks:
`
	for _, tt := range []struct {
		name, check string
		want        []string
	}{
		{"max", `    - {metric: slo_attainment, max: 95%}`, []string{":5: gate.checks[0].max:", "min: (e.g. {metric: slo_attainment, min: 95%})"}},
		{"floor", `    - {metric: cache_hit_rate, tolerance: 10%, floor: 2ms}`, []string{":5: gate.checks[0].floor:", "points of the share"}},
		{"stat", `    - {metric: slo_attainment, stat: p95, min: 95%}`, []string{":5: gate.checks[0].stat:", "remove stat"}},
		{"min above 100%", `    - {metric: slo_attainment, min: 120%}`, []string{":5: gate.checks[0].min:", "at most 100%"}},
		{"tolerance above 100 points", `    - {metric: cache_hit_rate, tolerance: 150%}`, []string{":5: gate.checks[0].tolerance:", "between 0% and 100%"}},
		{"nothing", `    - {metric: stream_integrity}`, []string{":5: gate.checks[0]:", "missing tolerance or min", "off: true"}},
		{"off with a min", `    - {metric: stream_integrity, off: true, min: 90%}`, []string{":5: gate.checks[0].off:", "takes no tolerance or min"}},
		{"unknown key", `    - {metric: stream_integrity, tolerance: 10%, when: always}`, []string{":5:", "when"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			_, err := Parse(y(head+tt.check+"\n"), filepath.Join(dir, "latgate.yaml"), Options{Getenv: noEnv, CheckSimSpec: checkSim})
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

// TestCacheAndSLO: a prompt's cache mode and SLO, a target's SLO for the
// prompts that set none; the cache mode is part of the prompt's hash.
func TestCacheAndSLO(t *testing.T) {
	cfg := mustParse(t, y(`
targets: [{name: a, base_url: sim, slo: {ttft: 800ms}}]
prompts:
  - {id: p, cache: warm, slo: {ttft: 500ms, itl: 50ms}, messages: [{role: user, content: hi}]}
  - {id: q, cache: cold, messages: [{role: user, content: hi}]}
  - {id: r, messages: [{role: user, content: hi}]}
`), filepath.Join(t.TempDir(), "latgate.yaml"), Options{})
	p, q, r := cfg.Prompts[0], cfg.Prompts[1], cfg.Prompts[2]
	if p.Cache != "warm" || q.Cache != "cold" || r.Cache != "" {
		t.Errorf("cache modes %q %q %q", p.Cache, q.Cache, r.Cache)
	}
	if p.Hash == q.Hash || q.Hash == r.Hash || p.Hash == r.Hash {
		t.Errorf("hashes %s %s %s: the cache mode must change a prompt's hash", p.Hash, q.Hash, r.Hash)
	}
	if got := SLOFor(cfg.Targets[0], p).String(); got != "ttft ≤ 500ms, itl ≤ 50ms" {
		t.Errorf("prompt SLO %q", got)
	}
	if got := SLOFor(cfg.Targets[0], q).String(); got != "ttft ≤ 800ms" {
		t.Errorf("target SLO %q", got)
	}
}

func TestCacheAndSLOErrors(t *testing.T) {
	for _, tt := range []struct {
		name, prompt string
		want         []string
	}{
		{"cache", `{id: p, cache: hot, messages: [{role: user, content: hi}]}`, []string{":3: prompts[0].cache:", `"hot" is not warm or cold`}},
		{"slo key", `{id: p, slo: {latency: 1s}, messages: [{role: user, content: hi}]}`, []string{":3:", "latency"}},
		{"slo unit", `{id: p, slo: {ttft: 500}, messages: [{role: user, content: hi}]}`, []string{":3: prompts[0].slo.ttft:", "unit"}},
		{"slo zero", `{id: p, slo: {ttft: 0s}, messages: [{role: user, content: hi}]}`, []string{":3: prompts[0].slo.ttft:", "must be > 0"}},
		{"slo empty", `{id: p, slo: {}, messages: [{role: user, content: hi}]}`, []string{":3: prompts[0].slo:", "sets no limit", "slo: {ttft: 500ms, itl: 50ms}"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			_, err := Parse(y("\ntargets: [{name: a, base_url: sim}]\nprompts:\n  - "+tt.prompt+"\n"), filepath.Join(dir, "latgate.yaml"), Options{Getenv: noEnv, CheckSimSpec: checkSim})
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
