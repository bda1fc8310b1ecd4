package measure

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/sim"
)

// TestUsageTally (on the wire): a target's usage counts every request sent,
// the warmup's and the failed ones too, with the tokens of those that
// reported usage and the others unknown, never estimated.
func TestUsageTally(t *testing.T) {
	for _, tt := range []struct {
		name, spec string
		unknown    int // of the 8 requests
	}{
		{"usage reported", "fast?tokens=5", 0},
		{"no usage", "fast?tokens=5&usage=false", 8},
		{"every other request fails", "fast?tokens=5&fault=500&fault_every=2", 4},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := sim.ParseSpec(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			s := sim.New(p)
			defer s.Close()
			srv := httptest.NewServer(s)
			defer srv.Close()
			opts := runOpts(Endpoint{Target: config.Target{Name: "t", Model: "m", MaxTokens: 64, IncludeUsage: true, MaxErrorRate: 1}, URL: srv.URL + "/v1"}, 6)
			opts.Run.Warmup = 2
			f, err := Run(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			tg := f.Targets[0]
			if tg.Usage == nil {
				t.Fatal("no usage recorded")
			}
			// The measured samples that reported usage say what one request's
			// tokens are; the warmups' are the same prompt's.
			var one results.Sample
			for _, smp := range tg.Prompts[0].Samples {
				if smp.Known() {
					one = smp
				}
			}
			known := int64(8 - tt.unknown)
			want := results.Usage{Requests: 8, Unknown: tt.unknown,
				PromptTokens: known * int64(one.PromptTokens), OutputTokens: known * int64(one.OutputTokens)}
			if tt.unknown < 8 && (one.PromptTokens == 0 || one.OutputTokens != 5) {
				t.Fatalf("a known sample has %d prompt and %d output tokens", one.PromptTokens, one.OutputTokens)
			}
			if diff := cmp.Diff(want, *tg.Usage); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
		})
	}
}
