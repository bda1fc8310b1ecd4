package measure

import (
	"context"
	"io"
	"net/http"
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

// TestImplausibleUsageIsUnknown (#27): an endpoint that reports usage no
// request can have had — 10^11 tokens read from the cache, output beyond
// what max_tokens allows — is not believed: the request counts as one of
// unknown usage (no cost of $300,000 for three requests), and its output
// tokens come from its chunks. Honest usage of the same stream is kept.
func TestImplausibleUsageIsUnknown(t *testing.T) {
	for _, tt := range []struct {
		name, usage, final string // message_start's usage, message_delta's
		known              bool
	}{
		{"honest", `"input_tokens":12,"cache_read_input_tokens":4000,"output_tokens":1`, `"output_tokens":3`, true},
		{"cache read of 10^11", `"input_tokens":12,"cache_read_input_tokens":100000000000,"output_tokens":1`, `"output_tokens":3`, false},
		{"cache write of 10^8", `"input_tokens":12,"cache_creation_input_tokens":100000000,"output_tokens":1`, `"output_tokens":3`, false},
		{"output far past max_tokens", `"input_tokens":12,"output_tokens":1`, `"output_tokens":5000000`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"m\",\"usage\":{"+tt.usage+"}}}\n\n")
				for range 3 {
					io.WriteString(w, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"w \"}}\n\n")
				}
				io.WriteString(w, "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{"+tt.final+"}}\n\n")
				io.WriteString(w, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
			}))
			defer srv.Close()
			tg := config.Target{Name: "t", Model: "m", API: config.APIAnthropic, MaxTokens: 64, MaxErrorRate: 1}
			f, err := Run(context.Background(), runOpts(Endpoint{Target: tg, URL: srv.URL + "/v1"}, 3))
			if err != nil {
				t.Fatal(err)
			}
			u := f.Targets[0].Usage
			if u == nil || u.Requests != 3 {
				t.Fatalf("usage %+v, want 3 requests", u)
			}
			if tt.known {
				if u.Unknown != 0 || u.CachedTokens != 3*4000 {
					t.Errorf("honest usage was dropped: %+v", *u)
				}
				return
			}
			if diff := cmp.Diff(results.Usage{Requests: 3, Unknown: 3}, *u); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
			for _, s := range f.Targets[0].Prompts[0].Samples {
				if s.Known() || s.OutputTokens != 3 || s.CachedTokens != 0 || s.PromptTokens != 0 {
					t.Errorf("sample keeps the implausible usage: %s, %d output, %d prompt, %d cached", s.TokenSource, s.OutputTokens, s.PromptTokens, s.CachedTokens)
				}
			}
		})
	}
}
