package measure

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// protocol is one API's wire format, and only that: how a prompt becomes
// a request, which events of the answer carry tokens (answer, reasoning,
// tool call) and which are control or bookkeeping, and where the usage,
// the finish and errors are. Everything else is shared by every API and
// stays in the client: the send stamp and httptrace phases (doer), the
// read loop that stamps each line on the Read that delivered it, the TTFB /
// TTFT / TTFCT / ITL anchors, the stream bounds, and the classification of
// failures into results' classes.
type protocol interface {
	// send sends prompt i's streamed request through c.doer (which stamps
	// the attempt and keeps the response body in the attempt). A failed
	// request returns an error fail classifies (*statusError for an HTTP
	// error answer); the closer is closed when the answer has been read.
	send(ctx context.Context, c *client, i int) (io.Closer, error)
	// sendPrompt is send of a prompt built on the spot: a chain's step,
	// whose messages hold the answers so far (chain.go).
	sendPrompt(ctx context.Context, c *client, pr config.Prompt) (io.Closer, error)
	// parse fills f (resetting it first) from one data payload; event is
	// the name of its SSE event, nil when it had no event: line. It must
	// not allocate, and may keep slices of data in f only until the next
	// call.
	parse(event, data []byte, f *frame)
	// eventIDs reports whether the first SSE id: field is the response id.
	eventIDs() bool
	// endsAtEOF reports whether the clean end of the body ends the answer
	// (rather than a finish the stream must carry).
	endsAtEOF() bool
	// finishName and endName name, in messages, what carries the finish
	// ("finish_reason") and the end of the stream ("[DONE]"; "" when the
	// end of the body is the stream's end).
	finishName() string
	endName() string
	// path is what the protocol appends to the base URL, for hints
	// ("/chat/completions"; "" when the base URL is the endpoint).
	path() string
}

// newProtocol returns ep's wire format, its requests to base (the base URL
// without its query string) built for prompts.
func newProtocol(ep Endpoint, base string, d *doer, prompts []config.Prompt) (protocol, error) {
	switch ep.APIName() {
	case config.APIChat:
		return newChat(ep, base, d, prompts)
	case config.APIResponses:
		return newResponses(ep, base, prompts)
	case config.APIAnthropic:
		return newAnthropic(ep, base, prompts)
	case config.APIGemini:
		return newGemini(ep, base, prompts)
	case config.APISSE:
		return newSSE(ep, base, prompts)
	}
	return nil, fmt.Errorf("api %q is not one latgate speaks (%s)", ep.API, strings.Join(config.APIs(), ", "))
}

// statusError is an HTTP error answer: its status and the message of its
// body.
type statusError struct {
	status int
	msg    string
}

func (e *statusError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.status, e.msg) }

// post sends a JSON body to url through c.doer with the given headers (the
// protocol's own: its key header, version; the target's headers come after
// them, in the doer). An answer of status 300 or more is read (bounded by
// the doer) and returned as a *statusError.
func (c *client) post(ctx context.Context, url string, body []byte, headers map[string]string) (io.Closer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("building the request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := c.doer.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body) // bounded by the doer
		msg := errorMessage(b)
		if msg == "" {
			msg = clip(bytes.TrimSpace(b), 300)
		}
		if msg == "" {
			msg = http.StatusText(resp.StatusCode)
		}
		return nil, &statusError{status: resp.StatusCode, msg: msg}
	}
	return resp.Body, nil
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
