package measure

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// TestFailuresNameTheRequest (#33): an HTTP failure says which request
// failed — POST and the URL it went to, without the key or query — and, on
// each API, the usual reason: a 404 from a server without the API, a 405.
func TestFailuresNameTheRequest(t *testing.T) {
	tests := []struct {
		api    string
		status int
		body   string
		want   []string
	}{
		{config.APIResponses, 404, "404 page not found", []string{"HTTP 404: 404 page not found (POST http://127.0.0.1:", "/v1/responses; the server may not implement the OpenAI Responses API", "api: chat", `the model "sim"`}},
		{config.APIAnthropic, 404, "404 page not found", []string{"/v1/messages; the server may not implement the Anthropic Messages API"}},
		{config.APIGemini, 405, "", []string{"HTTP 405: Method Not Allowed (POST http://127.0.0.1:", "/v1/models/sim:streamGenerateContent; the URL answers, but not to POST", "Gemini"}},
		{config.APISSE, 405, "", []string{"HTTP 405: Method Not Allowed (POST http://127.0.0.1:", "the URL of the streaming endpoint itself"}},
		{config.APIChat, 500, "boom", []string{"HTTP 500: boom (POST http://127.0.0.1:", "/v1/chat/completions)"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%d", tt.api, tt.status), func(t *testing.T) {
			srv, _ := capture(t, func(w http.ResponseWriter) {
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			})
			o := sendOne(t, apiTarget(tt.api), srv.URL+"/v1?key=hidden", cachedPrompt, nil)
			if o.failure == nil {
				t.Fatal("no failure")
			}
			for _, w := range tt.want {
				if !strings.Contains(o.failure.Message, w) {
					t.Errorf("message %q lacks %q", o.failure.Message, w)
				}
			}
			if strings.Contains(o.failure.Message, "hidden") || strings.Contains(o.failure.Message, "key-of-") {
				t.Errorf("message %q shows the query or the key", o.failure.Message)
			}
		})
	}
}

// TestNotAStreamFailsAtTheHeaders (#33): a 200 whose Content-Type is
// newline-delimited JSON (Ollama's native API) fails when the headers
// arrive, naming what it is, not when the body ends; an SSE body
// sent under another Content-Type is still read.
func TestNotAStreamFailsAtTheHeaders(t *testing.T) {
	tests := []struct {
		contentType string
		want        string
	}{
		{"application/x-ndjson", "newline-delimited JSON, not an event stream"},
		{"application/x-ndjson; charset=utf-8", "Ollama's native /api/chat"},
	}
	for _, tt := range tests {
		t.Run(tt.contentType, func(t *testing.T) {
			release := make(chan struct{})
			srv, _ := capture(t, func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", tt.contentType)
				w.WriteHeader(200)
				io.WriteString(w, `{"message":{"content":"Hi"},"done":false}`+"\n")
				w.(http.Flusher).Flush()
				select { // a long stream: the test ends it
				case <-release:
				case <-time.After(time.Minute):
				}
			})
			defer close(release)
			o := sendOne(t, apiTarget(config.APIChat), srv.URL+"/v1", cachedPrompt, nil)
			if o.failure == nil || o.failure.Class != results.ErrMalformed || !strings.Contains(o.failure.Message, tt.want) {
				t.Fatalf("failure %+v, want malformed saying %q", o.failure, tt.want)
			}
			if !strings.Contains(o.failure.Message, "/v1/chat/completions") {
				t.Errorf("message %q does not name the URL", o.failure.Message)
			}
		})
	}
	srv, _ := capture(t, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	})
	if o := sendOne(t, apiTarget(config.APIChat), srv.URL+"/v1", cachedPrompt, nil); o.failure != nil {
		t.Errorf("an SSE body as text/plain: %+v, want it measured", *o.failure)
	}
}
