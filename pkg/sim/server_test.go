package sim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"
)

// startSim serves p on loopback for the test and returns it with a client
// of its own, whose idle connections are closed at cleanup.
func startSim(t *testing.T, p Profile) (*Running, *http.Client) {
	t.Helper()
	r, err := Start(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		tr.CloseIdleConnections()
	})
	return r, &http.Client{Transport: tr}
}

// request is a chat request body.
type request struct {
	Model               string           `json:"model"`
	Messages            []map[string]any `json:"messages"`
	Stream              bool             `json:"stream"`
	MaxTokens           int              `json:"max_tokens,omitempty"`
	MaxCompletionTokens int              `json:"max_completion_tokens,omitempty"`
	StreamOptions       map[string]bool  `json:"stream_options,omitempty"`
}

func streamReq(usage bool) request {
	r := request{Model: "m", Messages: []map[string]any{{"role": "user", "content": "Say something short."}}, Stream: true}
	if usage {
		r.StreamOptions = map[string]bool{"include_usage": true}
	}
	return r
}

func post(ctx context.Context, t *testing.T, c *http.Client, base string, body any, header ...string) *http.Response {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/chat/completions", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// frame is one SSE line: a comment (": …") or a data payload.
type frame struct {
	at      time.Time
	comment bool
	data    string
}

// readFrames reads SSE lines until the body ends; err is nil at a clean end.
func readFrames(body io.Reader) ([]frame, error) {
	br := bufio.NewReader(body)
	var fs []frame
	for {
		line, err := br.ReadString('\n')
		at := time.Now()
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, ":"):
			fs = append(fs, frame{at: at, comment: true, data: line})
		case strings.HasPrefix(line, "data: "):
			fs = append(fs, frame{at: at, data: strings.TrimPrefix(line, "data: ")})
		case line != "":
			fs = append(fs, frame{at: at, data: "?" + line})
		}
		if err == io.EOF {
			return fs, nil
		}
		if err != nil {
			return fs, err
		}
	}
}

// chunk is a decoded stream chunk.
type chunk struct {
	ID                string `json:"id"`
	Object            string `json:"object"`
	Model             string `json:"model"`
	SystemFingerprint string `json:"system_fingerprint"`
	Choices           []struct {
		Index        int               `json:"index"`
		Delta        map[string]string `json:"delta"`
		FinishReason *string           `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		TotalTokens         int `json:"total_tokens"`
		PromptTokensDetails struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
		CompletionTokensDetails struct {
			ReasoningTokens int `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// kind names a frame: ping, role, think, text, finish:REASON, usage, done,
// error, bad (not JSON).
func kind(f frame) string {
	if f.comment {
		return "ping"
	}
	if f.data == "[DONE]" {
		return "done"
	}
	var c chunk
	if err := json.Unmarshal([]byte(f.data), &c); err != nil {
		return "bad"
	}
	switch {
	case c.Error != nil:
		return "error"
	case len(c.Choices) == 0 && c.Usage != nil:
		return "usage"
	case len(c.Choices) != 1:
		return "?"
	}
	d := c.Choices[0].Delta
	switch {
	case c.Choices[0].FinishReason != nil && d["content"] == "":
		return "finish:" + *c.Choices[0].FinishReason
	case d["reasoning"] != "" || d["reasoning_content"] != "":
		return "think"
	case d["content"] != "":
		return "text"
	case d["role"] == "assistant":
		return "role"
	}
	return "?"
}

func kinds(fs []frame) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = kind(f)
	}
	return out
}

// shape builds an expected list of kinds: a kind, optionally followed by
// its count.
func shape(parts ...any) []string {
	var out []string
	for i := 0; i < len(parts); i++ {
		s := parts[i].(string)
		n := 1
		if i+1 < len(parts) {
			if k, ok := parts[i+1].(int); ok {
				n = k
				i++
			}
		}
		for range n {
			out = append(out, s)
		}
	}
	return out
}

func decode(t *testing.T, f frame) chunk {
	t.Helper()
	var c chunk
	if err := json.Unmarshal([]byte(f.data), &c); err != nil {
		t.Fatalf("frame %q: %v", f.data, err)
	}
	return c
}

// quick is a profile without delays.
func quick(tokens int) Profile {
	return Profile{Tokens: tokens, RoleChunk: true, Usage: true}
}

func TestStreamShape(t *testing.T) {
	with := func(p Profile, f func(*Profile)) Profile { f(&p); return p }
	tests := []struct {
		name  string
		p     Profile
		req   request
		want  []string
		usage [3]int // completion, reasoning, cached tokens when the usage chunk is expected
	}{
		{"usage", quick(5), streamReq(true),
			shape("role", "text", 5, "finish:stop", "usage", "done"), [3]int{5, 0, 0}},
		{"no include_usage", quick(5), streamReq(false),
			shape("role", "text", 5, "finish:stop", "done"), [3]int{}},
		{"max_tokens", quick(5), withReq(streamReq(true), func(r *request) { r.MaxTokens = 3 }),
			shape("role", "text", 3, "finish:length", "usage", "done"), [3]int{3, 0, 0}},
		{"max_completion_tokens wins", quick(5), withReq(streamReq(false), func(r *request) { r.MaxTokens, r.MaxCompletionTokens = 10, 2 }),
			shape("role", "text", 2, "finish:length", "done"), [3]int{}},
		{"max_tokens not reached", quick(5), withReq(streamReq(false), func(r *request) { r.MaxTokens = 5 }),
			shape("role", "text", 5, "finish:stop", "done"), [3]int{}},
		{"usage off", with(quick(2), func(p *Profile) { p.Usage = false }), streamReq(true),
			shape("role", "text", 2, "finish:stop", "done"), [3]int{}},
		{"no role chunk", with(quick(2), func(p *Profile) { p.RoleChunk = false }), streamReq(false),
			shape("text", 2, "finish:stop", "done"), [3]int{}},
		{"reasoning", with(quick(2), func(p *Profile) { p.Reasoning, p.ReasoningField, p.CachedTokens = 3, ReasoningPlain, 2 }), streamReq(true),
			shape("role", "think", 3, "text", 2, "finish:stop", "usage", "done"), [3]int{5, 3, 2}},
		{"reasoning capped", with(quick(2), func(p *Profile) { p.Reasoning = 3 }), withReq(streamReq(true), func(r *request) { r.MaxTokens = 4 }),
			shape("role", "think", 3, "text", 1, "finish:length", "usage", "done"), [3]int{4, 3, 0}},
		{"ollama", with(quick(3), func(p *Profile) { p.Style, p.RoleChunk = StyleOllama, false }), streamReq(true),
			shape("text", 3, "finish:stop", "usage", "done"), [3]int{3, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, c := startSim(t, tt.p)
			resp := post(t.Context(), t, c, r.URL(), tt.req)
			if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
				t.Fatalf("status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			fs, err := readFrames(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, kinds(fs)); diff != "" {
				t.Fatalf("frames (-want +got):\n%s", diff)
			}
			var text strings.Builder
			for _, f := range fs[:len(fs)-1] {
				c := decode(t, f)
				if c.ID != "chatcmpl-sim-1" || c.Object != "chat.completion.chunk" || c.Model != "m" || c.SystemFingerprint == "" {
					t.Errorf("chunk header: id %q object %q model %q fingerprint %q", c.ID, c.Object, c.Model, c.SystemFingerprint)
				}
				if len(c.Choices) == 1 {
					text.WriteString(c.Choices[0].Delta["content"])
					if _, hasRole := c.Choices[0].Delta["role"]; hasRole != (tt.p.Style == StyleOllama || kind(f) == "role") {
						t.Errorf("%s chunk: role present %v in style %q", kind(f), hasRole, tt.p.Style)
					}
				}
				if c.Usage != nil {
					u := c.Usage
					if got := [3]int{u.CompletionTokens, u.CompletionTokensDetails.ReasoningTokens, u.PromptTokensDetails.CachedTokens}; got != tt.usage {
						t.Errorf("usage completion, reasoning, cached tokens = %v, want %v", got, tt.usage)
					}
					if u.PromptTokens < 1 || u.TotalTokens != u.PromptTokens+u.CompletionTokens {
						t.Errorf("usage prompt %d total %d completion %d", u.PromptTokens, u.TotalTokens, u.CompletionTokens)
					}
				}
			}
			if n := strings.Count(strings.Join(tt.want, " "), "text"); len(strings.Fields(text.String())) != n {
				t.Errorf("content %q has %d words, want %d", text.String(), len(strings.Fields(text.String())), n)
			}
		})
	}
}

func withReq(r request, f func(*request)) request { f(&r); return r }

// TestGoOpenAI reads the stream with go-openai, the client latgate uses.
func TestGoOpenAI(t *testing.T) {
	for _, style := range []string{StyleOpenAI, StyleOllama} {
		t.Run(style, func(t *testing.T) {
			p := quick(4)
			p.Style, p.Reasoning = style, 2
			r, c := startSim(t, p)
			cfg := openai.DefaultConfig("key")
			cfg.BaseURL, cfg.HTTPClient = r.URL(), c
			s, err := openai.NewClientWithConfig(cfg).CreateChatCompletionStream(t.Context(), openai.ChatCompletionRequest{
				Model:         "m",
				Messages:      []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}},
				StreamOptions: &openai.StreamOptions{IncludeUsage: true},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var content, reasoning strings.Builder
			var finish openai.FinishReason
			var usage *openai.Usage
			for {
				resp, err := s.Recv()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				for _, ch := range resp.Choices {
					content.WriteString(ch.Delta.Content)
					reasoning.WriteString(ch.Delta.ReasoningContent)
					if ch.FinishReason != "" {
						finish = ch.FinishReason
					}
				}
				if resp.Usage != nil {
					usage = resp.Usage
				}
			}
			if got := len(strings.Fields(content.String())); got != 4 {
				t.Errorf("content %q: %d words, want 4", content.String(), got)
			}
			// go-openai reads reasoning_content only, the openai style's default field.
			if got, want := len(strings.Fields(reasoning.String())), map[string]int{StyleOpenAI: 2, StyleOllama: 0}[style]; got != want {
				t.Errorf("reasoning %q: %d words, want %d", reasoning.String(), got, want)
			}
			if finish != openai.FinishReasonStop || usage == nil || usage.CompletionTokens != 6 {
				t.Errorf("finish %q, usage %+v; want stop and 6 completion tokens", finish, usage)
			}
		})
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// streamTimes sends one stream request and returns the arrival offsets of
// the role chunk (or zero) and of each token chunk from the send.
func streamTimes(t *testing.T, c *http.Client, base string, maxTokens int) (ttfb time.Duration, tokens []time.Duration) {
	t.Helper()
	req := streamReq(false)
	req.MaxTokens = maxTokens
	sent := time.Now()
	resp := post(t.Context(), t, c, base, req)
	fs, err := readFrames(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		switch kind(f) {
		case "role":
			ttfb = f.at.Sub(sent)
		case "text", "think":
			tokens = append(tokens, f.at.Sub(sent))
		}
	}
	if len(tokens) != maxTokens {
		t.Fatalf("%d tokens, want %d", len(tokens), maxTokens)
	}
	return ttfb, tokens
}

// TestFixedTiming checks the schedule seen by a client on the fixed preset
// (TTFT 50ms, ITL 5ms), scaled by slowdown. No token may come early. The
// tolerances, generous for a noisy shared machine, are: median TTFT of 3
// requests within [TTFT, TTFT+15ms], median ITL within ±2ms, median role
// chunk (TTFB) before half the TTFT. A CPU-starved process sends late tokens
// in a burst, so up to 3 attempts are made, each watched by a control
// goroutine timing 2ms sleeps; when every attempt misses and the control saw
// the machine itself miss (90th percentile of its sleeps over 2ms late), the
// test is skipped as overloaded rather than failed.
func TestFixedTiming(t *testing.T) {
	for _, slowdown := range []float64{1, 2} {
		t.Run("slowdown="+strconv.FormatFloat(slowdown, 'g', -1, 64), func(t *testing.T) {
			p, err := Preset("fixed")
			if err != nil {
				t.Fatal(err)
			}
			p.Slowdown = slowdown
			r, c := startSim(t, p)
			ttft := time.Duration(float64(p.TTFT.Median) * slowdown)
			itl := time.Duration(float64(p.ITL.Median) * slowdown)
			var problems []string
			overloaded := true
			for attempt := 1; attempt <= 3; attempt++ {
				stop := make(chan struct{})
				control := make(chan time.Duration)
				go func() { control <- sleepLateness(stop) }()
				problems = timingAttempt(t, c, r.URL(), ttft, itl)
				close(stop)
				late := <-control
				if problems == nil {
					return
				}
				overloaded = overloaded && late > 2*time.Millisecond
				t.Logf("attempt %d (control sleeps p90 %v late): %s", attempt, late, strings.Join(problems, "; "))
			}
			if overloaded {
				t.Skipf("machine overloaded: %s", strings.Join(problems, "; "))
			}
			t.Error(strings.Join(problems, "\n"))
		})
	}
}

// timingAttempt measures 3 requests of 12 tokens and returns what is out of
// tolerance; it fails the test at once on a token earlier than its schedule.
func timingAttempt(t *testing.T, c *http.Client, base string, ttft, itl time.Duration) []string {
	t.Helper()
	var ttfbs, ttfts, itls []time.Duration
	for range 3 {
		ttfb, tokens := streamTimes(t, c, base, 12)
		ttfbs, ttfts = append(ttfbs, ttfb), append(ttfts, tokens[0])
		for k := 1; k < len(tokens); k++ {
			itls = append(itls, tokens[k]-tokens[k-1])
		}
		if due := ttft + time.Duration(len(tokens)-1)*itl; tokens[len(tokens)-1] < due {
			t.Fatalf("last token after %v, before its schedule %v", tokens[len(tokens)-1], due)
		}
	}
	if slices.Min(ttfts) < ttft {
		t.Fatalf("TTFTs %v: one is under the schedule's %v", ttfts, ttft)
	}
	var problems []string
	if got := median(ttfts); got > ttft+15*time.Millisecond {
		problems = append(problems, fmt.Sprintf("median TTFT %v, want within [%v, %v+15ms] (all: %v)", got, ttft, ttft, ttfts))
	}
	if got := median(itls); (got - itl).Abs() > 2*time.Millisecond {
		problems = append(problems, fmt.Sprintf("median ITL %v, want %v ± 2ms", got, itl))
	}
	if got := median(ttfbs); got <= 0 || got > ttft/2 {
		problems = append(problems, fmt.Sprintf("median TTFB %v, want in (0, %v]", got, ttft/2))
	}
	return problems
}

// sleepLateness sleeps 2ms at a time until stop and returns the 90th
// percentile of how late the sleeps woke.
func sleepLateness(stop <-chan struct{}) time.Duration {
	late := []time.Duration{0}
	for {
		select {
		case <-stop:
			slices.Sort(late)
			return late[len(late)*9/10]
		default:
		}
		due := time.Now().Add(2 * time.Millisecond)
		time.Sleep(2 * time.Millisecond)
		late = append(late, time.Since(due))
	}
}

func TestFaults(t *testing.T) {
	base := quick(4)
	base.FaultAfter = 2
	base.RetryAfter = 1500 * time.Millisecond
	tests := []struct {
		fault  string
		status int
		want   []string // frames of a 200 stream
		endErr bool     // the body ends with a read error
	}{
		{Fault429, http.StatusTooManyRequests, nil, false},
		{Fault500, http.StatusInternalServerError, nil, false},
		{Fault401, http.StatusUnauthorized, nil, false},
		{Fault403, http.StatusForbidden, nil, false},
		{FaultEchoKey, http.StatusUnauthorized, nil, false},
		{FaultCut, http.StatusOK, shape("role", "text", 2), true},
		{FaultNoDone, http.StatusOK, shape("role", "text", 2), false},
		{FaultMalformed, http.StatusOK, shape("role", "text", 2, "bad", "text", 2, "finish:stop", "usage", "done"), false},
		{FaultErrorFrame, http.StatusOK, shape("role", "text", 2, "error", "done"), false},
		{FaultErrorString, http.StatusOK, shape("role", "text", 2, "error"), false},
		{FaultSplit, http.StatusOK, shape("role", "text", 4, "finish:stop", "usage", "done"), false},
		{FaultBig, http.StatusOK, shape("role", "text", 4, "finish:stop", "usage", "done"), false},
		{FaultZero, http.StatusOK, shape("role", "finish:stop", "usage", "done"), false},
	}
	for _, tt := range tests {
		t.Run(tt.fault, func(t *testing.T) {
			p := base
			p.Fault = tt.fault
			r, c := startSim(t, p)
			resp := post(t.Context(), t, c, r.URL(), streamReq(true), "Authorization", "Bearer sk-secret-123")
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.status)
			}
			if tt.status != http.StatusOK {
				checkErrorBody(t, resp)
				return
			}
			fs, err := readFrames(resp.Body)
			if (err != nil) != tt.endErr {
				t.Errorf("end of body: error %v, want error: %v", err, tt.endErr)
			}
			if diff := cmp.Diff(tt.want, kinds(fs)); diff != "" {
				t.Errorf("frames (-want +got):\n%s", diff)
			}
			for _, f := range fs {
				if kind(f) != "error" {
					continue
				}
				var e struct{ Error any }
				if err := json.Unmarshal([]byte(f.data), &e); err != nil {
					t.Fatal(err)
				}
				_, isObject := e.Error.(map[string]any)
				_, isString := e.Error.(string)
				if tt.fault == FaultErrorFrame && !isObject || tt.fault == FaultErrorString && !isString {
					t.Errorf("%s: error payload %s", tt.fault, f.data)
				}
			}
			if tt.fault == FaultBig {
				longest := 0
				for _, f := range fs {
					longest = max(longest, len(f.data))
				}
				if longest < 200*1024 {
					t.Errorf("longest frame %d bytes, want ≥ 200 KB", longest)
				}
			}
			if tt.fault == FaultZero {
				if u := decode(t, fs[2]).Usage; u.CompletionTokens != 0 {
					t.Errorf("zero: completion_tokens %d", u.CompletionTokens)
				}
			}
		})
	}
}

// checkErrorBody checks an OpenAI-style error body and the headers of faults.
func checkErrorBody(t *testing.T, resp *http.Response) {
	t.Helper()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var e struct {
		Error struct {
			Message, Type string
		}
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Error.Message == "" || e.Error.Type == "" {
		t.Errorf("error body %s: %v", body, err)
	}
	if got := resp.Header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type %q", got)
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		if got := resp.Header.Get("Retry-After"); got != "2" {
			t.Errorf("Retry-After %q, want 2 (1.5s rounded up)", got)
		}
	case http.StatusUnauthorized:
		if echoed := strings.Contains(e.Error.Message, "Bearer sk-secret-123"); echoed != strings.Contains(string(body), "Incorrect API key provided: ") {
			t.Errorf("echo of the key: %s", body)
		}
	}
}

// TestSplit checks through a flush-recording writer that each data line goes
// out in two flushed writes.
func TestSplit(t *testing.T) {
	p := quick(2)
	p.Fault = FaultSplit
	w := &flushRecorder{header: http.Header{}}
	body := `{"model":"m","stream":true,"messages":[]}`
	req, err := http.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	New(p).ServeHTTP(w, req)
	w.Flush() // anything written after the last flush
	var lines int
	for _, seg := range w.segments {
		if seg == "" {
			continue // the headers-only flush
		}
		if strings.HasSuffix(seg, "\n\n") == strings.HasPrefix(seg, "data: ") {
			t.Errorf("segment %q is a whole line or no line start", seg)
		}
		if strings.HasPrefix(seg, "data: ") {
			lines++
		}
	}
	// role, 2 tokens, finish, [DONE]: 5 lines in 10 segments.
	if lines != 5 || len(w.segments) != 10 {
		t.Errorf("%d lines in %d segments %q, want 5 in 10", lines, len(w.segments), w.segments)
	}
}

type flushRecorder struct {
	header   http.Header
	cur      strings.Builder
	segments []string
}

func (f *flushRecorder) Header() http.Header         { return f.header }
func (f *flushRecorder) WriteHeader(int)             {}
func (f *flushRecorder) Write(b []byte) (int, error) { return f.cur.Write(b) }
func (f *flushRecorder) Flush() {
	if f.cur.Len() > 0 {
		f.segments = append(f.segments, f.cur.String())
		f.cur.Reset()
	}
}

func TestFaultStall(t *testing.T) {
	p := quick(4)
	p.Fault, p.FaultAfter = FaultStall, 2
	r, c := startSim(t, p)
	start := time.Now() // before the deadline starts counting
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	resp := post(ctx, t, c, r.URL(), streamReq(false))
	fs, err := readFrames(resp.Body)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) < 300*time.Millisecond {
		t.Errorf("stalled body ended after %v with %v, want the client's deadline", time.Since(start), err)
	}
	if diff := cmp.Diff(shape("role", "text", 2), kinds(fs)); diff != "" {
		t.Errorf("frames (-want +got):\n%s", diff)
	}
}

func TestFaultEvery(t *testing.T) {
	p := quick(1)
	p.Fault, p.FaultEvery = Fault500, 2
	r, c := startSim(t, p)
	var got []int
	for range 5 {
		resp := post(t.Context(), t, c, r.URL(), streamReq(false))
		_, _ = io.Copy(io.Discard, resp.Body)
		got = append(got, resp.StatusCode)
	}
	if diff := cmp.Diff([]int{200, 500, 200, 500, 200}, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
}

func TestRequireKey(t *testing.T) {
	p := quick(1)
	p.RequireKey = "sk-good"
	r, c := startSim(t, p)
	for _, tt := range []struct {
		header []string
		status int
	}{
		{nil, http.StatusUnauthorized},
		{[]string{"Authorization", "Bearer sk-bad"}, http.StatusUnauthorized},
		{[]string{"Authorization", "sk-good"}, http.StatusUnauthorized},
		{[]string{"Authorization", "Bearer sk-good"}, http.StatusOK},
	} {
		resp := post(t.Context(), t, c, r.URL(), streamReq(false), tt.header...)
		if resp.StatusCode != tt.status {
			t.Errorf("header %q: status %d, want %d", tt.header, resp.StatusCode, tt.status)
		}
		if resp.StatusCode != http.StatusOK {
			checkErrorBody(t, resp)
			continue
		}
		if fs, err := readFrames(resp.Body); err != nil || kind(fs[len(fs)-1]) != "done" {
			t.Errorf("authorized stream: %v, %v", kinds(fs), err)
		}
	}
}

// TestKeepAlive checks comments while waiting for the first token (TTFT
// 150ms, keep-alive every 10ms: 14 ideally, at least 3 required) and right
// before an error frame (100ms after the first token).
func TestKeepAlive(t *testing.T) {
	ms := time.Millisecond
	t.Run("before first token", func(t *testing.T) {
		p := quick(2)
		p.TTFT, p.KeepAlive = Dist{Median: 150 * ms}, 10*ms
		r, c := startSim(t, p)
		fs, err := readFrames(post(t.Context(), t, c, r.URL(), streamReq(false)).Body)
		if err != nil {
			t.Fatal(err)
		}
		ks := kinds(fs)
		pings := slices.Index(ks, "text") - 1
		if pings < 3 || slices.ContainsFunc(ks[1:pings+1], func(k string) bool { return k != "ping" }) {
			t.Errorf("frames %v: want role, ≥ 3 pings, text", ks)
		}
		if fs[1].data != ": keep-alive" {
			t.Errorf("comment %q", fs[1].data)
		}
	})
	t.Run("before error frame", func(t *testing.T) {
		p := quick(4)
		p.ITL, p.KeepAlive = Dist{Median: 100 * ms}, 10*ms
		p.Fault, p.FaultAfter = FaultErrorFrame, 1
		r, c := startSim(t, p)
		fs, err := readFrames(post(t.Context(), t, c, r.URL(), streamReq(false)).Body)
		if err != nil {
			t.Fatal(err)
		}
		ks := kinds(fs)
		i := slices.Index(ks, "error")
		if i < 4 || ks[i-1] != "ping" || ks[2] != "ping" {
			t.Errorf("frames %v: want role, text, pings, error", ks)
		}
	})
}

func TestRecorder(t *testing.T) {
	p := quick(5)
	p.TTFT, p.ITL = Dist{Median: 10 * time.Millisecond}, Dist{Median: 2 * time.Millisecond}
	r, c := startSim(t, p)
	stream := func() string {
		fs, err := readFrames(post(t.Context(), t, c, r.URL(), streamReq(false)).Body)
		if err != nil {
			t.Fatal(err)
		}
		return decode(t, fs[0]).ID
	}
	stream() // before recording: not kept
	r.Server().Record(true)
	ids := []string{stream(), stream()}
	r.Server().Record(false)
	stream()
	recs := r.Server().Records()
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
	for i, rec := range recs {
		seq, ok := SeqFromID(ids[i])
		if !ok || rec.Seq != seq || rec.Model != "m" || rec.Status != http.StatusOK {
			t.Errorf("record %d: seq %d model %q status %d; chunk id %q", i, rec.Seq, rec.Model, rec.Status, ids[i])
		}
		if len(rec.Tokens) != 5 || len(rec.Plan.Tokens) != 5 {
			t.Fatalf("record %d: %d token times, %d planned, want 5", i, len(rec.Tokens), len(rec.Plan.Tokens))
		}
		if rec.Header.Before(rec.Start) || rec.Tokens[0].Before(rec.Header) {
			t.Errorf("record %d: start %v header %v first token %v out of order", i, rec.Start, rec.Header, rec.Tokens[0])
		}
		for k, at := range rec.Tokens {
			if due := rec.Start.Add(rec.Plan.Tokens[k]); at.Before(due) {
				t.Errorf("record %d: token %d flushed %v before its deadline", i, k, due.Sub(at))
			}
		}
	}
	r.Server().Record(true)
	if n := len(r.Server().Records()); n != 0 {
		t.Errorf("Record(true) kept %d old records", n)
	}
}

func TestSeqFromID(t *testing.T) {
	for id, want := range map[string]int{"chatcmpl-sim-7": 7, "chatcmpl-sim-": 0, "chatcmpl-7": 0, "chatcmpl-sim-x": 0, "chatcmpl-sim--1": 0} {
		if got, ok := SeqFromID(id); got != want || ok != (want > 0) {
			t.Errorf("SeqFromID(%q) = %d, %v; want %d", id, got, ok, want)
		}
	}
}

func TestNonStream(t *testing.T) {
	p := quick(5)
	p.TTFT, p.ITL = Dist{Median: 20 * time.Millisecond}, Dist{Median: 2 * time.Millisecond}
	p.Reasoning = 2
	r, c := startSim(t, p)
	req := streamReq(false)
	req.Stream = false
	start := time.Now()
	resp := post(t.Context(), t, c, r.URL(), req)
	var got struct {
		ID, Object, Model string
		Choices           []struct {
			Message      map[string]string
			FinishReason string `json:"finish_reason"`
		}
		Usage struct {
			CompletionTokens int `json:"completion_tokens"`
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if elapsed, want := time.Since(start), 28*time.Millisecond; elapsed < want {
		t.Errorf("answered after %v, before the schedule's %v", elapsed, want)
	}
	if got.ID != "chatcmpl-sim-1" || got.Object != "chat.completion" || got.Model != "m" || len(got.Choices) != 1 {
		t.Fatalf("response %+v", got)
	}
	msg := got.Choices[0].Message
	if len(strings.Fields(msg["content"])) != 5 || len(strings.Fields(msg["reasoning_content"])) != 2 ||
		msg["role"] != "assistant" || got.Choices[0].FinishReason != "stop" || got.Usage.CompletionTokens != 7 {
		t.Errorf("response %+v", got)
	}
}

func TestModelsAndBadRequests(t *testing.T) {
	r, c := startSim(t, quick(1))
	for _, m := range []string{"m1", "m0"} {
		req := streamReq(false)
		req.Model = m
		_, _ = io.Copy(io.Discard, post(t.Context(), t, c, r.URL(), req).Body)
	}
	resp, err := c.Get(r.URL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Object string
		Data   []struct{ ID, Object string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range list.Data {
		ids = append(ids, d.ID)
	}
	if diff := cmp.Diff([]string{"m0", "m1", "sim"}, ids); diff != "" || list.Object != "list" {
		t.Errorf("models %q (-want +got):\n%s", list.Object, diff)
	}

	for _, tt := range []struct {
		method, path, body string
		status             int
	}{
		{"POST", "/chat/completions", "{not json", http.StatusBadRequest},
		{"POST", "/chat/completions", `{"stream":true}`, http.StatusBadRequest},
		{"GET", "/chat/completions", "", http.StatusMethodNotAllowed},
		{"POST", "/models", "", http.StatusMethodNotAllowed},
		{"GET", "/nope", "", http.StatusNotFound},
	} {
		req, err := http.NewRequestWithContext(t.Context(), tt.method, r.URL()+tt.path, strings.NewReader(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != tt.status {
			t.Errorf("%s %s %q: status %d, want %d", tt.method, tt.path, tt.body, resp.StatusCode, tt.status)
		}
		checkErrorBody(t, resp)
		resp.Body.Close()
	}
}

func TestInvalidProfile(t *testing.T) {
	if _, err := Start(t.Context(), Profile{Fault: "boom"}); err == nil {
		t.Errorf("Start with an invalid profile: no error")
	}
	w := &flushRecorder{header: http.Header{}}
	req, err := http.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(`{"model":"m"}`))
	if err != nil {
		t.Fatal(err)
	}
	New(Profile{Fault: "boom"}).ServeHTTP(w, req)
	if got := w.cur.String(); !strings.Contains(got, "fault") || !strings.Contains(got, "invalid_profile") {
		t.Errorf("body %q does not name the invalid field", got)
	}
}

// TestCloseStalled checks that Close ends a stalled stream promptly (within
// 2s) and that no goroutine is left (2 spare allowed, polled for 2s).
func TestCloseStalled(t *testing.T) {
	before := runtime.NumGoroutine()
	p := quick(4)
	p.Fault, p.FaultAfter = FaultStall, 1
	r, err := Start(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	c := &http.Client{Transport: tr}
	resp := post(t.Context(), t, c, r.URL(), streamReq(false))
	read := make(chan []frame)
	go func() {
		fs, _ := readFrames(resp.Body)
		read <- fs
	}()
	time.Sleep(50 * time.Millisecond) // let the stream reach the stall
	closed := make(chan error)
	go func() { closed <- r.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Close hangs on a stalled stream")
	}
	select {
	case fs := <-read:
		if diff := cmp.Diff(shape("role", "text"), kinds(fs)); diff != "" {
			t.Errorf("frames (-want +got):\n%s", diff)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the client still reads after Close")
	}
	resp.Body.Close()
	tr.CloseIdleConnections()
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+2 {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines after Close, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

func TestServe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- Serve(ctx, ln, quick(2)) }()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp := post(t.Context(), t, &http.Client{Transport: tr}, "http://"+ln.Addr().String()+"/v1", streamReq(false))
	if fs, err := readFrames(resp.Body); err != nil || kind(fs[len(fs)-1]) != "done" {
		t.Errorf("stream %v, %v", kinds(fs), err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Serve did not return after cancel")
	}
}

// TestChunkAllocs keeps the per-token path free of allocations.
func TestChunkAllocs(t *testing.T) {
	s := New(quick(1))
	st := &stream{s: s, start: time.Now()}
	st.prefix = st.appendPrefix(nil, &answer{seq: 1, model: "m"}, "chat.completion.chunk")
	st.chunk(s.contentHead, s.words[0], "") // grows the buffer once
	if n := testing.AllocsPerRun(100, func() { st.chunk(s.contentHead, s.words[1], "") }); n != 0 {
		t.Errorf("%v allocations per chunk, want 0", n)
	}
	var c chunk
	if err := json.Unmarshal(bytes.TrimSuffix(bytes.TrimPrefix(st.buf, []byte("data: ")), []byte("\n\n")), &c); err != nil {
		t.Errorf("chunk %s: %v", st.buf, err)
	}
}

// TestStartWithDoneContext: a context already done gives an error, not a
// simulator that is closed (and racing its own Close) when it is returned.
func TestStartWithDoneContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r, err := Start(ctx, quick(2)); err == nil {
		r.Close()
		t.Fatal("Start with a done context: nil error")
	}
	// And a context cancelled right after Start closes it without a race.
	ctx, cancel = context.WithCancel(context.Background())
	r, err := Start(ctx, quick(2))
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := r.Close(); err != nil {
		t.Errorf("Close after cancel: %v", err)
	}
}

// TestLevelJumpsServed: the server plans each request at the level of its
// arrival (Profile.Level, wall time) and records that level.
func TestLevelJumpsServed(t *testing.T) {
	p := quick(3)
	p.TTFT, p.ITL = Dist{Median: 4 * time.Millisecond}, Dist{Median: time.Millisecond}
	p.Level = LevelJumps{X: 2, Period: 20 * time.Millisecond}
	r, c := startSim(t, p)
	r.Server().Record(true)
	for range 12 {
		if _, err := readFrames(post(t.Context(), t, c, r.URL(), streamReq(false)).Body); err != nil {
			t.Fatal(err)
		}
	}
	levels := map[float64]int{}
	for _, rec := range r.Server().Records() {
		levels[rec.Level]++
		if want := p.Level.At(rec.Start); rec.Level != want {
			t.Errorf("request %d arrived at level %v, recorded %v", rec.Seq, want, rec.Level)
		}
		if diff := cmp.Diff(p.PlanAt(rec.Seq, 3, rec.Start), rec.Plan); diff != "" {
			t.Errorf("request %d: plan is not the one at its arrival (-want +got):\n%s", rec.Seq, diff)
		}
	}
	// 12 requests of at least 6 ms each span 3+ periods of 20 ms: both levels.
	if levels[1] == 0 || levels[2] == 0 {
		t.Errorf("levels served %v, want both ×1 and ×2", levels)
	}
}

// TestWireTokenAllocs keeps every API's per-token event free of
// allocations once the stream's buffer has grown.
func TestWireTokenAllocs(t *testing.T) {
	s := New(quick(4))
	for _, wr := range []wire{chatWire{}, responsesWire{}, anthropicWire{}, geminiWire{model: "m"}, appWire{}} {
		st := &stream{s: s, wr: wr, start: time.Now()}
		a := &answer{seq: 1, n: 8, reasoning: 2, model: "m", modelJSON: `"m"`, finish: wr.finish("")}
		st.prefix = st.appendPrefix(nil, a, "chat.completion.chunk")
		mid := st.piece(a, 4, -1)
		st.wr.token(st, a, mid) // grows the buffer once
		if n := testing.AllocsPerRun(100, func() { st.wr.token(st, a, mid) }); n != 0 {
			t.Errorf("%T: %v allocations per token event, want 0", wr, n)
		}
	}
}

// TestSerial: a serial simulator serves one chat request at a time. Of four
// requests sent at once, each is admitted (its Record.Start, where its
// schedule begins) only after the one before it sent its last token, so its
// first token comes at least one whole answer after the first request's.
func TestSerial(t *testing.T) {
	p := quick(4)
	p.TTFT, p.ITL, p.Serial = Dist{Median: 10 * time.Millisecond}, Dist{Median: 2 * time.Millisecond}, true
	r, c := startSim(t, p)
	r.Server().Record(true)
	sendTogether(t, c, r.URL(), 4)
	recs := r.Server().Records()
	if len(recs) != 4 {
		t.Fatalf("%d records, want 4", len(recs))
	}
	slices.SortFunc(recs, func(a, b Record) int { return a.Start.Compare(b.Start) })
	for i := 1; i < len(recs); i++ {
		prev := recs[i-1]
		if end := prev.Tokens[len(prev.Tokens)-1]; recs[i].Start.Before(end) {
			t.Errorf("request %d admitted %v before request %d sent its last token", recs[i].Seq, end.Sub(recs[i].Start), prev.Seq)
		}
	}
}

// TestBuffer: with buffer=true the role chunk still comes with the headers,
// but every token arrives in one burst at the end, after the whole
// schedule; the recorder stamps every token at that one flush; without it
// the same schedule streams.
func TestBuffer(t *testing.T) {
	p, err := ParseSpec("fixed?ttft=20ms&itl=10ms&tokens=8")
	if err != nil {
		t.Fatal(err)
	}
	for _, buffer := range []bool{false, true} {
		t.Run(fmt.Sprint("buffer=", buffer), func(t *testing.T) {
			p.Buffer = buffer
			r, c := startSim(t, p)
			r.Server().Record(true)
			ttfb, tokens := streamTimes(t, c, r.URL(), 8)
			first, last := tokens[0], tokens[len(tokens)-1]
			schedule := 20*time.Millisecond + 7*10*time.Millisecond
			if buffer {
				if first < schedule {
					t.Errorf("first token at %v, before the schedule's end %v: not held", first, schedule)
				}
				if last-first > 5*time.Millisecond {
					t.Errorf("tokens spread over %v: not one burst", last-first)
				}
			} else if last-first < 50*time.Millisecond {
				t.Errorf("tokens spread over %v, want about 70ms: it should stream", last-first)
			}
			if ttfb <= 0 {
				t.Errorf("no role chunk before the tokens")
			}
			recs := r.Server().Records()
			if len(recs) != 1 || len(recs[0].Tokens) != 8 {
				t.Fatalf("records %+v, want one of 8 tokens", recs)
			}
			// The server's own record (a client starved of CPU may read
			// the role chunk late, together with the burst).
			if h, tok := recs[0].Header.Sub(recs[0].Start), recs[0].Tokens[0].Sub(recs[0].Start); h > tok/2 {
				t.Errorf("headers flushed at %v, first token at %v: the headers should go at once", h, tok)
			}
			if ts := recs[0].Tokens; buffer && !ts[0].Equal(ts[7]) {
				t.Errorf("held tokens recorded at different flushes: %v .. %v", ts[0], ts[7])
			}
		})
	}
}

// TestPrefixCache: with cache=on a prompt sent again is served from the
// cache in whole blocks of its shared prefix and says so in its usage; a
// prompt whose start differs shares nothing; with cache=off nothing hits;
// prefill makes the miss slower than the hit.
func TestPrefixCache(t *testing.T) {
	long := strings.Repeat("You are a careful assistant. ", 40) // 1,160 bytes: 290 tokens
	for _, tc := range []struct {
		spec    string
		prompts []string
		cached  []int
	}{
		{"fast?cache=on&prefill=200us", []string{long, long, "x" + long, long + " Now answer."}, []int{0, 288, 0, 288}},
		{"fast?cache=off&prefill=200us", []string{long, long}, []int{0, 0}},
		{"fast?cached_tokens=5", []string{long, long}, []int{5, 5}},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			p, err := ParseSpec(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			r, c := startSim(t, p)
			r.Server().Record(true)
			var usage []int
			for _, text := range tc.prompts {
				req := streamReq(true)
				req.Messages = []map[string]any{{"role": "user", "content": text}}
				resp := post(t.Context(), t, c, r.URL(), req)
				fs, err := readFrames(resp.Body)
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range fs {
					if kind(f) == "usage" {
						usage = append(usage, decode(t, f).Usage.PromptTokensDetails.CachedTokens)
					}
				}
			}
			if diff := cmp.Diff(tc.cached, usage); diff != "" {
				t.Errorf("cached_tokens in the usage (-want +got):\n%s", diff)
			}
			recs := r.Server().Records()
			if p.Prefill > 0 && len(recs) >= 2 {
				miss, hit := recs[0].Plan.Tokens[0], recs[1].Plan.Tokens[0]
				wantGap := time.Duration(recs[1].Cached) * p.Prefill
				if got := miss - hit; got < wantGap-5*time.Millisecond || got > wantGap+5*time.Millisecond {
					t.Errorf("the miss's first token is %v after the hit's, want about %v (prefill of the cached tokens)", got, wantGap)
				}
			}
		})
	}
}

// TestCapacity: a simulator of capacity 2 never serves more than two chat
// requests at once. Of six sent together, the schedules of those served
// (from admission to the last token) overlap at most two deep.
func TestCapacity(t *testing.T) {
	p := quick(4)
	p.TTFT, p.ITL, p.Capacity = Dist{Median: 20 * time.Millisecond}, Dist{Median: 2 * time.Millisecond}, 2
	r, c := startSim(t, p)
	r.Server().Record(true)
	sendTogether(t, c, r.URL(), 6)
	recs := r.Server().Records()
	if len(recs) != 6 {
		t.Fatalf("%d records, want 6", len(recs))
	}
	for _, a := range recs {
		// the requests being served at a's admission, a included
		n := 0
		for _, b := range recs {
			if !a.Start.Before(b.Start) && a.Start.Before(b.Tokens[len(b.Tokens)-1]) {
				n++
			}
		}
		if n > 2 {
			t.Errorf("request %d admitted while %d requests were served, capacity 2", a.Seq, n)
		}
	}
}

// TestBatchITL: with batch_itl=1 a request admitted while n others are
// served has every token gap (n+1) times the profile's; the first one
// admitted, with none, keeps the profile's gaps.
func TestBatchITL(t *testing.T) {
	p := quick(4)
	itl := 3 * time.Millisecond
	p.TTFT, p.ITL, p.BatchITL = Dist{Median: 300 * time.Millisecond}, Dist{Median: itl}, 1
	r, c := startSim(t, p)
	r.Server().Record(true)
	sendTogether(t, c, r.URL(), 4)
	factors := map[int64]bool{}
	for _, rec := range r.Server().Records() {
		gap := rec.Plan.Tokens[1] - rec.Plan.Tokens[0]
		if gap%itl != 0 || gap < itl || gap > 4*itl {
			t.Errorf("request %d: token gap %v, want 1 to 4 × %v", rec.Seq, gap, itl)
		}
		factors[int64(gap/itl)] = true
		if rec.Plan.Finish != rec.Plan.Tokens[3] {
			t.Errorf("request %d: finish %v, want the last token's %v", rec.Seq, rec.Plan.Finish, rec.Plan.Tokens[3])
		}
	}
	if !factors[1] {
		t.Errorf("gap factors %v: the first request admitted should keep the profile's gaps", factors)
	}
}

// TestStall: a stall from the first request on holds its first token (due
// after 10 ms) until the stall ends.
func TestStall(t *testing.T) {
	p, err := ParseSpec("fixed?ttft=10ms&itl=1ms&tokens=4&stall=200ms")
	if err != nil {
		t.Fatal(err)
	}
	r, c := startSim(t, p)
	r.Server().Record(true)
	_, tokens := streamTimes(t, c, r.URL(), 4)
	if tokens[0] < 200*time.Millisecond {
		t.Errorf("first token after %v, want ≥ the 200ms stall", tokens[0])
	}
	if rec := r.Server().Records()[0]; rec.Tokens[0].Sub(rec.Start) < 200*time.Millisecond {
		t.Errorf("server sent the first token %v after arrival, during the stall", rec.Tokens[0].Sub(rec.Start))
	}
}

// sendTogether sends n streamed chat requests at once and reads each to
// its end.
func sendTogether(t *testing.T, c *http.Client, base string, n int) {
	t.Helper()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			resp := post(t.Context(), t, c, base, streamReq(false))
			if _, err := readFrames(resp.Body); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}
