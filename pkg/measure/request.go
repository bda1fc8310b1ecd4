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
	"strings"
	"sync"
	"time"

	"github.com/latgate/latgate/internal/sanitize"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// maxLine bounds one SSE line (a 200 KB chunk is fine; a runaway stream is not).
const maxLine = 8 << 20

// maxErrorBody bounds how much of a failed response body is read.
const maxErrorBody = 64 << 10

// Endpoint is a target ready to measure: its config plus the resolved base
// URL (the caller starts the simulator for "sim" targets), the API key and,
// for api: sse, the values of sse.headers_env (NewEndpoint reads both from
// the environment).
type Endpoint struct {
	config.Target
	URL    string
	APIKey string
	// SecretHeaders are headers whose values came from the environment
	// (sse.headers_env): sent with every request, redacted like the key.
	SecretHeaders map[string]string
	// Limits, by prompt id, stop a request sooner than run.timeout, and
	// record it as results.ErrSlow (see Limit); nil for none.
	Limits map[string]Limit
}

// NewEndpoint returns t ready to measure at url, its key and secret
// headers read with getenv.
func NewEndpoint(t config.Target, url string, getenv func(string) string) Endpoint {
	ep := Endpoint{Target: t, URL: url}
	if t.APIKeyEnv != "" {
		ep.APIKey = getenv(t.APIKeyEnv)
	}
	if _, he := t.Stream(); len(he) > 0 {
		ep.SecretHeaders = map[string]string{}
		for h, env := range he {
			ep.SecretHeaders[h] = getenv(env)
		}
	}
	return ep
}

// SecretEnv returns the names of the environment variables whose values t
// sends as credentials (api_key_env and sse.headers_env): every output
// redacts their values.
func SecretEnv(t config.Target) []string {
	var names []string
	if _, he := t.Stream(); len(he) > 0 {
		for _, env := range he {
			names = append(names, env)
		}
		slices.Sort(names)
	}
	if t.APIKeyEnv != "" {
		names = append([]string{t.APIKeyEnv}, names...)
	}
	return names
}

// attempt is the state of one HTTP attempt, stamped by post and trace.
type attempt struct {
	start, headers    time.Time
	dns, connect, tls time.Duration // of the connection used, set at GotConn
	reused            bool
	status            int
	retryAfter        string
	contentType       string
	body              io.ReadCloser
	// nonce: the request is of a cold prompt, whose body gets a fresh
	// nonce (cache.go).
	nonce bool
	// answer, when not nil, collects the answer's text: a chain's step,
	// whose answer the next step sends (chain.go).
	answer *answerText

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

// maxRedirects is how many redirects within the origin a request follows
// (net/http's own default).
const maxRedirects = 10

// newHTTPClient returns the HTTP client of one endpoint: a transport of its
// own that keeps up to conns idle connections (one per stream, so a request
// never waits for a handshake that another request's connection spared),
// without compression (a compressed stream would hold frames back), and a
// redirect policy that keeps the credentials at the origin they were meant
// for (see sameOrigin). close closes the idle connections.
func newHTTPClient(conns int) (hc *http.Client, close func()) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = conns
	tr.DisableCompression = true
	return &http.Client{Transport: tr, CheckRedirect: sameOrigin}, tr.CloseIdleConnections
}

// redirectError is a redirect latgate refused to follow: to another origin.
type redirectError struct {
	status   int
	from, to string // origins, as config.Origin writes them
}

func (e *redirectError) Error() string {
	return fmt.Sprintf("redirected to another origin, %s (the base_url's is %s): latgate follows a redirect only within the "+
		"base_url's scheme, host and port, so that no credential leaves it; set base_url to where the API is served", e.to, e.from)
}

// sameOrigin is the CheckRedirect of every endpoint's client: a redirect is
// followed only to the origin (scheme, host and port) of the first request.
// net/http copies every header of the first request onto the next one, and
// drops only Authorization and cookies, and only when the host name differs
// (another port of the same host keeps them); x-api-key, x-goog-api-key and
// sse.headers_env headers would go anywhere. Refusing the hop keeps each of
// them, and the key in the base URL's query string, where the config (and
// --trusted-config) sends it, for every API.
func sameOrigin(req *http.Request, via []*http.Request) error {
	from, to := config.Origin(via[0].URL.String()), config.Origin(req.URL.String())
	if to == "" || to != from {
		status := 0
		if req.Response != nil {
			status = req.Response.StatusCode
		}
		if to == "" {
			to = "a URL that is not http(s)"
		}
		return &redirectError{status: status, from: from, to: to}
	}
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	return nil
}

// client streams requests to one endpoint.
type client struct {
	ep Endpoint
	// wire is the endpoint's wire format: how a prompt becomes a request
	// and which events of the answer carry tokens (proto.go). Timing,
	// stamping and classification are the client's, shared by every API.
	wire wire
	hc   *http.Client
	// url is where every request goes, the base URL's query string (?key=…,
	// ?api-version=…) included; headers are the wire's, with the key.
	url     string
	headers map[string]string
	// bodies are the prompts' request bodies, built once.
	bodies []prepared
	// cold marks the prompts whose requests carry a nonce (cache.go).
	cold []bool
	// prompts are the prompts as sent (cold ones with their nonce
	// placeholder): a chain's steps are built from them (chain.go).
	prompts []config.Prompt
	// redact holds every form of the credentials this client sends: all
	// text from the endpoint passes through it (sanitize.Field) before it
	// is stored in an outcome.
	redact *sanitize.Redactor
}

// newClient returns a client of ep for the given prompts (requests name a
// prompt by its index).
func newClient(ep Endpoint, hc *http.Client, prompts []config.Prompt) (*client, error) {
	base, query, err := splitQuery(ep.URL)
	if err != nil {
		return nil, fmt.Errorf("target %q: base_url %s: %w", ep.Name, sanitize.URL(ep.URL), err)
	}
	secrets := sanitize.Credentials(ep.APIKey, ep.URL)
	for _, v := range ep.SecretHeaders {
		secrets = append(secrets, sanitize.Credentials(v, "")...)
	}
	c := &client{ep: ep, hc: hc, redact: sanitize.NewRedactor(secrets...)}
	if c.wire, err = wireOf(ep); err != nil {
		return nil, fmt.Errorf("target %q: %w", ep.Name, err)
	}
	base = strings.TrimRight(base, "/")
	if c.wire.url != nil {
		c.url = c.wire.url(base, ep)
	} else {
		c.url = base + c.wire.path
	}
	if c.url, err = withQuery(c.url, query); err != nil {
		return nil, fmt.Errorf("target %q: base_url %s: %w", ep.Name, sanitize.URL(ep.URL), err)
	}
	c.headers = map[string]string{}
	if k := strings.TrimSpace(ep.APIKey); k != "" && c.wire.keyHeader != "" {
		if c.wire.bearer {
			k = "Bearer " + k
		}
		c.headers[c.wire.keyHeader] = k
	}
	for _, h := range c.wire.headers {
		c.headers[h.name] = h.value
	}
	prompts, c.cold = withNonces(prompts)
	c.prompts = prompts
	if err := c.prepare(prompts); err != nil {
		return nil, fmt.Errorf("target %q: %w", ep.Name, err)
	}
	return c, nil
}

// withQuery puts the base URL's query string before the query of the
// API's URL (Gemini's alt=sse): ?key=…&alt=sse.
func withQuery(raw, query string) (string, error) {
	if query == "" {
		return raw, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", errors.New("not a URL")
	}
	if u.RawQuery == "" {
		u.RawQuery = query
	} else {
		u.RawQuery = query + "&" + u.RawQuery
	}
	return u.String(), nil
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
	// usage is a chain's tally of the requests its steps sent (chain.go),
	// nil for one request.
	usage *results.Usage
	// late and queue are a paced request's (pace.go): how late latgate
	// sent it, and how long it waited for a free stream.
	late, queue time.Duration
}

// stream sends prompt i's streamed request and measures it; with conv, a
// chain's step, prompt i with conv as its messages, its answer's text
// collected in answer (chain.go). buf is a reusable read buffer. It never
// returns an error: failures are classified in the outcome.
func (c *client) stream(ctx context.Context, i int, conv []config.Message, answer *answerText, timeout time.Duration, buf []byte) outcome {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	a := &attempt{nonce: i < len(c.cold) && c.cold[i], answer: answer}
	ctx = httptrace.WithClientTrace(ctx, a.trace())
	if err := c.send(ctx, a, i, conv); err != nil {
		return c.fail(ctx, a, err)
	}
	defer a.body.Close()
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

// maxEventName bounds the event: name the read loop keeps (longer names
// match no API's events).
const maxEventName = 64

// read consumes the SSE body of a successful response. The loop is the
// same for every API: it stamps each line with the Read that delivered it,
// tracks the event name, and hands each data payload to the wire row's
// parse; what a frame says (a token, reasoning, a tool call, a status,
// usage, the finish, the end, an error) is the row's, what follows from it
// is decided here.
func (c *client) read(ctx context.Context, a *attempt, buf []byte) outcome {
	var (
		o                         outcome
		f                         frame
		first, firstContent, last time.Time
		firstStatus, end          time.Time
		chunks                    int
		finish                    string
		done, errorEvent          bool
		maxStall                  time.Duration
		other                     string // the first line that is no SSE field, for a body that is not a stream
		evBuf                     [maxEventName]byte
		event                     []byte // the current event's name, "" before an event: line
	)
	if why := c.notThisStream(a.contentType); why != "" {
		// Fail at the headers: read as SSE such a body finds no event
		// until it ends, which may be a minute away.
		return c.failf(a, results.ErrMalformed, a.status, "HTTP %d with Content-Type %q (POST %s): %s", a.status, a.contentType, shownURL(c.url), why)
	}
	payloads := 0 // lines handed to parse
	s := &o.sample
	gaps := make([]float64, 0, min(max(c.ep.MaxTokens, 1), 256))
	lr := newLineReader(a.body, buf, maxLine)
	tokens, bytesMax := tokenLimit(c.ep.MaxTokens), byteLimit(c.ep.MaxTokens)
	eventIDs := c.wire.eventIDs
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
		payload := line
		switch {
		case c.wire.lines:
			if len(bytes.TrimSpace(line)) == 0 {
				continue // a blank line between objects
			}
		case len(line) == 0:
			errorEvent = false // event boundary
			event = nil
			continue
		case line[0] == ':': // comment, e.g. keep-alive
			continue
		case bytes.HasPrefix(line, []byte("event:")):
			name := bytes.TrimSpace(line[6:])
			errorEvent = bytes.Equal(name, []byte("error"))
			event = evBuf[:copy(evBuf[:], name)]
			continue
		case !bytes.HasPrefix(line, []byte("data:")):
			if eventIDs && o.id == "" && bytes.HasPrefix(line, []byte("id:")) {
				o.id = c.field(bytes.TrimSpace(line[3:]))
			}
			if other == "" && chunks == 0 && !bytes.HasPrefix(line, []byte("id:")) && !bytes.HasPrefix(line, []byte("retry:")) {
				other = clip(bytes.TrimSpace(line), 120)
			}
			continue // id:, retry: and unknown fields are ignored, as SSE says
		default:
			payload = line[5:]
		}
		payloads++
		c.wire.parse(event, payload, &f)
		switch {
		case f.done:
			done = true
		case f.malformed:
			return c.failf(a, results.ErrMalformed, a.status, "malformed frame after %d chunks: %s%s", chunks, clip(bytes.TrimSpace(payload), 120), c.malformedHint(payload))
		case f.isError || errorEvent:
			return c.failf(a, results.ErrStreamErr, a.status, "error in stream after %d chunks: %s", chunks, streamErrorMessage(payload))
		}
		if o.id == "" && len(f.id) > 0 {
			o.id = string(f.id)
		}
		if o.model == "" && len(f.model) > 0 {
			o.model = c.field(jsonText(f.model))
		}
		if o.fp == "" && len(f.fingerprint) > 0 {
			o.fp = c.field(jsonText(f.fingerprint))
		}
		if f.status && firstStatus.IsZero() {
			firstStatus = at
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
			if f.content && a.answer != nil {
				a.answer.add(f.text, f.plain)
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
			f.usage.into(s)
		}
		if done {
			end = at
			break
		}
	}
	if c.wire.lines && payloads == 1 && chunks == 1 && done && !c.wire.endsAtEOF && mediaType(a.contentType) == "application/json" {
		// One line that is the whole answer and its end, under the type of
		// a whole JSON answer: a server asked not to stream (Ollama's
		// stream: false). An app that streams under application/json
		// sends a done line of its own after its tokens.
		return c.failf(a, results.ErrMalformed, a.status,
			"HTTP %d with Content-Type %q answered in one JSON object, not a stream: set stream: true in ndjson.body (Ollama streams only when asked)", a.status, a.contentType)
	}
	if finish == "" && chunks == 0 && !c.wire.lines && !isEventStream(a.contentType) {
		return c.failf(a, results.ErrMalformed, a.status,
			"HTTP %d with Content-Type %q is not an event stream (text/event-stream): the endpoint answered without streaming; check that base_url is the API (e.g. …/v1) and that it streams (stream: true); the body began: %s",
			a.status, a.contentType, other)
	}
	if finish == "" && !done && c.wire.endsAtEOF {
		finish = "end" // the body's end is the answer's end
	}
	if finish == "" {
		what := "without a " + c.wire.finishName
		if end := c.wire.endName; !done && end != "" {
			what += " or " + end
		}
		return c.failf(a, results.ErrTruncated, a.status, "stream ended %s after %d chunks", what, chunks)
	}
	if chunks == 0 {
		return c.failf(a, results.ErrEmpty, a.status, "answer had no tokens (%s %q)", c.wire.finishName, finish)
	}
	s.TTFB = ms(a.headers.Sub(a.start))
	s.TTFT = ms(first.Sub(a.start))
	if !firstContent.IsZero() {
		s.TTFCT = ms(firstContent.Sub(a.start))
		s.HasContent = true
	}
	if !firstStatus.IsZero() {
		s.FirstStatus = ms(firstStatus.Sub(a.start))
	}
	s.Total = ms(end.Sub(a.start))
	s.MaxStall = ms(maxStall)
	s.Chunks = chunks
	if s.TokenSource != "" && !plausibleUsage(s, c.ep.MaxTokens) {
		s.PromptTokens, s.CachedTokens, s.CacheCreationTokens, s.ReasoningTokens, s.OutputTokens, s.TokenSource = 0, 0, 0, 0, 0, ""
	}
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

// jsonText decodes the escapes of a JSON string's contents as the frame
// scanner returns them (raw, between the quotes): "a\u003cb" is "a<b", as
// the endpoint meant it, before the sanitiser sees it. Contents that do
// not decode stay as they are (the sanitiser still sees them).
func jsonText(b []byte) []byte {
	if !bytes.ContainsRune(b, '\\') {
		return b
	}
	var s string
	if json.Unmarshal(append(append([]byte{'"'}, b...), '"'), &s) != nil {
		return b
	}
	return []byte(s)
}

// field is text of a stream frame as it may be stored: redacted, one line,
// clipped (see package sanitize).
func (c *client) field(b []byte) string {
	return sanitize.Field(c.redact, string(b), sanitize.MaxField)
}

// isEventStream reports whether a Content-Type is text/event-stream.
// malformedHint is what may fix a malformed frame: on api: sse, a data
// line that is not JSON may be the stream's end marker (OpenAI's [DONE]).
func (c *client) malformedHint(payload []byte) string {
	d := bytes.TrimSpace(payload)
	if c.ep.APIName() != config.APISSE || len(d) == 0 || len(d) > 64 || json.Valid(d) {
		return ""
	}
	return fmt.Sprintf(" (not JSON at sse.token_pointer; if this data line ends the stream, set sse.done_data: %q)", string(d))
}

// notAStream says what a response's Content-Type is when it is surely a
// stream of another kind (newline-delimited JSON), "" otherwise: servers
// that stream SSE under another or no Content-Type are still read, and a
// whole answer (a web page, a JSON object) is read to show how it begins.
func notAStream(contentType string) string {
	if isNDJSON(contentType) {
		return "newline-delimited JSON, not an event stream (text/event-stream); Ollama's native /api/chat streams so: " +
			"set api: ndjson with ndjson: {preset: ollama}, or use its OpenAI-compatible API (api: chat, base_url ending in /v1)"
	}
	return ""
}

// notThisStream is notAStream for the wire's framing: an NDJSON target
// refuses an event stream (its lines would all be malformed), the others
// NDJSON.
func (c *client) notThisStream(contentType string) string {
	if !c.wire.lines {
		return notAStream(contentType)
	}
	if isEventStream(contentType) {
		return "server-sent events, not newline-delimited JSON: set api: sse (an app's stream) or api: chat (an OpenAI-style one)"
	}
	return ""
}

// mediaType is a Content-Type's media type, lower case, without parameters.
func mediaType(contentType string) string {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

func isNDJSON(contentType string) bool {
	switch mediaType(contentType) {
	case "application/x-ndjson", "application/ndjson", "application/jsonl", "application/x-jsonlines", "application/jsonlines":
		return true
	}
	return false
}

func isEventStream(contentType string) bool { return mediaType(contentType) == "text/event-stream" }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func clip(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// streamErrorMessage extracts the message of an in-stream error frame in the
// OpenAI and Anthropic shapes {"error":{"type":…,"message":…}}, the Gemini
// shape {"error":{"status":…,"message":…}}, the Ollama shape
// {"error":"..."}, the Responses shapes {"type":"error","code":…,
// "message":…} and {"response":{"error":{"code":…,"message":…}}}, or an
// app's {"message":…}; else the payload itself, clipped.
func streamErrorMessage(payload []byte) string {
	if msg := errorMessage(payload); msg != "" {
		return msg
	}
	return clip(bytes.TrimSpace(payload), 200)
}

// errorMessage extracts the message of an error body or frame in any of the
// shapes of streamErrorMessage (a JSON array: its first element), or "".
func errorMessage(body []byte) string {
	type detail struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Status  string          `json:"status"`
		Code    json.RawMessage `json:"code"`
	}
	var v struct {
		Error    json.RawMessage `json:"error"`
		Response struct {
			Error *detail `json:"error"`
		} `json:"response"`
		detail
		Detail json.RawMessage `json:"detail"`
	}
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		var arr []json.RawMessage
		if json.Unmarshal(body, &arr) != nil || len(arr) == 0 {
			return ""
		}
		body = arr[0]
	}
	if json.Unmarshal(body, &v) != nil {
		return ""
	}
	describe := func(d detail) string {
		kind := d.Type
		if kind == "" || kind == "error" {
			kind = d.Status
		}
		if kind == "" && len(d.Code) > 0 {
			var code string
			if json.Unmarshal(d.Code, &code) == nil {
				kind = code
			}
		}
		if kind != "" && d.Message != "" {
			return kind + ": " + d.Message
		}
		return d.Message
	}
	if len(v.Error) > 0 {
		var s string
		if json.Unmarshal(v.Error, &s) == nil {
			return s
		}
		var d detail
		if json.Unmarshal(v.Error, &d) == nil {
			return describe(d)
		}
	}
	if v.Response.Error != nil {
		return describe(*v.Response.Error)
	}
	if v.Message != "" {
		return describe(v.detail)
	}
	var s string
	if len(v.Detail) > 0 && json.Unmarshal(v.Detail, &s) == nil {
		return s
	}
	return ""
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
		stErr    *statusError
		redirErr *redirectError
		dnsErr   *net.DNSError
	)
	status := a.status
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return c.failf(a, results.ErrTimeout, status, "timed out before the response headers")
	case ctx.Err() != nil:
		return c.failf(a, results.ErrCanceled, status, "canceled")
	case errors.As(err, &redirErr):
		return c.failf(a, results.ErrHTTP, redirErr.status, "HTTP %d: %v", redirErr.status, redirErr)
	case errors.As(err, &stErr):
		return c.statusFailure(a, stErr.status, stErr.msg)
	case errors.As(err, &dnsErr):
		return c.failf(a, results.ErrConnect, 0, "DNS lookup of %s failed: %v", dnsErr.Name, dnsErr.Err)
	}
	return c.failf(a, results.ErrConnect, 0, "%v", err)
}

func (c *client) statusFailure(a *attempt, status int, msg string) outcome {
	class := results.ErrHTTP
	// Which request failed: the method and URL (no credentials or query),
	// then what may fix it.
	where := "POST " + shownURL(c.url)
	if h := hint(status, c.ep, c.wire.path); h != "" {
		where += "; " + h
	}
	msg += " (" + where + ")"
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
