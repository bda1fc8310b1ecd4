package measure

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// script is a scripted SSE endpoint: each step writes and flushes, or sleeps.
type step struct {
	write string
	sleep time.Duration
}

func chunk(delta string) step {
	return step{write: `data: {"id":"c","model":"m-returned","system_fingerprint":"fp1","choices":[{"index":0,"delta":` + delta + `,"finish_reason":null}]}` + "\n\n"}
}
func content(s string) step { return chunk(`{"content":"` + s + `"}`) }
func finish(reason string) step {
	return step{write: `data: {"choices":[{"index":0,"delta":{},"finish_reason":"` + reason + `"}]}` + "\n\n"}
}
func usage(n int) step {
	return step{write: fmt.Sprintf(`data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":%d,"total_tokens":%d,"prompt_tokens_details":{"cached_tokens":3}}}`+"\n\n", n, n+5)}
}
func sleep(d time.Duration) step { return step{sleep: d} }

var done = step{write: "data: [DONE]\n\n"}

func sseServer(t *testing.T, steps ...step) *httptest.Server {
	t.Helper()
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		for _, s := range steps {
			if s.sleep > 0 {
				select {
				case <-time.After(s.sleep):
				case <-r.Context().Done():
					return
				}
				continue
			}
			if _, err := w.Write([]byte(s.write)); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}))
}

func endpoint(url string) Endpoint {
	return Endpoint{Target: config.Target{Name: "t", Model: "m", APIKeyEnv: "TEST_KEY", MaxTokens: 16, IncludeUsage: true, MaxErrorRate: 0.05}, URL: url + "/v1"}
}

func runOpts(ep Endpoint, requests int) Options {
	return Options{
		Endpoints: []Endpoint{ep},
		Prompts:   []config.Prompt{{ID: "p", Hash: "h", Messages: []config.Message{{Role: "user", Content: "hi"}}}},
		Run:       config.Run{Requests: requests, Concurrency: 1, Timeout: 5 * time.Second, Order: "interleave", Seed: 1},
	}
}

// one runs a single measured request and returns its prompt's results.
func one(t *testing.T, ep Endpoint) results.Prompt {
	t.Helper()
	f, err := Run(context.Background(), runOpts(ep, 1))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return f.Targets[0].Prompts[0]
}

func within(t *testing.T, what string, got, lo, hi float64) {
	t.Helper()
	if got < lo || got > hi {
		t.Errorf("%s = %.3f ms, want within [%.1f, %.1f] ms", what, got, lo, hi)
	}
}

// slack is the scheduling allowance on this shared 2-core machine: a step
// may run late, never early.
const slack = 40.0

func TestRoleOnlyChunkIsTTFBNotTTFT(t *testing.T) {
	srv := sseServer(t, chunk(`{"role":"assistant","content":""}`), step{write: ": keep-alive\n\n"},
		sleep(60*time.Millisecond), content("Hel"), sleep(10*time.Millisecond), content("lo"), finish("stop"), usage(2), done)
	defer srv.Close()
	p := one(t, endpoint(srv.URL))
	if len(p.Samples) != 1 {
		t.Fatalf("got %d samples, %d failures %+v; want 1 sample", len(p.Samples), len(p.Failures), p.Failures)
	}
	s := p.Samples[0]
	within(t, "ttfb", s.TTFB, 0, slack)
	within(t, "ttft", s.TTFT, 60, 60+slack)
	within(t, "ttfct", s.TTFCT, 60, 60+slack)
	// Stamps can only be late, never early, so what is guaranteed is when
	// each token arrived after the send, not the gap between two of them: a
	// late first stamp (the reader descheduled) shortens the measured gap
	// below the server's 10 ms sleep.
	within(t, "itl", s.ITL[0], 0, 10+slack)
	within(t, "second token (ttft+itl)", s.TTFT+s.ITL[0], 70, 70+slack)
	if s.Total < 70 {
		t.Errorf("total %.3f ms < 70 ms (60 ms + 10 ms of server sleeps)", s.Total)
	}
	want := results.Sample{OutputTokens: 2, TokenSource: "usage", Chunks: 2, PromptTokens: 5, CachedTokens: 3, FinishReason: "stop", HasContent: true}
	got := results.Sample{OutputTokens: s.OutputTokens, TokenSource: s.TokenSource, Chunks: s.Chunks, PromptTokens: s.PromptTokens, CachedTokens: s.CachedTokens, FinishReason: s.FinishReason, HasContent: s.HasContent}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sample (-want +got):\n%s", diff)
	}
}

func TestReasoningCountsForTTFTNotTTFCT(t *testing.T) {
	for _, field := range []string{"reasoning_content", "reasoning"} {
		t.Run(field, func(t *testing.T) {
			srv := sseServer(t, sleep(20*time.Millisecond), chunk(`{"`+field+`":"Let me think"}`), sleep(50*time.Millisecond),
				content("Answer"), finish("stop"), done)
			defer srv.Close()
			p := one(t, endpoint(srv.URL))
			if len(p.Samples) != 1 {
				t.Fatalf("failures: %+v", p.Failures)
			}
			s := p.Samples[0]
			within(t, "ttft", s.TTFT, 20, 20+slack)
			within(t, "ttfct", s.TTFCT, 70, 70+slack)
			// 50 ms apart at the server; a read of the reasoning chunk that
			// a loaded machine delays brings them closer, never to one.
			if s.TTFCT-s.TTFT < 25 {
				t.Errorf("ttfct - ttft = %.3f ms, want the 50 ms the server put between them (at least 25 ms on a loaded machine)", s.TTFCT-s.TTFT)
			}
		})
	}
}

func TestTokenCountSource(t *testing.T) {
	tests := []struct {
		name       string
		steps      []step
		wantTokens int
		wantSource string
	}{
		{"usage reported", []step{content("a"), content("b"), finish("stop"), usage(7), done}, 7, "usage"},
		{"no usage: count chunks", []step{content("a"), content("b"), content("c"), finish("stop"), done}, 3, "chunks"},
		{"tool call chunks count", []step{chunk(`{"tool_calls":[{"index":0,"function":{"name":"f"}}]}`), chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}`), finish("tool_calls"), done}, 2, "chunks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := sseServer(t, tt.steps...)
			defer srv.Close()
			p := one(t, endpoint(srv.URL))
			if len(p.Samples) != 1 {
				t.Fatalf("failures: %+v", p.Failures)
			}
			s := p.Samples[0]
			if s.OutputTokens != tt.wantTokens || s.TokenSource != tt.wantSource {
				t.Errorf("tokens = %d from %q, want %d from %q", s.OutputTokens, s.TokenSource, tt.wantTokens, tt.wantSource)
			}
		})
	}
}

func TestStreamShapes(t *testing.T) {
	big := strings.Repeat("x", 200<<10)
	many := make([]step, 0, 1000)
	for range 900 {
		many = append(many, step{write: ": keep-alive\n\n"})
	}
	tests := []struct {
		name   string
		steps  []step
		chunks int
	}{
		{"200 KB chunk", []step{content(big), content("y"), finish("stop"), done}, 2},
		{"900 keep-alives between tokens", append(append([]step{content("a")}, many...), content("b"), finish("stop"), done), 2},
		{"frame split across reads", []step{{write: `data: {"choices":[{"delta":{"con`}, sleep(5 * time.Millisecond), {write: `tent":"a"}}]}` + "\n\n"}, finish("stop"), done}, 1},
		{"CRLF line endings", []step{{write: "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\r\n\r\n"}, finish("stop"), done}, 1},
		{"final line without newline", []step{content("a"), {write: `data: {"choices":[{"delta":{},"finish_reason":"stop"}]}`}}, 1},
		{"finish without [DONE]", []step{content("a"), content("b"), finish("length")}, 2},
		{"event and id fields ignored", []step{{write: "id: 1\nevent: message\nretry: 10\n"}, content("a"), finish("stop"), done}, 1},
		// A byte-order mark used to hide the first chunk (TTFT doubled).
		{"UTF-8 byte-order mark", []step{{write: "\xef\xbb\xbf"}, content("a"), content("b"), finish("stop"), done}, 2},
		{"CR line endings", []step{{write: "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\r\rdata: {\"choices\":[{\"delta\":{\"content\":\"b\"}}]}\r\r"}, finish("stop"), done}, 2},
		{"CRLF split between reads", []step{{write: "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\r"}, sleep(5 * time.Millisecond), {write: "\n\r\n"}, content("b"), finish("stop"), done}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := sseServer(t, tt.steps...)
			defer srv.Close()
			p := one(t, endpoint(srv.URL))
			if len(p.Samples) != 1 {
				t.Fatalf("got failures %+v, want one sample", p.Failures)
			}
			if got := p.Samples[0].Chunks; got != tt.chunks {
				t.Errorf("chunks = %d, want %d", got, tt.chunks)
			}
		})
	}
}

func TestErrorClasses(t *testing.T) {
	status := func(code int, body string, hdr ...string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			for i := 0; i+1 < len(hdr); i += 2 {
				w.Header().Set(hdr[i], hdr[i+1])
			}
			w.WriteHeader(code)
			fmt.Fprint(w, body)
		}
	}
	tests := []struct {
		name    string
		handler http.Handler
		steps   []step
		class   string
		status  int
		msg     string
	}{
		{name: "500", handler: status(500, `{"error":{"message":"overloaded","type":"server_error"}}`), class: results.ErrServer, status: 500, msg: "overloaded"},
		{name: "404 unknown model", handler: status(404, `{"error":{"message":"model \"x\" not found","type":"not_found"}}`), class: results.ErrHTTP, status: 404, msg: "not found"},
		{name: "502 html body", handler: status(502, `<html>bad gateway</html>`), class: results.ErrServer, status: 502, msg: "bad gateway"},
		{name: "cut mid-stream", steps: []step{content("a"), {write: `data: {"choices":[{"delta":{"content":"b"}}]}` + "\n\n"}}, class: results.ErrTruncated, msg: "without a finish_reason or [DONE]"},
		{name: "malformed frame", steps: []step{content("a"), {write: "data: {not json\n\n"}}, class: results.ErrMalformed, msg: "{not json"},
		{name: "openai error frame", steps: []step{content("a"), {write: `data: {"error":{"message":"model overloaded","type":"server_error"}}` + "\n\n"}}, class: results.ErrStreamErr, msg: "server_error: model overloaded"},
		{name: "ollama error frame after keep-alive", steps: []step{content("a"), {write: ": ping\n\n"}, {write: `data: {"error":"out of memory"}` + "\n\n"}}, class: results.ErrStreamErr, msg: "out of memory"},
		{name: "event: error", steps: []step{content("a"), {write: "event: error\ndata: {\"message\":\"bad\"}\n\n"}}, class: results.ErrStreamErr, msg: "bad"},
		{name: "200 JSON, not a stream", handler: status(200, `{"id":"x","object":"chat.completion","choices":[{"message":{"content":"hi"}}]}`), class: results.ErrMalformed, status: 200,
			msg: `HTTP 200 with Content-Type "application/json" is not an event stream (text/event-stream)`},
		{name: "200 HTML, not a stream", handler: status(200, "<!doctype html>\n<html>login</html>", "Content-Type", "text/html; charset=utf-8"), class: results.ErrMalformed, status: 200,
			msg: `Content-Type "text/html; charset=utf-8" is not an event stream (text/event-stream): the endpoint answered without streaming; check that base_url is the API (e.g. …/v1) and that it streams (stream: true); the body began: <!doctype html>`},
		{name: "zero tokens", steps: []step{chunk(`{"role":"assistant","content":""}`), finish("stop"), done}, class: results.ErrEmpty, msg: "no tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var srv *httptest.Server
			if tt.handler != nil {
				srv = httptest.NewServer(tt.handler)
			} else {
				srv = sseServer(t, tt.steps...)
			}
			defer srv.Close()
			p := one(t, endpoint(srv.URL))
			if len(p.Samples) != 0 || len(p.Failures) != 1 {
				t.Fatalf("got %d samples, failures %+v; want exactly one failure", len(p.Samples), p.Failures)
			}
			f := p.Failures[0]
			if tt.handler == nil {
				tt.status = http.StatusOK // failed mid-stream, after a 200
			}
			if f.Class != tt.class || f.Status != tt.status || !strings.Contains(f.Message, tt.msg) {
				t.Errorf("failure = {%s %d %q}, want {%s %d ...%q...}", f.Class, f.Status, f.Message, tt.class, tt.status, tt.msg)
			}
		})
	}
}

func TestTimeoutAndStall(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
		msg   string
	}{
		{"stalled stream", []step{content("a"), sleep(10 * time.Second)}, "mid-stream after 1 chunks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := sseServer(t, tt.steps...)
			defer srv.Close()
			opts := runOpts(endpoint(srv.URL), 1)
			opts.Run.Timeout = 200 * time.Millisecond
			start := time.Now()
			f, err := Run(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if el := time.Since(start); el > 3*time.Second {
				t.Errorf("took %v; the per-request timeout is 200ms", el)
			}
			fl := f.Targets[0].Prompts[0].Failures
			if len(fl) != 1 || fl[0].Class != results.ErrTimeout || !strings.Contains(fl[0].Message, tt.msg) {
				t.Errorf("failures = %+v, want one timeout %q", fl, tt.msg)
			}
		})
	}
	t.Run("before headers", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body) // lets the server notice the client hang up
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}))
		defer srv.Close()
		opts := runOpts(endpoint(srv.URL), 1)
		opts.Run.Timeout = 200 * time.Millisecond
		f, _ := Run(context.Background(), opts)
		fl := f.Targets[0].Prompts[0].Failures
		if len(fl) != 1 || fl[0].Class != results.ErrTimeout || !strings.Contains(fl[0].Message, "before the response headers") {
			t.Errorf("failures = %+v, want one timeout before headers", fl)
		}
	})
}

func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	p := one(t, endpoint("http://"+addr))
	if len(p.Failures) != 1 || p.Failures[0].Class != results.ErrConnect || !strings.Contains(p.Failures[0].Message, "refused") {
		t.Errorf("failures = %+v, want one connect failure saying refused", p.Failures)
	}
}

func TestAuthFailsFastAndRedactsKey(t *testing.T) {
	const key = "sk-SENTINEL-0123456789"
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s","type":"invalid_request_error"}}`, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	}))
	defer srv.Close()
	ep := endpoint(srv.URL)
	ep.APIKey = key
	f, err := Run(context.Background(), runOpts(ep, 20))
	var ae *AuthError
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v, want *AuthError", err)
	}
	if !strings.Contains(err.Error(), "$TEST_KEY") || strings.Contains(err.Error(), key) {
		t.Errorf("error %q must name $TEST_KEY and not contain the key", err)
	}
	if n := calls.Load(); n > 3 {
		t.Errorf("server saw %d requests after a 401; want a fail-fast stop", n)
	}
	if !f.Partial {
		t.Error("results not marked partial")
	}
	for _, fl := range f.Targets[0].Prompts[0].Failures {
		if strings.Contains(fl.Message, key) {
			t.Errorf("failure message leaks the key: %q", fl.Message)
		}
	}
}

func TestRetryAfter429(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"error":{"message":"slow down","type":"rate_limit"}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	f, err := Run(context.Background(), runOpts(endpoint(srv.URL), 1))
	if err != nil {
		t.Fatal(err)
	}
	tg := f.Targets[0]
	if len(tg.Prompts[0].Samples) != 1 || tg.Prompts[0].Samples[0].Retries != 1 || tg.Retries != 1 {
		t.Errorf("want one sample with 1 retry reported, got samples %+v, target retries %d", tg.Prompts[0].Samples, tg.Retries)
	}
	// A 429 that never clears is a rate_limit failure after MaxRetries.
	srv2 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv2.Close()
	opts := runOpts(endpoint(srv2.URL), 1)
	opts.MaxRetries = 2
	f, _ = Run(context.Background(), opts)
	fl := f.Targets[0].Prompts[0].Failures
	if len(fl) != 1 || fl[0].Class != results.ErrRateLimit || fl[0].Retries != 2 {
		t.Errorf("failures = %+v, want one rate_limit with 2 retries", fl)
	}
}

// TestInterruptDuring429Backoff: Ctrl-C while waiting out a 429's
// Retry-After ends the run as interrupted, promptly, and records no
// rate_limit failure: the endpoint did not fail the request, the run stopped.
func TestInterruptDuring429Backoff(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Retry-After", "20")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"error":{"message":"slow down","type":"rate_limit"}}`)
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for calls.Load() == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond) // inside the backoff
		cancel()
	}()
	start := time.Now()
	opts := runOpts(endpoint(srv.URL), 1)
	opts.Run.Timeout = time.Minute // the 20 s wait fits the request's budget
	f, err := Run(ctx, opts)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("Run error %v, want ErrInterrupted", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Run took %v: the backoff was not interrupted", d)
	}
	tg := f.Targets[0]
	if tg.Errors != 0 || tg.ByClass[results.ErrRateLimit] != 0 || len(tg.Prompts[0].Failures) != 0 {
		t.Errorf("target errors %d by class %v, failures %+v; want none: an interruption is no failure", tg.Errors, tg.ByClass, tg.Prompts[0].Failures)
	}
}

// TestRetryWaitWithinBudget: a 429 storm whose Retry-After passes the
// request's budget (run.timeout) is not waited out: each request fails as
// rate_limit at once, saying why, and the target is given up after
// ConsecutiveFailures answers, well within one timeout. Waiting each
// Retry-After (capped at 30 s) took a minute against a 3 s timeout.
func TestRetryWaitWithinBudget(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"error":{"message":"slow down","type":"rate_limit"}}`)
	}))
	defer srv.Close()
	ep := endpoint(srv.URL)
	ep.MaxErrorRate = 1 // only the consecutive-failure rule gives up
	opts := runOpts(ep, 10)
	opts.Run.Timeout = 3 * time.Second
	start := time.Now()
	f, err := Run(context.Background(), opts)
	el := time.Since(start)
	var gu *GiveUpError
	if !errors.As(err, &gu) {
		t.Fatalf("err = %v, want *GiveUpError", err)
	}
	if el >= opts.Run.Timeout {
		t.Errorf("gave up after %v: the waits passed the %v budget", el, opts.Run.Timeout)
	}
	fl := f.Targets[0].Prompts[0].Failures
	if len(fl) == 0 || fl[0].Class != results.ErrRateLimit || fl[0].Retries != 0 || !strings.Contains(fl[0].Message, "not retried: waiting 30s for the retry would pass the request's 3s budget") {
		t.Errorf("failures = %+v, want rate_limit, not retried, saying why", fl)
	}
	t.Logf("gave up after %v and %d answers: %v", el.Round(time.Millisecond), calls.Load(), err)

	// A wait that fits the budget is waited, and the request retried.
	calls.Store(0)
	srv2 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv2.Close()
	f, err = Run(context.Background(), runOpts(endpoint(srv2.URL), 1)) // a 5 s budget
	if err != nil {
		t.Fatal(err)
	}
	if s := f.Targets[0].Prompts[0].Samples; len(s) != 1 || s[0].Retries != 1 {
		t.Errorf("samples %+v, failures %+v; want one sample after 1 retry", s, f.Targets[0].Prompts[0].Failures)
	}
}

func TestRetryWait(t *testing.T) {
	tests := []struct {
		retryAfter string
		retry      int
		lo, hi     time.Duration
	}{
		{"2", 0, 2 * time.Second, 2400 * time.Millisecond},
		{"", 0, 500 * time.Millisecond, 600 * time.Millisecond},
		{"", 2, 2 * time.Second, 2400 * time.Millisecond},
		{"3600", 0, 30 * time.Second, 30 * time.Second}, // capped
		{"junk", 1, time.Second, 1200 * time.Millisecond},
		{"Wed, 21 Oct 2015 07:28:00 GMT", 0, 0, 0},                      // a date in the past: retry now
		{"99999999999999999999", 0, 30 * time.Second, 30 * time.Second}, // overflows int64: capped
		{"9223372036854775807", 0, 30 * time.Second, 30 * time.Second},  // would overflow as a Duration
	}
	for _, tt := range tests {
		for range 20 {
			if got := retryWait(tt.retryAfter, tt.retry, 30*time.Second); got < tt.lo || got > tt.hi {
				t.Errorf("retryWait(%q, %d) = %v, want in [%v, %v]", tt.retryAfter, tt.retry, got, tt.lo, tt.hi)
			}
		}
	}
}

// TestDescribeRedactsURL: what files and output show of a base URL carries
// no credentials (user:pass@) and no query string (?api-key=…).
func TestDescribeRedactsURL(t *testing.T) {
	tests := map[string]string{
		"https://user:sk-secret@api.example.com/v1?api-key=sk-x": "https://api.example.com/v1",
		"http://127.0.0.1:11434/v1":                              "http://127.0.0.1:11434/v1",
	}
	for in, want := range tests {
		if got := Describe(config.Target{Name: "t", BaseURL: in}, nil).BaseURL; got != want {
			t.Errorf("Describe(base_url %q).BaseURL = %q, want %q", in, got, want)
		}
	}
}
