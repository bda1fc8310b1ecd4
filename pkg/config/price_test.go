package config

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPrice: a target's price in dollars per million tokens, cached at the
// input's price when not set, none when absent; the price is in no hash.
func TestPrice(t *testing.T) {
	parse := func(price string) *Config {
		t.Helper()
		return mustParse(t, y(`
targets:
  - {name: a, base_url: sim`+price+`}
  - {name: b, base_url: sim, price: {input: 3, output: 15}}
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`), filepath.Join(t.TempDir(), "latgate.yaml"), Options{})
	}
	cfg := parse(", price: {input: 2.50, cached: 1.25, cache_write: 3.125, output: 10.00}")
	if diff := cmp.Diff(&Price{Input: 2.5, Cached: 1.25, CacheWrite: 3.125, Output: 10}, cfg.Targets[0].Price); diff != "" {
		t.Errorf("price (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&Price{Input: 3, Cached: 3, CacheWrite: 3, Output: 15}, cfg.Targets[1].Price); diff != "" {
		t.Errorf("price without cached (-want +got):\n%s", diff)
	}
	none := parse("")
	if none.Targets[0].Price != nil {
		t.Errorf("no price: got %+v", none.Targets[0].Price)
	}
	if none.Hash != cfg.Hash || none.Prompts[0].Hash != cfg.Prompts[0].Hash {
		t.Errorf("a price changed the config's hash: %s vs %s", none.Hash, cfg.Hash)
	}
}

func TestPriceErrors(t *testing.T) {
	for _, tt := range []struct {
		name, price string
		want        []string
	}{
		{"negative", `{input: -1, output: 10}`, []string{":2: targets[0].price.input:", "must be ≥ 0", "price: {input: 2.50, cached: 1.25, output: 10.00}"}},
		{"no output", `{input: 2.5}`, []string{":2: targets[0].price:", "missing output", "cached and cache_write are optional"}},
		{"empty", `{}`, []string{":2: targets[0].price:", "missing input and output"}},
		{"unknown key", `{input: 1, output: 2, cache_read: 3}`, []string{":2: targets[0].price.cache_read:", "valid keys here: input, cached, cache_write, output"}},
		{"text", `{input: cheap, output: 2}`, []string{":2: targets[0].price.input:", "number"}},
		{"per token", `{input: 0.0000025, output: 2000000}`, []string{":2: targets[0].price.output:", "per million tokens, in dollars"}},
		{"not a mapping", `2.5`, []string{":2: targets[0].price:"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			_, err := Parse(y("\ntargets:\n  - {name: a, base_url: sim, price: "+tt.price+"}\nprompts: [{id: p, messages: [{role: user, content: hi}]}]\n"),
				filepath.Join(dir, "latgate.yaml"), Options{Getenv: noEnv, CheckSimSpec: checkSim})
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
