package measure

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/latgate/latgate/internal/golden"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// sentRequest is a request as the server saw it.
type sentRequest struct {
	method, uri string
	header      http.Header
	length      int64
	body        []byte
}

// capture is a server on 127.0.0.1 that records every request and answers
// each with answer (nil: an empty event stream).
func capture(t *testing.T, answer func(w http.ResponseWriter)) (*httptest.Server, func() []sentRequest) {
	t.Helper()
	var (
		mu   sync.Mutex
		reqs []sentRequest
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		reqs = append(reqs, sentRequest{r.Method, r.RequestURI, r.Header.Clone(), r.ContentLength, body})
		mu.Unlock()
		if answer != nil {
			answer(w)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
	}))
	t.Cleanup(srv.Close)
	return srv, func() []sentRequest {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(reqs)
	}
}

// nonceRE matches a cold prompt's nonce, fresh per request.
var nonceRE = regexp.MustCompile(`\[nonce [0-9a-f]{16}\] `)

// dump writes a request as a golden file holds it: the request line, the
// headers (User-Agent aside: Go's version), a blank line and the body, its
// nonce masked.
func (r sentRequest) dump() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s\n", r.method, r.uri)
	keys := make([]string, 0, len(r.header))
	for k := range r.header {
		if k != "User-Agent" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %s\n", k, strings.Join(r.header[k], ", "))
	}
	fmt.Fprintf(&b, "\n%s\n", nonceRE.ReplaceAll(r.body, []byte(noncePlaceholder)))
	return b.Bytes()
}

// sendOne sends prompt pr's request (with conv, a chain step's) to a
// target of api at url and returns its outcome.
func sendOne(t *testing.T, tg config.Target, url string, pr config.Prompt, conv []config.Message) outcome {
	t.Helper()
	ep := NewEndpoint(tg, url, func(env string) string { return "key-of-" + env })
	hc, closeIdle := newHTTPClient(1)
	defer closeIdle()
	c, err := newClient(ep, hc, []config.Prompt{pr})
	if err != nil {
		t.Fatal(err)
	}
	var ans *answerText
	if conv != nil {
		ans = &answerText{limit: 1 << 20}
	}
	return c.stream(context.Background(), 0, conv, ans, 5*time.Second, make([]byte, 32<<10))
}

func float(x float64) *float64 { return &x }

// wirePrompt has a system message, a named user message and a tool.
var wirePrompt = config.Prompt{ID: "w", Messages: []config.Message{
	{Role: "system", Content: "Be brief <&>."},
	{Role: "user", Content: "What is the weather in Lyon?", Name: "ana"},
}, Tools: []config.Tool{{Name: "weather", Description: "Current weather", Parameters: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}}}

// TestRequestsOnTheWire sends one request of each API and setting to a
// server on 127.0.0.1 and compares what arrives, request line, headers and
// body byte for byte, with testdata/requests (go test -update rewrites
// them). What the wire carries is the protocols' contract: a refactor of
// how requests are built must not change a byte of it.
func TestRequestsOnTheWire(t *testing.T) {
	plain := config.Prompt{ID: "p", Messages: []config.Message{{Role: "user", Content: "hi"}}}
	cold := config.Prompt{ID: "c", Cache: results.CacheCold, Messages: []config.Message{{Role: "system", Content: "sys"}, {Role: "user", Content: "hi"}}}
	conv := []config.Message{{Role: "user", Content: "hi"}, {Role: "assistant", Content: "hello"}, {Role: "user", Content: "again"}}
	tools := func(choice string) config.Prompt { p := wirePrompt; p.ToolChoice = choice; return p }
	target := func(api string, set func(*config.Target)) config.Target {
		tg := apiTarget(api)
		tg.Headers = map[string]string{"X-Team": "perf"}
		if set != nil {
			set(&tg)
		}
		return tg
	}
	settings := func(tg *config.Target) {
		tg.Temperature = float(0)
		tg.Extra = map[string]any{"top_k": int64(1), "options": map[string]any{"num_ctx": int64(512)}}
	}
	tests := []struct {
		name   string
		target config.Target
		path   string // appended to the server's URL as the base URL
		prompt config.Prompt
		conv   []config.Message // a chain step's messages
	}{
		{"chat", target(config.APIChat, nil), "/v1", plain, nil},
		{"chat_settings", target(config.APIChat, settings), "/v1", plain, nil},
		{"chat_temperature", target(config.APIChat, func(tg *config.Target) { tg.Temperature = float(0.7) }), "/v1", plain, nil},
		{"chat_no_usage", target(config.APIChat, func(tg *config.Target) { tg.IncludeUsage = false }), "/v1", plain, nil},
		{"chat_reasoning_model", target(config.APIChat, func(tg *config.Target) { tg.Model = "o3-mini" }), "/v1", plain, nil},
		{"chat_reasoning_model_settings", target(config.APIChat, func(tg *config.Target) { tg.Model = "gpt-5"; settings(tg) }), "/v1", plain, nil},
		{"chat_tools", target(config.APIChat, nil), "/v1/", tools("weather"), nil},
		{"chat_tool_choice_auto", target(config.APIChat, settings), "/v1", tools("required"), nil},
		{"chat_query", target(config.APIChat, func(tg *config.Target) { tg.APIKeyEnv = "" }), "/openai?api-version=2024-10-21", plain, nil},
		{"chat_cold", target(config.APIChat, settings), "/v1", cold, nil},
		{"chat_step", target(config.APIChat, settings), "/v1", plain, conv},
		{"responses", target(config.APIResponses, nil), "/v1", plain, nil},
		{"responses_settings", target(config.APIResponses, settings), "/v1", tools("weather"), nil},
		{"responses_step", target(config.APIResponses, nil), "/v1", cold, conv},
		{"anthropic", target(config.APIAnthropic, nil), "/v1", cachedPrompt, nil},
		{"anthropic_settings", target(config.APIAnthropic, settings), "/v1", tools("required"), nil},
		{"anthropic_step", target(config.APIAnthropic, nil), "/v1", cold, conv},
		{"gemini", target(config.APIGemini, nil), "/v1beta?key=k", cachedPrompt, nil},
		{"gemini_settings", target(config.APIGemini, settings), "/v1beta", tools("auto"), nil},
		{"gemini_step", target(config.APIGemini, nil), "/v1beta", cold, conv},
		{"sse", target(config.APISSE, func(tg *config.Target) { tg.SSE.HeadersEnv = map[string]string{"X-App-Token": "APP_TOKEN"} }), "/app/chat", cachedPrompt, nil},
		{"sse_step", target(config.APISSE, func(tg *config.Target) { tg.Temperature = float(0) }), "/app/chat", cold, conv},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, sent := capture(t, nil)
			sendOne(t, tt.target, srv.URL+tt.path, tt.prompt, tt.conv)
			reqs := sent()
			if len(reqs) != 1 {
				t.Fatalf("%d requests arrived, want 1", len(reqs))
			}
			if reqs[0].length != int64(len(reqs[0].body)) {
				t.Errorf("Content-Length %d, body of %d bytes", reqs[0].length, len(reqs[0].body))
			}
			golden.Check(t, filepath.Join("testdata", "requests", tt.name+".txt"), reqs[0].dump())
		})
	}
}

// TestChatBodyFields checks, on requests that went over HTTP to a server on
// 127.0.0.1, the fields of a Chat Completions body that go-openai's request
// type alone would get wrong: temperature 0 is sent (the type drops it as
// empty), extra_body is merged in, stream_options is null when
// include_usage is off, and a reasoning model's limit goes as
// max_completion_tokens (go-openai refuses max_tokens for the o1, o3, o4
// and gpt-5 families), in one request.
func TestChatBodyFields(t *testing.T) {
	tests := []struct {
		name string
		set  func(*config.Target)
		want map[string]string // top-level field → its JSON ("" : absent)
	}{
		{"defaults", nil, map[string]string{"temperature": "", "stream_options": `{"include_usage":true}`, "max_tokens": "64", "max_completion_tokens": "", "stream": "true"}},
		{"temperature 0 is sent", func(tg *config.Target) { tg.Temperature = float(0) }, map[string]string{"temperature": "0"}},
		{"temperature 1.5", func(tg *config.Target) { tg.Temperature = float(1.5) }, map[string]string{"temperature": "1.5"}},
		{"extra_body merged", func(tg *config.Target) {
			tg.Extra = map[string]any{"top_k": int64(1), "chat_template_kwargs": map[string]any{"enable_thinking": false}}
		}, map[string]string{"top_k": "1", "chat_template_kwargs": `{"enable_thinking":false}`, "model": `"sim"`}},
		{"extra_body replaces a field", func(tg *config.Target) { tg.Extra = map[string]any{"max_tokens": int64(7)} }, map[string]string{"max_tokens": "7"}},
		{"include_usage off", func(tg *config.Target) { tg.IncludeUsage = false }, map[string]string{"stream_options": "null"}},
		{"reasoning model o3-mini", func(tg *config.Target) { tg.Model = "o3-mini" }, map[string]string{"max_tokens": "", "max_completion_tokens": "64"}},
		{"reasoning model gpt-5", func(tg *config.Target) { tg.Model = "gpt-5-mini"; tg.Temperature = float(0) }, map[string]string{"max_tokens": "", "max_completion_tokens": "64", "temperature": "0"}},
		{"not a reasoning model", func(tg *config.Target) { tg.Model = "gpt-4o" }, map[string]string{"max_tokens": "64", "max_completion_tokens": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, sent := capture(t, nil)
			tg := apiTarget(config.APIChat)
			if tt.set != nil {
				tt.set(&tg)
			}
			sendOne(t, tg, srv.URL+"/v1", wirePrompt, nil)
			reqs := sent()
			if len(reqs) != 1 {
				t.Fatalf("%d requests arrived, want 1", len(reqs))
			}
			if reqs[0].uri != "/v1/chat/completions" {
				t.Errorf("sent to %s, want /v1/chat/completions", reqs[0].uri)
			}
			var body map[string]json.RawMessage
			if err := json.Unmarshal(reqs[0].body, &body); err != nil {
				t.Fatalf("body %s: %v", reqs[0].body, err)
			}
			got := map[string]string{}
			for k := range tt.want {
				got[k] = string(body[k])
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("body fields (-want +got):\n%s\nbody: %s", diff, reqs[0].body)
			}
		})
	}
}

// TestChatRefusal: a chat request go-openai's checks refuse (a GPT-6
// model with tools) is not sent: each request of its prompt, and a chain
// step built from it, fails with go-openai's reason, as a request that
// could not be sent.
func TestChatRefusal(t *testing.T) {
	tests := []struct {
		name string
		conv []config.Message
	}{
		{"prompt", nil},
		{"chain step", wirePrompt.Messages},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, sent := capture(t, nil)
			tg := apiTarget(config.APIChat)
			tg.Model = openai.GPT6Sol
			o := sendOne(t, tg, srv.URL+"/v1", wirePrompt, tt.conv)
			if n := len(sent()); n != 0 {
				t.Errorf("%d requests arrived, want none", n)
			}
			want := &results.Failure{Class: results.ErrConnect, Message: openai.ErrReasoningToolsRequireResponses.Error()}
			if diff := cmp.Diff(want, o.failure); diff != "" {
				t.Errorf("failure (-want +got):\n%s", diff)
			}
		})
	}
}

// TestErrorAnswers: an answer of HTTP status 300 or more fails the request
// with the class of its status and the message of its body, read in each
// API's error shape: Chat Completions' with go-openai's (its APIError's
// message alone), then, for every API, errorMessage's (the kind, then the
// message), else the body, else the status text.
func TestErrorAnswers(t *testing.T) {
	tests := []struct {
		api         string
		status      int
		body        string
		class, want string
	}{
		{config.APIChat, 401, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`, results.ErrAuth, "HTTP 401: Incorrect API key provided"},
		{config.APIChat, 429, `{"error":{"message":["slow", "down"],"type":"requests"}}`, results.ErrRateLimit, "HTTP 429: slow, down"},
		{config.APIChat, 500, `upstream connect error`, results.ErrServer, "HTTP 500: upstream connect error"},
		// Not go-openai's shape: read as on the other APIs (go-openai's
		// path said "unexpected end of JSON input", quoted the body whole,
		// and took Ollama's {"error": "…"} for an error of status 0).
		{config.APIChat, 502, ``, results.ErrServer, "HTTP 502: Bad Gateway"},
		{config.APIChat, 404, `{"detail":"Not Found"}`, results.ErrHTTP, `HTTP 404: Not Found`},
		{config.APIChat, 401, `{"error":"unauthorized"}`, results.ErrAuth, `HTTP 401: unauthorized`},
		{config.APIChat, 300, ``, results.ErrHTTP, `HTTP 300: Multiple Choices`}, // go-openai read it as a stream
		{config.APIResponses, 401, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`, results.ErrAuth, "HTTP 401: invalid_request_error: Incorrect API key provided"},
		{config.APIAnthropic, 529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, results.ErrServer, "HTTP 529: overloaded_error: Overloaded"},
		{config.APIGemini, 400, `[{"error":{"code":400,"message":"API key not valid","status":"INVALID_ARGUMENT"}}]`, results.ErrHTTP, "HTTP 400: INVALID_ARGUMENT: API key not valid"},
		{config.APISSE, 503, ``, results.ErrServer, "HTTP 503: Service Unavailable"},
		{config.APISSE, 500, `oops`, results.ErrServer, "HTTP 500: oops"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%d", tt.api, tt.status), func(t *testing.T) {
			srv, sent := capture(t, func(w http.ResponseWriter) {
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			})
			o := sendOne(t, apiTarget(tt.api), srv.URL+"/v1", cachedPrompt, nil)
			if n := len(sent()); n != 1 {
				t.Errorf("%d requests arrived, want 1", n)
			}
			if o.failure == nil {
				t.Fatalf("no failure, want %s", tt.class)
			}
			got := results.Failure{Class: o.failure.Class, Status: o.failure.Status, Message: o.failure.Message}
			want := results.Failure{Class: tt.class, Status: tt.status, Message: got.Message}
			if !strings.HasPrefix(got.Message, tt.want) {
				want.Message = tt.want + "…"
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("failure (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWireParseAllocations: every API's parse, through its wire row, reads
// each event of the provider's documented stream (testdata/streams)
// without allocating.
func TestWireParseAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector adds allocations")
	}
	tests := []struct{ api, file string }{
		{config.APIChat, "chat.sse"},
		{config.APIResponses, "responses.sse"},
		{config.APIResponses, "responses_tool.sse"},
		{config.APIAnthropic, "anthropic.sse"},
		{config.APIAnthropic, "anthropic_tool.sse"},
		{config.APIGemini, "gemini.sse"},
		{config.APISSE, "sse.sse"},
		{config.APINDJSON, "ollama.ndjson"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join("testdata", "streams", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			parse := goldenClient(t, tt.api).wire.parse
			var (
				f      frame
				event  []byte
				events int
			)
			for _, line := range bytes.Split(bytes.ReplaceAll(body, []byte("\r\n"), []byte("\n")), []byte("\n")) {
				if tt.api == config.APINDJSON && len(line) > 0 {
					line = append([]byte("data:"), line...) // every line is a payload
				}
				switch {
				case len(line) == 0:
					event = nil
				case bytes.HasPrefix(line, []byte("event:")):
					event = bytes.TrimSpace(line[6:])
				case bytes.HasPrefix(line, []byte("data:")):
					data := line[5:]
					if n := testing.AllocsPerRun(20, func() { parse(event, data, &f) }); n != 0 {
						t.Errorf("parse of %s allocates %v times", line, n)
					}
					events++
				}
			}
			if events == 0 {
				t.Fatal("no data lines")
			}
		})
	}
}
