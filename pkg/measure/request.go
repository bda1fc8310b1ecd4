package measure

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/latgate/latgate/internal/sanitize"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// maxLine bounds one SSE line (a 200 KB chunk is fine; a runaway stream is not).
const maxLine = 8 << 20

// maxErrorBody bounds how much of a failed response body is read.
const maxErrorBody = 64 << 10

// Endpoint is a target ready to measure: its config plus the resolved base
// URL (the caller starts the simulator for "sim" targets) and the API key.
type Endpoint struct {
	config.Target
	URL    string
	APIKey string
}

// reqKey carries the per-request state through go-openai to the doer.
type reqKey struct{}

// attempt is the state of one HTTP attempt, stamped by the doer and trace.
type attempt struct {
	start, headers    time.Time
	dns, connect, tls time.Duration // of the connection used, set at GotConn
	reused            bool
	status            int
	retryAfter        string
	contentType       string
	body              io.ReadCloser

	// net/http may finish a dial started for this request on its own
	// goroutine after the request got another (idle) connection: the dial
	// hooks write under mu, and stop counting at GotConn.
	mu   sync.Mutex
	dial dialPhases
}

// dialPhases are the DNS, connect and TLS phases the trace saw.
type dialPhases struct {
	dnsStart, connStart, tlsStart time.Time
	dns, connect, tls             time.Duration
	gotConn                       bool
}

// doer is the HTTPDoer go-openai sends through. It applies the target's
// headers and body fields, stamps the send time right before the request
// leaves, and keeps the response (go-openai does not expose status headers
// such as Retry-After, nor the body of a successful stream).
type doer struct {
	hc      *http.Client
	headers map[string]string
	patch   map[string]json.RawMessage // body fields set on every request
	// query is the base URL's query string (?api-key=…, ?api-version=…):
	// go-openai appends the path to its base URL as a string, which would
	// put the query before the path, so the doer adds it to each request.
	query string
}

func (d *doer) Do(req *http.Request) (*http.Response, error) {
	a, _ := req.Context().Value(reqKey{}).(*attempt)
	if d.query != "" {
		u := *req.URL
		if u.RawQuery == "" {
			u.RawQuery = d.query
		} else {
			u.RawQuery = d.query + "&" + u.RawQuery
		}
		req.URL = &u
	}
	for k, v := range d.headers {
		req.Header.Set(k, v)
	}
	if len(d.patch) > 0 && req.Body != nil {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("reading request body: %w", err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(body, &m); err != nil {
			return nil, fmt.Errorf("patching request body: %w", err)
		}
		for k, v := range d.patch {
			m[k] = v
		}
		body, err = json.Marshal(m)
		if err != nil {
			return nil, fmt.Errorf("patching request body: %w", err)
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	if a != nil {
		a.start = time.Now()
	}
	resp, err := d.hc.Do(req)
	if err != nil || a == nil {
		return resp, err
	}
	a.status = resp.StatusCode
	a.retryAfter = resp.Header.Get("Retry-After")
	a.contentType = resp.Header.Get("Content-Type")
	if resp.StatusCode >= 300 {
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.LimitReader(resp.Body, maxErrorBody), resp.Body}
	}
	a.body = resp.Body
	return resp, nil
}

func (a *attempt) trace() *httptrace.ClientTrace {
	phase := func(f func(d *dialPhases)) {
		a.mu.Lock()
		defer a.mu.Unlock()
		if !a.dial.gotConn {
			f(&a.dial)
		}
	}
	return &httptrace.ClientTrace{
		DNSStart:          func(httptrace.DNSStartInfo) { phase(func(d *dialPhases) { d.dnsStart = time.Now() }) },
		DNSDone:           func(httptrace.DNSDoneInfo) { phase(func(d *dialPhases) { d.dns = time.Since(d.dnsStart) }) },
		ConnectStart:      func(string, string) { phase(func(d *dialPhases) { d.connStart = time.Now() }) },
		ConnectDone:       func(string, string, error) { phase(func(d *dialPhases) { d.connect = time.Since(d.connStart) }) },
		TLSHandshakeStart: func() { phase(func(d *dialPhases) { d.tlsStart = time.Now() }) },
		TLSHandshakeDone:  func(tls.ConnectionState, error) { phase(func(d *dialPhases) { d.tls = time.Since(d.tlsStart) }) },
		GotConn: func(i httptrace.GotConnInfo) {
			a.mu.Lock()
			defer a.mu.Unlock()
			a.dial.gotConn, a.reused = true, i.Reused
			if !i.Reused { // a reused connection had no phases
				a.dns, a.connect, a.tls = a.dial.dns, a.dial.connect, a.dial.tls
			}
		},
		GotFirstResponseByte: func() { a.headers = time.Now() },
	}
}

// client streams requests to one endpoint.
type client struct {
	ep   Endpoint
	oa   *openai.Client
	doer *doer
	// redact holds every form of the credentials this client sends: all
	// text from the endpoint passes through it (sanitize.Field) before it
	// is stored in an outcome.
	redact *sanitize.Redactor
}

func newClient(ep Endpoint, hc *http.Client) (*client, error) {
	d := &doer{hc: hc, headers: ep.Headers, patch: map[string]json.RawMessage{}}
	if ep.Temperature != nil { // go-openai drops temperature 0 (omitempty)
		d.patch["temperature"] = json.RawMessage(strconv.FormatFloat(*ep.Temperature, 'g', -1, 64))
	}
	for k, v := range ep.Extra {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("target %q: extra_body.%s: %w", ep.Name, k, err)
		}
		d.patch[k] = b
	}
	if !ep.IncludeUsage {
		d.patch["stream_options"] = json.RawMessage("null")
	}
	base, query, err := splitQuery(ep.URL)
	if err != nil {
		return nil, fmt.Errorf("target %q: base_url %s: %w", ep.Name, sanitize.URL(ep.URL), err)
	}
	d.query = query
	cfg := openai.DefaultConfig(strings.TrimSpace(ep.APIKey))
	cfg.BaseURL = strings.TrimRight(base, "/")
	cfg.HTTPClient = d
	return &client{ep: ep, oa: openai.NewClientWithConfig(cfg), doer: d, redact: sanitize.NewRedactor(sanitize.Credentials(ep.APIKey, ep.URL)...)}, nil
}

// splitQuery splits a base URL into the URL without its query string (and
// fragment) and the query string.
func splitQuery(raw string) (base, query string, err error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", "", errors.New("not a URL")
	}
	query = u.RawQuery
	u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = "", false, "", ""
	return u.String(), query, nil
}

// outcome is one measured request: a sample, or a failure.
type outcome struct {
	sample     results.Sample
	failure    *results.Failure
	model      string
	fp         string
	retryAfter string // of a failed attempt
	// id is the first chunk id and start the send time the sample's times
	// count from (Progress.ResponseID and Progress.Sent).
	id    string
	start time.Time
}

// stream sends one streamed request and measures it. buf is a reusable read
// buffer. It never returns an error: failures are classified in the outcome.
func (c *client) stream(ctx context.Context, messages []openai.ChatCompletionMessage, timeout time.Duration, buf []byte) outcome {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	a := &attempt{}
	ctx = context.WithValue(httptrace.WithClientTrace(ctx, a.trace()), reqKey{}, a)

	req := openai.ChatCompletionRequest{
		Model:         c.ep.Model,
		Messages:      messages,
		MaxTokens:     c.ep.MaxTokens,
		Stream:        true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	}
	st, err := c.oa.CreateChatCompletionStream(ctx, req)
	if errors.Is(err, openai.ErrReasoningModelMaxTokensDeprecated) {
		req.MaxTokens, req.MaxCompletionTokens = 0, c.ep.MaxTokens
		st, err = c.oa.CreateChatCompletionStream(ctx, req)
	}
	if err != nil {
		return c.fail(ctx, a, err)
	}
	defer st.Close()
	if a.body == nil {
		return c.failf(a, results.ErrHTTP, 0, "internal: response body not captured")
	}
	o := c.read(ctx, a, buf)
	if o.failure == nil {
		drain(a.body, buf)
	}
	return o
}

// Bounds of drain.
const (
	drainWait = 250 * time.Millisecond
	maxDrain  = 64 << 10
)

// drain reads what follows the last frame, normally only the end of the
// chunked body, so that the connection goes back to the pool: a body closed
// before its end closes the connection, and the next request would pay a new
// TCP (and TLS) handshake inside its TTFT. A server that keeps the stream
// open after [DONE] is cut after drainWait or maxDrain bytes.
func drain(body io.ReadCloser, buf []byte) {
	t := time.AfterFunc(drainWait, func() { body.Close() })
	defer t.Stop()
	for n := 0; n < maxDrain; {
		m, err := body.Read(buf)
		if err != nil {
			return
		}
		n += m
	}
}

// read consumes the SSE body of a successful response.
func (c *client) read(ctx context.Context, a *attempt, buf []byte) outcome {
	var (
		o                         outcome
		f                         frame
		first, firstContent, last time.Time
		end                       time.Time
		chunks                    int
		finish                    string
		done, errorEvent          bool
		maxStall                  time.Duration
		other                     string // the first line that is no SSE field, for a body that is not a stream
	)
	s := &o.sample
	gaps := make([]float64, 0, min(max(c.ep.MaxTokens, 1), 256))
	lr := newLineReader(a.body, buf, maxLine)
	tokens, bytesMax := tokenLimit(c.ep.MaxTokens), byteLimit(c.ep.MaxTokens)
	for {
		line, at, err := lr.next()
		if err != nil {
			end = at
			if err == io.EOF {
				break
			}
			return c.readFailure(ctx, a, err, chunks)
		}
		if lr.n > bytesMax {
			return c.failf(a, results.ErrOverrun, a.status, "stopped after %d bytes and %d token chunks: the stream ran far past what max_tokens %d allows (latgate stops a stream at %d bytes)",
				lr.n, chunks, c.ep.MaxTokens, bytesMax)
		}
		switch {
		case len(line) == 0:
			errorEvent = false // event boundary
			continue
		case line[0] == ':': // comment, e.g. keep-alive
			continue
		case bytes.HasPrefix(line, []byte("event:")):
			errorEvent = bytes.Equal(bytes.TrimSpace(line[6:]), []byte("error"))
			continue
		case !bytes.HasPrefix(line, []byte("data:")):
			if other == "" && chunks == 0 && !bytes.HasPrefix(line, []byte("id:")) && !bytes.HasPrefix(line, []byte("retry:")) {
				other = clip(bytes.TrimSpace(line), 120)
			}
			continue // id:, retry: and unknown fields are ignored, as SSE says
		}
		payload := line[5:]
		parseFrame(payload, &f)
		switch {
		case f.done:
			done = true
		case f.malformed:
			return c.failf(a, results.ErrMalformed, a.status, "malformed frame after %d chunks: %s", chunks, clip(bytes.TrimSpace(payload), 120))
		case f.isError || errorEvent:
			return c.failf(a, results.ErrStreamErr, a.status, "error in stream after %d chunks: %s", chunks, streamErrorMessage(payload))
		}
		if done {
			end = at
			break
		}
		if o.id == "" && len(f.id) > 0 {
			o.id = string(f.id)
		}
		if o.model == "" && len(f.model) > 0 {
			o.model = c.field(f.model)
		}
		if o.fp == "" && len(f.fingerprint) > 0 {
			o.fp = c.field(f.fingerprint)
		}
		if f.token() {
			if chunks == 0 {
				first = at
			} else {
				g := at.Sub(last)
				gaps = append(gaps, ms(g))
				maxStall = max(maxStall, g)
			}
			if f.content && firstContent.IsZero() {
				firstContent = at
			}
			last = at
			if chunks++; chunks >= tokens {
				return c.failf(a, results.ErrOverrun, a.status, "stopped after %d token chunks: the endpoint streams far past max_tokens %d (latgate stops a stream at %d); it ignores the limit: check which field it reads (max_tokens, max_completion_tokens) or set its own limit",
					chunks, c.ep.MaxTokens, tokens)
			}
		}
		if len(f.finishReason) > 0 && finish == "" {
			finish = c.field(f.finishReason)
		}
		if f.hasUsage {
			s.OutputTokens = f.completionTokens
			s.PromptTokens = f.promptTokens
			s.CachedTokens = f.cachedTokens
			s.TokenSource = "usage"
		}
	}
	if finish == "" && chunks == 0 && !isEventStream(a.contentType) {
		return c.failf(a, results.ErrMalformed, a.status,
			"HTTP %d with Content-Type %q is not an event stream (text/event-stream): the endpoint answered without streaming; check that base_url is the API (e.g. …/v1) and that it streams (stream: true); the body began: %s",
			a.status, a.contentType, other)
	}
	if finish == "" {
		what := "without a finish_reason"
		if !done {
			what = "without a finish_reason or [DONE]"
		}
		return c.failf(a, results.ErrTruncated, a.status, "stream ended %s after %d chunks", what, chunks)
	}
	if chunks == 0 {
		return c.failf(a, results.ErrEmpty, a.status, "answer had no tokens (finish_reason %q)", finish)
	}
	s.TTFB = ms(a.headers.Sub(a.start))
	s.TTFT = ms(first.Sub(a.start))
	if !firstContent.IsZero() {
		s.TTFCT = ms(firstContent.Sub(a.start))
		s.HasContent = true
	}
	s.Total = ms(end.Sub(a.start))
	s.MaxStall = ms(maxStall)
	s.Chunks = chunks
	if s.TokenSource == "" || s.OutputTokens == 0 {
		s.OutputTokens, s.TokenSource = chunks, "chunks"
	}
	if s.OutputTokens > 1 && last.After(first) {
		decode := last.Sub(first)
		s.TPOT = ms(decode) / float64(s.OutputTokens-1)
		s.TokensPerS = float64(s.OutputTokens-1) / decode.Seconds()
	}
	if len(gaps) > 0 {
		if cap(gaps)-len(gaps) > 16 { // keep what a sample holds bounded by its answer
			gaps = slices.Clone(gaps)
		}
		s.ITL = gaps
	}
	s.FinishReason = finish
	o.start = a.start
	s.DNS, s.Connect, s.TLS, s.Reused = ms(a.dns), ms(a.connect), ms(a.tls), a.reused
	return o
}

// field is text of a stream frame as it may be stored: redacted, one line,
// clipped (see package sanitize).
func (c *client) field(b []byte) string {
	return sanitize.Field(c.redact, string(b), sanitize.MaxField)
}

// isEventStream reports whether a Content-Type is text/event-stream.
func isEventStream(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "text/event-stream")
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func clip(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// streamErrorMessage extracts the message of an in-stream error frame in the
// OpenAI shape {"error":{"message":...}} or the Ollama shape {"error":"..."}.
func streamErrorMessage(payload []byte) string {
	var v struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(payload, &v) == nil && len(v.Error) > 0 {
		var s string
		if json.Unmarshal(v.Error, &s) == nil {
			return s
		}
		var o struct {
			Message string `json:"message"`
			Type    string `json:"type"`
		}
		if json.Unmarshal(v.Error, &o) == nil && o.Message != "" {
			if o.Type != "" {
				return o.Type + ": " + o.Message
			}
			return o.Message
		}
	}
	return clip(bytes.TrimSpace(payload), 200)
}

func (c *client) failf(a *attempt, class string, status int, format string, args ...any) outcome {
	return outcome{
		failure:    &results.Failure{Class: class, Status: status, Message: sanitize.Field(c.redact, fmt.Sprintf(format, args...), sanitize.MaxMessage)},
		retryAfter: a.retryAfter,
	}
}

// readFailure classifies an error while reading the body.
func (c *client) readFailure(ctx context.Context, a *attempt, err error, chunks int) outcome {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return c.failf(a, results.ErrTimeout, a.status, "timed out mid-stream after %d chunks", chunks)
	case ctx.Err() != nil:
		return c.failf(a, results.ErrCanceled, a.status, "canceled after %d chunks", chunks)
	case errors.Is(err, errLineTooLong):
		return c.failf(a, results.ErrMalformed, a.status, "%v", err)
	}
	return c.failf(a, results.ErrTruncated, a.status, "stream cut after %d chunks: %v", chunks, err)
}

// fail classifies an error from sending the request.
func (c *client) fail(ctx context.Context, a *attempt, err error) outcome {
	var (
		apiErr *openai.APIError
		reqErr *openai.RequestError
		dnsErr *net.DNSError
	)
	status := a.status
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return c.failf(a, results.ErrTimeout, status, "timed out before the response headers")
	case ctx.Err() != nil:
		return c.failf(a, results.ErrCanceled, status, "canceled")
	case errors.As(err, &apiErr):
		return c.statusFailure(a, apiErr.HTTPStatusCode, apiErr.Message)
	case errors.As(err, &reqErr):
		msg := string(bytes.TrimSpace(reqErr.Body))
		if msg == "" && reqErr.Err != nil {
			msg = reqErr.Err.Error()
		}
		return c.statusFailure(a, reqErr.HTTPStatusCode, clip([]byte(msg), 300))
	case errors.As(err, &dnsErr):
		return c.failf(a, results.ErrConnect, 0, "DNS lookup of %s failed: %v", dnsErr.Name, dnsErr.Err)
	}
	return c.failf(a, results.ErrConnect, 0, "%v", err)
}

func (c *client) statusFailure(a *attempt, status int, msg string) outcome {
	class := results.ErrHTTP
	if h := hint(status, c.ep); h != "" {
		msg += " (" + h + ")"
	}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		class = results.ErrAuth
	case status == http.StatusTooManyRequests:
		class = results.ErrRateLimit
	case status >= 500:
		class = results.ErrServer
	}
	return c.failf(a, class, status, "HTTP %d: %s", status, msg)
}
