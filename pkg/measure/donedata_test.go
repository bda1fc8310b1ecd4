package measure

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// TestSSEDoneData: an OpenAI-style stream (data: {…}, then data: [DONE])
// read as api: sse. Without sse.done_data the [DONE] line is a malformed
// frame, and the failure says how to accept it; with done_data: "[DONE]"
// it ends the answer, which is measured. Over the wire, on loopback.
func TestSSEDoneData(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, tok := range []string{"Hel", "lo", "!"} {
			fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":%q}}]}\n\n", tok)
			w.(http.Flusher).Flush()
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()
	measure := func(doneData string) *results.File {
		t.Helper()
		tg := config.Target{Name: "app", Model: "m", API: config.APISSE, MaxTokens: 64, MaxErrorRate: 1,
			SSE: &config.SSE{Body: map[string]any{"q": "{{prompt}}"}, TokenEvents: []string{"message"}, TokenPointer: "/choices/0/delta/content", ErrorEvents: []string{"error"}, DoneData: doneData}}
		f, err := Run(context.Background(), Options{
			Endpoints:  []Endpoint{NewEndpoint(tg, srv.URL, func(string) string { return "" })},
			Prompts:    []config.Prompt{{ID: "p", Messages: []config.Message{{Role: "user", Content: "hi"}}}},
			Run:        config.Run{Requests: 2, Concurrency: 1, Timeout: 10 * time.Second, Order: "interleave", Seed: 1},
			MaxRetries: -1,
		})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		return f
	}
	p := measure("").Targets[0].Prompts[0]
	if p.Errors == 0 || len(p.Samples) != 0 {
		t.Fatalf("without done_data: %d samples, %d errors; want every request failed on the [DONE] line", len(p.Samples), p.Errors)
	}
	if msg := p.Failures[0].Message; !strings.Contains(msg, `set sse.done_data: "[DONE]"`) {
		t.Errorf("without done_data the failure reads %q; want it to say how to accept the line", msg)
	}
	p = measure("[DONE]").Targets[0].Prompts[0]
	if p.Errors != 0 || len(p.Samples) != 2 {
		t.Fatalf("with done_data: %d samples, %d errors (%v); want 2 measured", len(p.Samples), p.Errors, p.Failures)
	}
	if s := p.Samples[0]; s.FinishReason != "[DONE]" || s.OutputTokens != 3 || !s.HasContent {
		t.Errorf("with done_data: finish %q, %d output tokens, content %v; want finish [DONE], 3 tokens", s.FinishReason, s.OutputTokens, s.HasContent)
	}
}
