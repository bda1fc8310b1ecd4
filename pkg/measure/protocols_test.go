package measure

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/sim"
	"github.com/latgate/latgate/pkg/stats"
)

// appSSE is how the simulator's app stream (/app/chat) is read: status,
// then delta {"text": …} (reasoning {"text": …}), then done.
func appSSE() *config.SSE {
	return &config.SSE{
		Body:         map[string]any{"question": "{{prompt}}", "history": "{{messages}}", "max_tokens": "{{max_tokens}}"},
		TokenEvents:  []string{"delta"},
		TokenPointer: "/text", ReasoningEvents: []string{"reasoning"},
		StatusEvents: []string{"status"}, DoneEvents: []string{"done"}, ErrorEvents: []string{"error"},
	}
}

// apiTarget is a target of api on the simulator.
func apiTarget(api string) config.Target {
	t := config.Target{Name: api, Model: "sim", API: api, MaxTokens: 64, IncludeUsage: true, MaxErrorRate: 1, APIKeyEnv: "SIM_KEY"}
	switch api {
	case config.APISSE:
		t.SSE = appSSE()
	case config.APINDJSON:
		o := config.NDJSONPresets()["ollama"]
		t.NDJSON = &o
	}
	return t
}

// cachedPrompt has a system prompt with a cache breakpoint (Anthropic caches
// it; the simulator's cached_tokens stands in for the others' automatic
// caching).
var cachedPrompt = config.Prompt{ID: "p", Messages: []config.Message{
	{Role: "system", Content: "You are a terse assistant. Answer in one line, no preamble, no apologies.", Cache: true},
	{Role: "user", Content: "Name a fox."},
}}

// observed is one measured request as the Observer saw it.
type observed struct {
	id     string
	sent   time.Time
	sample results.Sample
}

// measureSim runs requests (after one warmup) of api's target against srv
// and returns what the observer saw of the measured ones and the results.
func measureSim(t *testing.T, srv *sim.Running, t0 config.Target, prompt config.Prompt, requests int, key string) ([]observed, *results.File) {
	t.Helper()
	var (
		mu  sync.Mutex
		obs []observed
	)
	ep := NewEndpoint(t0, srv.URLFor(t0.API), func(string) string { return key })
	f, err := Run(context.Background(), Options{
		Endpoints:  []Endpoint{ep},
		Prompts:    []config.Prompt{prompt},
		Run:        config.Run{Requests: requests, Warmup: 1, Concurrency: 1, Timeout: 10 * time.Second, Order: "interleave", Seed: 1},
		MaxRetries: -1,
		Observer: ObserverFunc(func(p Progress) {
			if p.Warmup || p.Sample == nil {
				return
			}
			mu.Lock()
			obs = append(obs, observed{p.ResponseID, p.Sent, *p.Sample})
			mu.Unlock()
		}),
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return obs, f
}

// TestAPIsOnTheWire measures every API on the simulator, which sends each
// one's real event sequence: its control events first (a role chunk;
// response.created and response.in_progress; message_start and ping; a
// status event), pings or keep-alives between tokens, 4 reasoning tokens
// (reasoning_content, reasoning summary text, thinking, thought parts, an
// app's reasoning event) and 8 answer tokens. For each API it checks
//
//   - TTFB ≪ TTFT: the control events came with the headers, 40 ms before
//     the first token, and none of them counts;
//   - TTFT and every inter-token gap against the simulator's record of when
//     it flushed each token (the truth): no stamp is before the server was
//     due to write its token, and the median stamp delay (client stamp −
//     flush) is within latgate's stated resolution (1 ms);
//   - reasoning comes first: TTFT is the first reasoning token, TTFCT the
//     first answer token, never before it was due, and later than TTFT;
//   - the usage: prompt, output (reasoning included), reasoning and cached
//     tokens (an app stream has none: its tokens are counted);
//   - an app stream's first status event is its own first_status_ms.
func TestAPIsOnTheWire(t *testing.T) {
	if testing.Short() {
		t.Skip("streams for a few seconds")
	}
	const (
		reasoning, tokens = 4, 8
		ttft, itl         = 40 * time.Millisecond, 5 * time.Millisecond
		resolution        = 1.0 // ms: latgate's stated timing resolution
	)
	for _, api := range config.APIs() {
		t.Run(api, func(t *testing.T) {
			p, err := sim.ParseSpec(fmt.Sprintf("fixed?spin=0s&tokens=%d&reasoning=%d&cached_tokens=3&keepalive=2ms", tokens, reasoning))
			if err != nil {
				t.Fatal(err)
			}
			p.TTFT.Median, p.ITL.Median = ttft, itl
			srv, err := sim.Start(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			srv.Server().Record(true)
			obs, f := measureSim(t, srv, apiTarget(api), cachedPrompt, 4, "sk-sim")
			if tg := f.Targets[0]; tg.Errors > 0 || len(obs) != 4 {
				t.Fatalf("%d samples, failures %v %+v; want 4 samples", len(obs), tg.ByClass, tg.Prompts[0].Failures)
			}
			if err := srv.Close(); err != nil { // waits for the handlers: every record saved
				t.Fatal(err)
			}
			recs := map[int]sim.Record{}
			for _, r := range srv.Server().Records() {
				recs[r.Seq] = r
			}
			var delays []float64
			reasoningSpan := 0.0 // the largest TTFCT − TTFT
			headerLead := 0.0    // the largest TTFT − TTFB
			statusLead := 0.0    // the largest TTFT − first status
			for i, o := range obs {
				s := o.sample
				seq, ok := sim.SeqFromID(o.id)
				if o.id == "" && api == config.APINDJSON {
					// Ollama's lines carry no id: one request at a time,
					// the record sent nearest the request is its own.
					seq, ok = nearest(recs, o.sent), true
				}
				r, found := recs[seq]
				if !ok || !found {
					t.Fatalf("request %d: no server record for response id %q", i, o.id)
				}
				if len(r.Tokens) != s.Chunks || s.Chunks != reasoning+tokens || len(s.ITL) != s.Chunks-1 {
					t.Fatalf("request %d: server flushed %d tokens, client counted %d chunks and %d gaps; want %d", i, len(r.Tokens), s.Chunks, len(s.ITL), reasoning+tokens)
				}
				// TTFB ≪ TTFT: the control events are no tokens (the count
				// above says so too). A client descheduled at the headers
				// stamps them late, so one request in four must show it.
				if s.TTFB > s.TTFT {
					t.Errorf("request %d: TTFB %.3f ms after TTFT %.3f ms", i, s.TTFB, s.TTFT)
				}
				headerLead = max(headerLead, s.TTFT-s.TTFB)
				// Every token's stamp against its flush.
				at := o.sent.Add(fromMS(s.TTFT))
				for k, flushed := range r.Tokens {
					if k > 0 {
						at = at.Add(fromMS(s.ITL[k-1]))
					}
					// The server writes a token no earlier than its deadline:
					// a stamp before it would be a token counted early.
					if due := r.Start.Add(r.Plan.Tokens[k]); at.Before(due) {
						t.Errorf("request %d token %d: stamped %.3f ms before the server was due to write it", i, k, ms(due.Sub(at)))
					}
					delays = append(delays, ms(at.Sub(flushed)))
				}
				// Reasoning first: TTFT is the first reasoning token (the
				// stamps above count it), TTFCT the first answer token: never
				// before the server was due to write it.
				if due := ms(r.Start.Add(r.Plan.Tokens[reasoning]).Sub(o.sent)); !s.HasContent || s.TTFCT < due || s.TTFCT < s.TTFT {
					t.Errorf("request %d: TTFCT %.3f ms (has content %v, TTFT %.3f ms); the first answer token was due at %.3f ms", i, s.TTFCT, s.HasContent, s.TTFT, due)
				}
				// A client descheduled across the reasoning tokens stamps them
				// with the first answer token: TTFCT = TTFT can happen under
				// load, so one request in four must show the gap.
				reasoningSpan = max(reasoningSpan, s.TTFCT-s.TTFT)
				// Usage.
				want := results.Sample{OutputTokens: reasoning + tokens, TokenSource: "usage", ReasoningTokens: reasoning, CachedTokens: 3}
				got := results.Sample{OutputTokens: s.OutputTokens, TokenSource: s.TokenSource, ReasoningTokens: s.ReasoningTokens, CachedTokens: s.CachedTokens}
				switch api {
				case config.APISSE: // an app stream reports no usage: its token events are counted
					want = results.Sample{OutputTokens: reasoning + tokens, TokenSource: "chunks"}
				case config.APINDJSON: // Ollama counts prompt and output tokens, neither cached nor reasoning ones
					want = results.Sample{OutputTokens: reasoning + tokens, TokenSource: "usage"}
				case config.APIAnthropic: // the breakpoint: the warmup wrote the cache, measured requests read it
					want.CachedTokens = (len(cachedPrompt.Messages[0].Content) + 3) / 4 // the simulator's 4 bytes a token
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("request %d: usage (-want +got):\n%s", i, diff)
				}
				if api != config.APISSE && s.PromptTokens < want.CachedTokens+1 {
					t.Errorf("request %d: prompt tokens %d, want more than the %d cached", i, s.PromptTokens, want.CachedTokens)
				}
				if api == config.APISSE && !(s.FirstStatus >= s.TTFB && s.FirstStatus <= s.TTFT) {
					t.Errorf("request %d: first status %.3f ms, want between TTFB %.3f ms and TTFT %.3f ms", i, s.FirstStatus, s.TTFB, s.TTFT)
				}
				statusLead = max(statusLead, s.TTFT-s.FirstStatus)
				if api != config.APISSE && s.FirstStatus != 0 {
					t.Errorf("request %d: first status %.3f ms on an API without status events", i, s.FirstStatus)
				}
			}
			if headerLead < ms(ttft)/2 {
				t.Errorf("TTFT − TTFB at most %.3f ms over %d requests, with the control events %v before the first token: they must not count as tokens", headerLead, len(obs), ttft)
			}
			if api == config.APISSE && statusLead < ms(ttft)/2 {
				t.Errorf("TTFT − first status at most %.3f ms over %d requests; the status event comes %v before the first token", statusLead, len(obs), ttft)
			}
			if reasoningSpan < float64(reasoning)*ms(itl)/2 {
				t.Errorf("TTFCT − TTFT at most %.3f ms over %d requests; the %d reasoning tokens span %v: reasoning must count for TTFT, not TTFCT", reasoningSpan, len(obs), reasoning, time.Duration(reasoning)*itl)
			}
			slices.Sort(delays)
			med := stats.Quantile(delays, 0.5)
			t.Logf("%s: %d tokens, stamp delay p50 %.3f ms, max %.3f ms", api, len(delays), med, delays[len(delays)-1])
			if med > resolution {
				t.Errorf("median stamp delay %.3f ms is over latgate's %v ms resolution", med, resolution)
			}
		})
	}
}

func fromMS(x float64) time.Duration { return time.Duration(x * float64(time.Millisecond)) }

// TestAPICacheWrite: on the Anthropic API, the first request with a cache
// breakpoint writes the cache (cache_creation_input_tokens), the next one
// reads it (cache_read_input_tokens).
func TestAPICacheWrite(t *testing.T) {
	p, err := sim.ParseSpec("fast")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sim.Start(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ep := NewEndpoint(apiTarget(config.APIAnthropic), srv.URLFor(config.APIAnthropic), func(string) string { return "k" })
	opts := Options{Endpoints: []Endpoint{ep}, Prompts: []config.Prompt{cachedPrompt},
		Run: config.Run{Requests: 2, Concurrency: 1, Timeout: 10 * time.Second, Order: "interleave", Seed: 1}}
	f, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	ss := f.Targets[0].Prompts[0].Samples
	if len(ss) != 2 {
		t.Fatalf("%d samples, failures %+v", len(ss), f.Targets[0].Prompts[0].Failures)
	}
	type cache struct{ Created, Read, Prompt int }
	got := []cache{{ss[0].CacheCreationTokens, ss[0].CachedTokens, ss[0].PromptTokens}, {ss[1].CacheCreationTokens, ss[1].CachedTokens, ss[1].PromptTokens}}
	if got[0].Created == 0 || got[0].Read != 0 || got[1].Created != 0 || got[1].Read != got[0].Created || got[0].Prompt != got[1].Prompt || got[0].Prompt <= got[0].Created {
		t.Errorf("cache (created, read, prompt) = %+v; want the first to write the prefix, the second to read it, the prompt counting both", got)
	}
}

// TestAPIToolCalls: a prompt with tools gets a streamed tool call on chat,
// responses and anthropic (the simulator calls the first tool): the call's
// start (its name) is the first token, its argument deltas the rest, and
// there is no answer token.
func TestAPIToolCalls(t *testing.T) {
	p, err := sim.ParseSpec("fast?tokens=6")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sim.Start(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	prompt := config.Prompt{ID: "tool", ToolChoice: "required",
		Messages: []config.Message{{Role: "user", Content: "What is the weather in Paris?"}},
		Tools: []config.Tool{{Name: "get_weather", Description: "Weather in a city",
			Parameters: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}}}}}
	finish := map[string]string{config.APIChat: "tool_calls", config.APIResponses: "completed", config.APIAnthropic: "tool_use"}
	for _, api := range []string{config.APIChat, config.APIResponses, config.APIAnthropic} {
		t.Run(api, func(t *testing.T) {
			_, f := measureSim(t, srv, apiTarget(api), prompt, 2, "k")
			pr := f.Targets[0].Prompts[0]
			if len(pr.Samples) != 2 {
				t.Fatalf("%d samples, failures %+v", len(pr.Samples), pr.Failures)
			}
			for _, s := range pr.Samples {
				if s.Chunks != 6 || s.HasContent || s.FinishReason != finish[api] || s.OutputTokens != 6 {
					t.Errorf("sample: %d chunks, has content %v, finish %q, %d tokens; want 6 tool-call chunks, no content, finish %q, 6 tokens",
						s.Chunks, s.HasContent, s.FinishReason, s.OutputTokens, finish[api])
				}
			}
		})
	}
}

// nearest returns the seq of the record that started nearest to t.
func nearest(recs map[int]sim.Record, t time.Time) int {
	best, d := 0, time.Duration(math.MaxInt64)
	for seq, r := range recs {
		if x := r.Start.Sub(t).Abs(); x < d {
			best, d = seq, x
		}
	}
	return best
}

// TestAPIErrorClasses: every failure class, in each API's own shapes (the
// simulator's faults answer in them: Anthropic's {"type":"error",…} bodies
// and error events, its 529 overloaded_error, Gemini's {"error":{"status":
// …}}, Responses' error and response.failed events, an app's error event).
func TestAPIErrorClasses(t *testing.T) {
	if testing.Short() {
		t.Skip("a request per fault and API")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close() // nothing listens there now
	tests := []struct {
		fault, class string
		status       func(api string) int
		msg          func(api string) string
	}{
		{fault: sim.Fault429, class: results.ErrRateLimit, status: fixed(429), msg: byAPI("Rate limit reached", config.APIAnthropic, "rate_limit_error: Rate limit reached", config.APIGemini, "RESOURCE_EXHAUSTED: Rate limit reached")},
		{fault: sim.Fault500, class: results.ErrServer, status: fixed(500), msg: byAPI("had an error", config.APIAnthropic, "api_error: The server had an error", config.APIGemini, "INTERNAL: The server had an error")},
		{fault: sim.FaultOverloaded, class: results.ErrServer, status: byStatus(503, config.APIAnthropic, 529), msg: byAPI("overloaded", config.APIAnthropic, "overloaded_error: The model is overloaded", config.APIGemini, "UNAVAILABLE: The model is overloaded")},
		{fault: sim.Fault401, class: results.ErrAuth, status: fixed(401), msg: byAPI("Incorrect API key", config.APIAnthropic, "authentication_error: Incorrect API key")},
		{fault: sim.Fault403, class: results.ErrAuth, status: fixed(403), msg: byAPI("not allowed")},
		{fault: sim.FaultCut, class: results.ErrTruncated, status: fixed(200), msg: byAPI("stream cut after 2 chunks")},
		{fault: sim.FaultNoDone, class: results.ErrTruncated, status: fixed(200), msg: byAPI("stream ended without a finish_reason or [DONE] after 2 chunks",
			config.APIResponses, "without a response status or response.completed", config.APIAnthropic, "without a stop_reason or message_stop",
			config.APIGemini, "without a finishReason after 2 chunks", config.APISSE, "without a done event after 2 chunks", config.APINDJSON, "without a done line after 2 chunks")},
		{fault: sim.FaultStall, class: results.ErrTimeout, status: fixed(200), msg: byAPI("timed out mid-stream after 2 chunks")},
		{fault: sim.FaultMalformed, class: results.ErrMalformed, status: fixed(200), msg: byAPI("malformed frame after 2 chunks: {not json")},
		{fault: sim.FaultErrorFrame, class: results.ErrStreamErr, status: fixed(200), msg: byAPI("server_error: simulated mid-stream failure",
			config.APIAnthropic, "overloaded_error: Overloaded", config.APIGemini, "UNAVAILABLE: The model is overloaded", config.APISSE, "simulated mid-stream failure", config.APINDJSON, "simulated mid-stream failure")},
		{fault: sim.FaultErrorString, class: results.ErrStreamErr, status: fixed(200), msg: byAPI("simulated mid-stream failure",
			config.APIAnthropic, "api_error: Internal server error", config.APIGemini, "INTERNAL: An internal error", config.APIResponses, "server_error: simulated mid-stream failure")},
		{fault: sim.FaultZero, class: results.ErrEmpty, status: fixed(200), msg: byAPI("answer had no tokens")},
		{fault: "404", class: results.ErrHTTP, status: fixed(404), msg: byAPI("unknown URL")},
		{fault: "connect", class: results.ErrConnect, status: fixed(0), msg: byAPI("refused")},
	}
	for _, api := range config.APIs() {
		for _, tt := range tests {
			t.Run(api+"/"+tt.fault, func(t *testing.T) {
				spec := "fast?tokens=4&fault_after=2&fault=" + tt.fault
				if tt.fault == "404" || tt.fault == "connect" {
					spec = "fast"
				}
				p, err := sim.ParseSpec(spec)
				if err != nil {
					t.Fatal(err)
				}
				srv, err := sim.Start(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				defer srv.Close()
				url := srv.URLFor(api)
				switch tt.fault {
				case "404":
					url += "/nowhere"
				case "connect":
					url = strings.Replace(url, strings.TrimPrefix(strings.Split(srv.URL(), "/v1")[0], "http://"), closed, 1)
				}
				tg := apiTarget(api)
				ep := NewEndpoint(tg, url, func(string) string { return "sk-sim-SENTINEL-key" })
				opts := Options{Endpoints: []Endpoint{ep}, Prompts: []config.Prompt{cachedPrompt}, MaxRetries: -1,
					Run: config.Run{Requests: 1, Concurrency: 1, Timeout: 300 * time.Millisecond, Order: "interleave", Seed: 1}}
				f, _ := Run(context.Background(), opts)
				pr := f.Targets[0].Prompts[0]
				if len(pr.Failures) != 1 {
					t.Fatalf("%d samples, failures %+v; want one failure", len(pr.Samples), pr.Failures)
				}
				fl := pr.Failures[0]
				if fl.Class != tt.class || fl.Status != tt.status(api) || !strings.Contains(fl.Message, tt.msg(api)) {
					t.Errorf("failure {%s %d %q}, want {%s %d …%q…}", fl.Class, fl.Status, fl.Message, tt.class, tt.status(api), tt.msg(api))
				}
				if strings.Contains(fl.Message, "SENTINEL") {
					t.Errorf("failure message leaks the key: %q", fl.Message)
				}
			})
		}
	}
}

func fixed(status int) func(string) int { return func(string) int { return status } }

// byStatus is def, or the status after the API that names it.
func byStatus(def int, apiStatus ...any) func(string) int {
	return func(api string) int {
		for i := 0; i+1 < len(apiStatus); i += 2 {
			if apiStatus[i].(string) == api {
				return apiStatus[i+1].(int)
			}
		}
		return def
	}
}

// byAPI is def, or the message after the API that names one.
func byAPI(def string, apiMsg ...string) func(string) string {
	return func(api string) string {
		for i := 0; i+1 < len(apiMsg); i += 2 {
			if apiMsg[i] == api {
				return apiMsg[i+1]
			}
		}
		return def
	}
}

// TestAPIKeysRedacted: every API's key, sent in its own header
// (Authorization, x-api-key, x-goog-api-key) and echoed back by the
// endpoint, is redacted from what latgate keeps; so is an app's
// headers_env value.
func TestAPIKeysRedacted(t *testing.T) {
	p, err := sim.ParseSpec("fast?fault=echo_key")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sim.Start(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	const key = "sk-SENTINEL-0123456789abcdef"
	for _, api := range config.APIs() {
		t.Run(api, func(t *testing.T) {
			ep := NewEndpoint(apiTarget(api), srv.URLFor(api), func(string) string { return key })
			f, err := Run(context.Background(), Options{Endpoints: []Endpoint{ep}, Prompts: []config.Prompt{cachedPrompt},
				Run: config.Run{Requests: 1, Concurrency: 1, Timeout: 5 * time.Second}})
			var ae *AuthError
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v, want *AuthError", err)
			}
			fl := f.Targets[0].Prompts[0].Failures
			if len(fl) != 1 || strings.Contains(fl[0].Message, "SENTINEL") || strings.Contains(err.Error(), "SENTINEL") || !strings.Contains(fl[0].Message, "[REDACTED]") {
				t.Errorf("failures %+v, error %v: want the echoed key redacted", fl, err)
			}
		})
	}
	t.Run("sse headers_env", func(t *testing.T) {
		tg := apiTarget(config.APISSE)
		tg.APIKeyEnv = ""
		tg.SSE.HeadersEnv = map[string]string{"Authorization": "APP_SESSION"}
		ep := NewEndpoint(tg, srv.URLFor(config.APISSE), func(string) string { return "Bearer " + key })
		f, _ := Run(context.Background(), Options{Endpoints: []Endpoint{ep}, Prompts: []config.Prompt{cachedPrompt},
			Run: config.Run{Requests: 1, Concurrency: 1, Timeout: 5 * time.Second}})
		fl := f.Targets[0].Prompts[0].Failures
		if len(fl) != 1 || strings.Contains(fl[0].Message, "SENTINEL") || !strings.Contains(fl[0].Message, "[REDACTED]") {
			t.Errorf("failures %+v: want the echoed header redacted", fl)
		}
	})
}
