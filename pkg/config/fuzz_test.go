package config

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/latgate/latgate/internal/testkit"
)

func FuzzParse(f *testing.F) {
	dir := f.TempDir()
	testkit.WriteFile(f, dir, "rag.json", `{"messages": [{"role": "user", "content": "hi"}]}`)
	for _, s := range []string{
		string(Example()),
		"targets: [{name: a, base_url: sim}]\nprompts: [{id: p, messages: [{role: user, content: hi}]}]\n",
		"targets: [{name: a, base_url: 'http://127.0.0.1:1/v1', model: m, extra_body: {a: [1, {b: null}]}, headers: {X-A: b}}]\nprompts: [{id: p, messages_file: rag.json}]\n",
		"targets:\n  - &t {name: a, base_url: sim, max_tokens: 3}\n  - {<<: *t, name: b}\nprompts: [{id: p, messages: [{role: user, content: hi}]}]\ngate: {checks: [{metric: itl, stat: mean, tolerance: 0.5}], overrides: [{prompt: p, metric: itl, stat: mean, floor: 1ms}]}\n",
		"targets: []\nprompts: []\nrun: {requests: 0, timeout: 60}\n",
		"targets: [{name: a, api_key: x}]\n",
		"a: [",
		"",
		"run: &r {x: *r}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data, filepath.Join(dir, "latgate.yaml"), Options{Getenv: noEnv, CheckSimSpec: checkSim})
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v (%T) holds no *Error", err, err)
			}
			return
		}
		checkInvariants(t, cfg)
	})
}

// checkInvariants asserts what a successfully parsed config promises.
func checkInvariants(t *testing.T, c *Config) {
	t.Helper()
	if len(c.Targets) == 0 || len(c.Prompts) == 0 {
		t.Fatalf("%d targets, %d prompts: want at least one of each", len(c.Targets), len(c.Prompts))
	}
	if len(c.Hash) != 16 || c.Baseline == "" {
		t.Errorf("Hash %q, Baseline %q", c.Hash, c.Baseline)
	}
	names := map[string]bool{}
	for _, tg := range c.Targets {
		if !namePattern.MatchString(tg.Name) || names[tg.Name] {
			t.Errorf("target name %q invalid or duplicate", tg.Name)
		}
		names[tg.Name] = true
		if tg.Model == "" || tg.MaxTokens <= 0 || tg.MaxErrorRate < 0 || tg.MaxErrorRate > 1 || !envPattern.MatchString(tg.APIKeyEnv) {
			t.Errorf("target %+v breaks an invariant", tg)
		}
		if tg.Temperature != nil && (*tg.Temperature < 0 || *tg.Temperature > 2) {
			t.Errorf("temperature %v out of range", *tg.Temperature)
		}
		if !tg.IsSim() && !(len(tg.BaseURL) > 7 && (tg.BaseURL[:7] == "http://" || tg.BaseURL[:8] == "https://")) {
			t.Errorf("base_url %q is neither sim nor http(s)", tg.BaseURL)
		}
		if _, err := json.Marshal(tg.Extra); err != nil {
			t.Errorf("extra_body has no JSON form: %v", err)
		}
	}
	ids := map[string]bool{}
	for _, p := range c.Prompts {
		if !namePattern.MatchString(p.ID) || ids[p.ID] || len(p.Messages) == 0 || len(p.Hash) != 16 {
			t.Errorf("prompt %+v breaks an invariant", p)
		}
		ids[p.ID] = true
		for _, m := range p.Messages {
			if !slices.Contains(roles, m.Role) || m.Content == "" {
				t.Errorf("message %+v breaks an invariant", m)
			}
		}
	}
	r := c.Run
	if r.Requests <= 0 || r.Warmup < 0 || r.Concurrency < 1 || r.Concurrency > MaxConcurrency || r.Timeout <= 0 || !slices.Contains(orders, r.Order) {
		t.Errorf("run %+v breaks an invariant", r)
	}
	g := c.Gate
	if g.Confidence <= 0.5 || g.Confidence >= 1 || g.Resamples < 100 || len(g.Checks) == 0 {
		t.Errorf("gate %+v breaks an invariant", g)
	}
	for _, ch := range g.Checks {
		if !slices.Contains(checkMetrics, ch.Metric) || !slices.Contains(checkStats, ch.Stat) || ch.Tolerance.Rel < 0 || ch.Tolerance.Floor < 0 {
			t.Errorf("check %+v breaks an invariant", ch)
		}
	}
	for _, o := range g.Overrides {
		if !ids[o.Prompt] || !slices.ContainsFunc(g.Checks, func(ch Check) bool { return ch.Metric == o.Metric && ch.Stat == o.Stat }) {
			t.Errorf("override %+v names no prompt or check", o)
		}
	}
}
