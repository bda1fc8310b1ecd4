package measure

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// # Wire rows
//
// Each API latgate speaks is one wire row: the constants and the two
// functions that make it differ from the others, and nothing else. The
// rows are immutable tables (chatWire, responsesWire, anthropicWire,
// geminiWire; an sse target's row is built from its sse section), each
// beside its request types and its parser in its proto_*.go file.
// Everything else is shared by every API and stays in the client: the one
// post (headers, the cold prompts' nonce, the send stamp), the httptrace
// phases, the read loop that stamps each line on the Read that delivered
// it, the TTFB / TTFT / TTFCT / ITL anchors, the stream bounds, and the
// classification of failures into results' classes.

// wire is one API's wire format: how a prompt becomes a request, which
// events of the answer carry tokens (answer, reasoning, tool call) and
// which are control or bookkeeping, and where the usage, the finish and
// errors are.
type wire struct {
	// path is what the API appends to the base URL ("/chat/completions";
	// "" when the base URL is the endpoint), and what hints name.
	path string
	// url, when set, is the request URL of a base URL (without its query
	// string) instead of base + path: Gemini's names the model.
	url func(base string, ep Endpoint) string
	// keyHeader is the header that carries the API key (config.KeyHeader),
	// as "Bearer <key>" when bearer is set; nothing is sent without a key.
	keyHeader string
	bearer    bool
	// headers are sent with every request, after the key and before the
	// target's own headers (which win): Anthropic's version.
	headers []header
	// body is the JSON request body of a prompt: the prompts' bodies are
	// built once, a chain step's on the spot. An error that is a *refusal
	// fails the prompt's requests; any other fails the target.
	body func(ep Endpoint, pr config.Prompt) ([]byte, error)
	// errorMessage, when set, reads the message of an error answer's body
	// in the API's own error shape ("" when it is not of that shape);
	// errorMessage, the shared reader, comes after it.
	errorMessage func(body []byte) string
	// parse fills f (resetting it first) from one data payload; event is
	// the name of its SSE event, nil when it had no event: line. It must
	// not allocate, and may keep slices of data in f only until the next
	// call.
	parse func(event, data []byte, f *frame)
	// eventIDs: the first SSE id: field is the response id.
	eventIDs bool
	// lines: the body is newline-delimited JSON, not SSE: every non-empty
	// line is a payload (parse's event is nil), nothing is a comment.
	lines bool
	// endsAtEOF: the clean end of the body ends the answer (rather than a
	// finish the stream must carry).
	endsAtEOF bool
	// finishName and endName name, in messages, what carries the finish
	// ("finish_reason") and the end of the stream ("[DONE]"; "" when the
	// end of the body is the stream's end).
	finishName, endName string
}

// header is one header of a wire row.
type header struct{ name, value string }

// wireOf returns the wire row of ep's API.
func wireOf(ep Endpoint) (wire, error) {
	switch ep.APIName() {
	case config.APIChat:
		return chatWire, nil
	case config.APIResponses:
		return responsesWire, nil
	case config.APIAnthropic:
		return anthropicWire, nil
	case config.APIGemini:
		return geminiWire, nil
	case config.APISSE:
		return sseWire(ep)
	case config.APINDJSON:
		return ndjsonWire(ep)
	}
	return wire{}, fmt.Errorf("api %q is not one latgate speaks (%s)", ep.API, strings.Join(config.APIs(), ", "))
}

// refusal is a request the client refuses to send (go-openai's checks of
// a reasoning model's parameters): each request of its prompt fails with
// its error, as a request that could not be sent.
type refusal struct{ err error }

func (r *refusal) Error() string { return r.err.Error() }
func (r *refusal) Unwrap() error { return r.err }

// prepared is a prompt's request body, built once, or its refusal.
type prepared struct {
	body []byte
	err  error
}

// prepare builds the request body of every prompt.
func (c *client) prepare(prompts []config.Prompt) error {
	c.bodies = make([]prepared, len(prompts))
	for i, pr := range prompts {
		b, err := c.wire.body(c.ep, pr)
		if err != nil && !errors.As(err, new(*refusal)) {
			return err
		}
		c.bodies[i] = prepared{b, err}
	}
	return nil
}

// send sends prompt i's streamed request; with conv, a chain's step,
// prompt i with conv as its messages, its body built on the spot.
func (c *client) send(ctx context.Context, a *attempt, i int, conv []config.Message) error {
	if conv != nil {
		pr := c.prompts[i]
		pr.Messages = conv
		b, err := c.wire.body(c.ep, pr)
		if err != nil {
			return err
		}
		return c.post(ctx, a, b)
	}
	p := c.bodies[i]
	if p.err != nil {
		return p.err
	}
	return c.post(ctx, a, p.body)
}

// statusError is an HTTP error answer: its status and the message of its
// body.
type statusError struct {
	status int
	msg    string
}

func (e *statusError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.status, e.msg) }

// post sends a JSON body to the endpoint, the one send of every API: with
// the wire's headers, then the target's; a cold prompt's body with a fresh
// nonce (cache.go). It stamps the send time right before the request
// leaves and keeps the response's status, Retry-After, Content-Type and
// body in a. An answer of status 300 or more is read (bounded) and
// returned as a *statusError.
func (c *client) post(ctx context.Context, a *attempt, body []byte) error {
	if a.nonce {
		body = nonced(body)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("building the request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	for k, v := range c.ep.Headers {
		req.Header.Set(k, v)
	}
	a.start = time.Now()
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	a.status = resp.StatusCode
	a.retryAfter = resp.Header.Get("Retry-After")
	a.contentType = resp.Header.Get("Content-Type")
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return &statusError{status: resp.StatusCode, msg: c.statusMessage(b, resp.StatusCode)}
	}
	a.body = resp.Body
	return nil
}

// statusMessage is the message of an error answer's body: in the API's own
// error shape, else in any of errorMessage's, else the body itself
// (clipped), else the status text.
func (c *client) statusMessage(b []byte, status int) string {
	msg := ""
	if c.wire.errorMessage != nil {
		msg = c.wire.errorMessage(b)
	}
	if msg == "" {
		msg = errorMessage(b)
	}
	if msg == "" {
		msg = clip(bytes.TrimSpace(b), 300)
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	return msg
}

// jsonBody marshals a request body and merges the target's extra_body into
// it (objects merged key by key, so extra_body can set one field of a
// nested object such as Gemini's generationConfig).
func jsonBody(v any, extra map[string]any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	merge(m, extra)
	return json.Marshal(m)
}

func merge(dst, src map[string]any) {
	for k, v := range src {
		sm, ok1 := v.(map[string]any)
		dm, ok2 := dst[k].(map[string]any)
		if ok1 && ok2 {
			merge(dm, sm)
			continue
		}
		dst[k] = v
	}
}

// promptParts splits a prompt's messages into the system text (system and
// developer messages, joined by blank lines, with whether any of them is a
// cache breakpoint) and the conversation.
func promptParts(msgs []config.Message) (system []config.Message, conv []config.Message) {
	for _, m := range msgs {
		if m.Role == "system" || m.Role == "developer" {
			system = append(system, m)
		} else {
			conv = append(conv, m)
		}
	}
	return system, conv
}

func joinText(msgs []config.Message) string {
	parts := make([]string, len(msgs))
	for i, m := range msgs {
		parts[i] = m.Content
	}
	return strings.Join(parts, "\n\n")
}

// tokenUsage is what a frame says of the tokens used. Each field counts only
// when its bit is set in set: APIs spread usage over several events
// (Anthropic's message_start has the input, message_delta the output), and
// a later event's field replaces an earlier one's.
type tokenUsage struct {
	set                                              uint8
	prompt, output, cached, cacheCreation, reasoning int
}

// Bits of tokenUsage.set.
const (
	usePrompt uint8 = 1 << iota
	useOutput
	useCached
	useCacheCreation
	useReasoning
)

// into copies the fields set into the sample.
func (u *tokenUsage) into(s *results.Sample) {
	if u.set&usePrompt != 0 {
		s.PromptTokens = u.prompt
	}
	if u.set&useOutput != 0 {
		s.OutputTokens = u.output
	}
	if u.set&useCached != 0 {
		s.CachedTokens = u.cached
	}
	if u.set&useCacheCreation != 0 {
		s.CacheCreationTokens = u.cacheCreation
	}
	if u.set&useReasoning != 0 {
		s.ReasoningTokens = u.reasoning
	}
	s.TokenSource = "usage"
}
