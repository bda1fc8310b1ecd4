package measure

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/latgate/latgate/pkg/config"
)

// sseWire is any other streaming HTTP endpoint (an app's own): POST
// {base_url} with the sse section's body template filled for each prompt,
// the key (if api_key_env is set) as Authorization: Bearer, and the
// sse.headers_env headers. Its events are read by name (sseEvents); the
// first SSE id: field is the response id. Without done_events the end of
// the body ends the answer.
func sseWire(ep Endpoint) (wire, error) {
	o := ep.SSE
	if o == nil {
		return wire{}, fmt.Errorf("api: sse needs an sse section")
	}
	names := func(ss []string) [][]byte {
		out := make([][]byte, len(ss))
		for i, s := range ss {
			out[i] = []byte(s)
		}
		return out
	}
	ev := &sseEvents{token: names(o.TokenEvents), reasoning: names(o.ReasoningEvents), status: names(o.StatusEvents), done: names(o.DoneEvents), errs: names(o.ErrorEvents)}
	if o.DoneData != "" {
		ev.doneData = []byte(o.DoneData)
	}
	ev.pointer = segments(o.TokenPointer) // proto_ndjson.go
	w := wire{
		keyHeader:  config.KeyHeader(config.APISSE),
		bearer:     true,
		body:       sseBody,
		parse:      ev.parse,
		eventIDs:   true,
		endsAtEOF:  len(ev.done) == 0 && ev.doneData == nil,
		finishName: "done event",
		headers:    secretHeaders(ep),
	}
	return w, nil
}

// secretHeaders are an app stream's sse.headers_env or ndjson.headers_env
// headers, in name order, their values trimmed.
func secretHeaders(ep Endpoint) []header {
	var hs []header
	for _, h := range slices.Sorted(maps.Keys(ep.SecretHeaders)) {
		hs = append(hs, header{h, strings.TrimSpace(ep.SecretHeaders[h])})
	}
	return hs
}

// sseEvents are the event names of an sse target: token_events carry
// answer tokens and reasoning_events reasoning tokens (the text at
// token_pointer, or the whole data, must be non-empty), status_events are
// progress (the first one's time is first_status_ms), done_events end the
// answer, error_events are errors; any other event is bookkeeping.
type sseEvents struct {
	// token, reasoning, status, done and errs are the event names;
	// pointer the token pointer's reference tokens (nil: the whole data).
	token, reasoning, status, done, errs [][]byte
	pointer                              []string
	// doneData is sse.done_data: a data line that ends the answer (nil:
	// none).
	doneData []byte
}

var placeholderRE = regexp.MustCompile(`\{\{\s*([A-Za-z_]*)\s*\}\}`)

// sseBody is the sse.body template filled for a prompt (config lets a
// chain reach an sse target only when its body has {{messages}}).
func sseBody(ep Endpoint, pr config.Prompt) ([]byte, error) {
	body, _ := ep.Stream()
	b, err := json.Marshal(fill(body, placeholders(ep, pr)))
	if err != nil {
		return nil, fmt.Errorf("prompt %q: %s.body: %w", pr.ID, ep.APIName(), err)
	}
	return b, nil
}

// placeholders returns the values of an sse body's placeholders for a
// prompt (see config.SSEPlaceholders).
func placeholders(ep Endpoint, pr config.Prompt) map[string]any {
	system, conv := promptParts(pr.Messages)
	msgs := make([]map[string]string, len(pr.Messages))
	for i, m := range pr.Messages {
		msgs[i] = map[string]string{"role": m.Role, "content": m.Content}
	}
	last := ""
	for _, m := range conv {
		if m.Role == "user" {
			last = m.Content
		}
	}
	var temp any
	if ep.Temperature != nil {
		temp = *ep.Temperature
	}
	return map[string]any{"messages": msgs, "prompt": last, "system": joinText(system), "model": ep.Model, "max_tokens": ep.MaxTokens, "temperature": temp}
}

// fill replaces the placeholders of a body template: a string that is one
// placeholder becomes its value, a placeholder inside a longer string its
// text.
func fill(v any, vals map[string]any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = fill(e, vals)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = fill(e, vals)
		}
		return out
	case string:
		if m := placeholderRE.FindStringSubmatch(x); m != nil && m[0] == strings.TrimSpace(x) {
			return vals[m[1]]
		}
		return placeholderRE.ReplaceAllStringFunc(x, func(ph string) string {
			switch v := vals[placeholderRE.FindStringSubmatch(ph)[1]].(type) {
			case string:
				return v
			case int:
				return strconv.Itoa(v)
			case nil:
				return ""
			default:
				b, _ := json.Marshal(v)
				return string(b)
			}
		})
	}
	return v
}

func has(names [][]byte, name []byte) bool {
	for _, n := range names {
		if bytes.Equal(n, name) {
			return true
		}
	}
	return false
}

var messageEvent = []byte("message")

func (p *sseEvents) parse(event, data []byte, f *frame) {
	*f = frame{}
	if len(event) == 0 {
		event = messageEvent // the SSE name of an event without an event: line
	}
	switch {
	case p.doneData != nil && bytes.Equal(bytes.TrimSpace(data), p.doneData):
		f.done, f.finishReason = true, p.doneData
	case has(p.errs, event):
		f.isError = true
	case has(p.done, event):
		f.done, f.finishReason = true, event
	case has(p.status, event):
		f.status = true
	case has(p.token, event):
		f.content = p.text(data, f)
		if f.content && p.pointer == nil {
			f.text, f.plain = bytes.TrimSpace(data), true
		}
	case has(p.reasoning, event):
		f.reasoning = p.text(data, f)
	}
}

// text reports whether a token event's data holds token text: the string
// at the pointer is not empty (the data must then be a JSON object), or,
// without a pointer, the data is not empty.
func (p *sseEvents) text(data []byte, f *frame) bool {
	if p.pointer == nil {
		return len(bytes.TrimSpace(data)) > 0
	}
	var s scanner
	if !s.start(data, f) {
		return false
	}
	found := s.pointer(p.pointer, f)
	if s.ws(); s.bad || s.i != len(s.b) {
		*f = frame{malformed: true}
		return false
	}
	return found
}

// pointer consumes one value and reports whether the JSON pointer segs
// leads, within it, to a non-empty string.
func (s *scanner) pointer(segs []string, f *frame) bool {
	if len(segs) == 0 {
		f.text = s.str() // a reasoning event's is never kept: only content's
		return len(f.text) > 0
	}
	found := false
	switch s.peek() {
	case '{':
		s.object(func(key []byte) {
			if !found && string(key) == segs[0] {
				found = s.pointer(segs[1:], f)
				return
			}
			s.skip()
		})
	case '[':
		idx, err := strconv.Atoi(segs[0])
		s.array(func(i int) {
			if err == nil && i == idx {
				found = s.pointer(segs[1:], f)
				return
			}
			s.skip()
		})
	default:
		s.skip()
	}
	return found
}
