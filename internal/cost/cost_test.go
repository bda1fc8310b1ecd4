package cost

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

var gpt = config.Price{Input: 2.5, Cached: 1.25, CacheWrite: 3.125, Output: 10}

func TestOf(t *testing.T) {
	for _, tt := range []struct {
		name string
		u    results.Usage
		want Amount
	}{
		// 1M uncached prompt tokens at $2.50, none cached, 1M output at $10.
		{"million each", results.Usage{Requests: 10, PromptTokens: 1e6, OutputTokens: 1e6}, Amount{USD: 12.5, Requests: 10}},
		// Of 2,000 prompt tokens 1,500 came from the cache at half price.
		{"cached", results.Usage{Requests: 4, PromptTokens: 2000, CachedTokens: 1500, OutputTokens: 400},
			Amount{USD: (500*2.5 + 1500*1.25 + 400*10) / 1e6, Requests: 4}},
		// Anthropic: of 2,000 prompt tokens 1,200 were read from the cache
		// and 600 written to it.
		{"cache writes", results.Usage{Requests: 4, PromptTokens: 2000, CachedTokens: 1200, CacheWriteTokens: 600, OutputTokens: 400},
			Amount{USD: (200*2.5 + 1200*1.25 + 600*3.125 + 400*10) / 1e6, Requests: 4}},
		{"unknown ones cost nothing known", results.Usage{Requests: 5, Unknown: 2, PromptTokens: 300, OutputTokens: 30},
			Amount{USD: (300*2.5 + 30*10) / 1e6, Requests: 5, Unknown: 2}},
		{"none known", results.Usage{Requests: 5, Unknown: 5}, Amount{Requests: 5, Unknown: 5}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Of(tt.u, gpt)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateApprox(1e-12, 0)); diff != "" {
				t.Errorf("Of (-want +got):\n%s", diff)
			}
			if got.Known() != (tt.u.Requests > tt.u.Unknown) {
				t.Errorf("Known() = %v with %d of %d unknown", got.Known(), tt.u.Unknown, tt.u.Requests)
			}
		})
	}
}

// TestRun: one line per priced target in the run's order, the unpriced
// named, the rounds' part apart, and a file without usage unknown.
func TestRun(t *testing.T) {
	cfg := &config.Config{Targets: []config.Target{
		{Name: "a", Price: &gpt},
		{Name: "b", Region: "eu", Price: &config.Price{Input: 1, Cached: 1, CacheWrite: 1, Output: 1}},
		{Name: "b", Price: &gpt}, // another region's price does not apply to b@eu
		{Name: "c"},
	}}
	targets := []results.Target{
		{Name: "a", Usage: &results.Usage{Requests: 30, PromptTokens: 3000, OutputTokens: 600},
			RoundsUsage: &results.Usage{Requests: 10, PromptTokens: 1000, OutputTokens: 200}},
		{Name: "b", Region: "eu", Usage: &results.Usage{Requests: 8, PromptTokens: 1e6, OutputTokens: 1e6}},
		{Name: "c", Usage: &results.Usage{Requests: 8, PromptTokens: 80}},
		{Name: "old"}, // from before usage was recorded: priced below
	}
	price := PriceOf(cfg)
	withOld := func(t results.Target) (config.Price, bool) {
		if t.Name == "old" {
			return gpt, true
		}
		return price(t)
	}
	got := Run(targets, withOld)
	want := Bill{
		Targets: []Target{
			{Name: "a", All: Amount{USD: (3000*2.5 + 600*10) / 1e6, Requests: 30}, Rounds: Amount{USD: (1000*2.5 + 200*10) / 1e6, Requests: 10}, Recorded: true},
			{Name: "b@eu", All: Amount{USD: 2, Requests: 8}, Recorded: true},
			{Name: "old"},
		},
		Unpriced: []string{"c"},
		// Every target's requests and tokens, priced or not; "old" records
		// none, so the figures are not the whole run's.
		Sent: Sent{Usage: results.Usage{Requests: 46, PromptTokens: 1003080, OutputTokens: 1000600}},
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(1e-12, 0)); diff != "" {
		t.Errorf("Run (-want +got):\n%s", diff)
	}
	all, rounds := got.Total()
	if math.Abs(all.USD-(0.0135+2)) > 1e-12 || all.Requests != 38 || rounds.Requests != 10 {
		t.Errorf("Total = %+v, %+v", all, rounds)
	}
	if Run(targets, PriceOf(nil)).Priced() || !got.Priced() {
		t.Error("Priced: a bill without prices is not priced, one with is")
	}
}
