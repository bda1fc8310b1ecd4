package report

import (
	"testing"

	"github.com/latgate/latgate/pkg/results"
)

func TestCacheLine(t *testing.T) {
	prompt := func(id, cache string, ttft float64, cached int) results.Prompt {
		p := results.Prompt{ID: id, Cache: cache}
		for i := range 5 {
			p.Samples = append(p.Samples, results.Sample{TTFT: ttft + float64(i), PromptTokens: 2000, CachedTokens: cached})
		}
		return p
	}
	for _, tc := range []struct {
		name    string
		prompts []results.Prompt
		want    string
	}{
		{"both", []results.Prompt{prompt("faq", "warm", 120, 1984), prompt("fresh", "cold", 326, 0), prompt("other", "", 500, 0)},
			"prompt cache: TTFT p50 warm 122 ms (faq; 99.2% of prompt tokens cached), cold 328 ms (fresh; 0%): a miss costs +169%"},
		{"warm only", []results.Prompt{prompt("faq", "warm", 120, 1984)}, ""},
		{"none", []results.Prompt{prompt("a", "", 120, 0), prompt("b", "", 320, 0)}, ""},
	} {
		if got := CacheLine(results.Target{Prompts: tc.prompts}); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
