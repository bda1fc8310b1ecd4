package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
)

// anthropicWire is the Anthropic Messages API, POST /v1/messages, with its
// documented event sequence: message_start (the id, model and input usage)
// and a ping with the headers; per content block a content_block_start, its
// deltas (thinking_delta, then a signature_delta; text_delta; or
// input_json_delta after a tool_use block's start) and a content_block_stop;
// message_delta with the stop_reason and the output usage; message_stop.
// The key is sent as x-api-key. A block with cache_control is a cache
// breakpoint: the first request with the prompt up to it writes the cache
// (cache_creation_input_tokens), later ones read it (cache_read_input_tokens).
type anthropicWire struct{}

type anthropicRequest struct {
	Model     string          `json:"model"`
	MaxTokens *int            `json:"max_tokens"`
	Stream    bool            `json:"stream"`
	System    json.RawMessage `json:"system"`
	Messages  []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
	ToolChoice *struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tool_choice"`
}

// block is a content block of a request (text with an optional cache
// breakpoint), or a plain string.
type block struct {
	Text         string          `json:"text"`
	CacheControl json.RawMessage `json:"cache_control"`
}

// blocks reads a string or a list of blocks.
func blocks(raw json.RawMessage) []block {
	if len(raw) == 0 {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []block{{Text: s}}
	}
	var bs []block
	_ = json.Unmarshal(raw, &bs)
	return bs
}

func (anthropicWire) decode(body []byte) (simRequest, error) {
	var ar anthropicRequest
	if err := json.Unmarshal(body, &ar); err != nil {
		return simRequest{}, err
	}
	if ar.MaxTokens == nil {
		return simRequest{}, errors.New("max_tokens: Field required")
	}
	if len(ar.Messages) == 0 {
		return simRequest{}, errors.New("messages: at least one message is required")
	}
	req := simRequest{model: ar.Model, stream: ar.Stream, maxTokens: ar.MaxTokens, usage: true}
	var text []byte
	all := blocks(ar.System)
	for _, m := range ar.Messages {
		all = append(all, blocks(m.Content)...)
		if m.Role == "assistant" {
			req.turns++
		}
	}
	for _, b := range all {
		text = append(text, b.Text...)
		if len(b.CacheControl) > 0 && string(b.CacheControl) != "null" {
			req.cachePrefix = string(text)
		}
	}
	req.promptTokens, req.prompt = tokensOf(len(text)), string(text)
	if req.cachePrefix != "" {
		req.cacheTokens = min(tokensOf(len(req.cachePrefix)), req.promptTokens)
	}
	if len(ar.Tools) > 0 {
		req.tool = ar.Tools[0].Name
		if tc := ar.ToolChoice; tc != nil {
			switch {
			case tc.Type == "none":
				req.tool = ""
			case tc.Type == "tool" && tc.Name != "":
				req.tool = tc.Name
			}
		}
	}
	return req, nil
}

func (anthropicWire) authorized(r *http.Request, key string) bool {
	return r.Header.Get("X-Api-Key") == key
}

func (anthropicWire) presented(r *http.Request) string { return r.Header.Get("X-Api-Key") }

func (anthropicWire) finish(kind string) string {
	switch kind {
	case "length":
		return "max_tokens"
	case "tool":
		return "tool_use"
	}
	return "end_turn"
}

// anthropicErrorType is the error type Anthropic names for a status.
func anthropicErrorType(status int) string {
	switch status {
	case http.StatusBadRequest, http.StatusMethodNotAllowed:
		return "invalid_request_error"
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusForbidden:
		return "permission_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case 529, http.StatusServiceUnavailable:
		return "overloaded_error"
	}
	return "api_error"
}

func (anthropicWire) writeError(w http.ResponseWriter, status int, _, _, msg string) {
	type apiError struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	writeJSON(w, status, struct {
		Type      string   `json:"type"`
		Error     apiError `json:"error"`
		RequestID string   `json:"request_id"`
	}{"error", apiError{anthropicErrorType(status), msg}, "req_sim"})
}

func (anthropicWire) ping() []byte { return []byte("event: ping\ndata: {\"type\": \"ping\"}\n\n") }

// appendUsage appends Anthropic's usage: the input excludes the tokens
// read from and written to the cache.
func (anthropicWire) appendUsage(b []byte, a *answer, output int) []byte {
	return fmt.Appendf(b, `{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":%d`,
		a.promptTokens-a.cached-a.cacheCreation, a.cacheCreation, a.cached, output)
}

func (w anthropicWire) open(st *stream, a *answer) error {
	b := appendEvent(nil, "message_start")
	b = append(b, `{"type":"message_start","message":{"id":"`...)
	b = appendID(b, "msg-", a.seq)
	b = append(b, `","type":"message","role":"assistant","model":`...)
	b = append(b, a.modelJSON...)
	b = append(b, `,"content":[],"stop_reason":null,"stop_sequence":null,"usage":`...)
	b = w.appendUsage(b, a, 1)
	b = append(b, "}}}\n\n"...)
	b = append(b, w.ping()...)
	return st.emit(b, false)
}

// blockIndex is the index of the content block of token kind reasoning
// (the thinking block comes first) or not.
func (anthropicWire) blockIndex(a *answer, reasoning bool) int {
	if reasoning || a.reasoning == 0 {
		return 0
	}
	return 1
}

func appendBlockDelta(b []byte, index int, kind, field, text string) []byte {
	b = appendEvent(b, "content_block_delta")
	b = append(b, `{"type":"content_block_delta","index":`...)
	b = strconv.AppendInt(b, int64(index), 10)
	b = append(b, `,"delta":{"type":"`...)
	b = append(b, kind...)
	b = append(b, `","`...)
	b = append(b, field...)
	b = append(b, `":`...)
	b = append(b, text...)
	return append(b, "}}\n\n"...)
}

func appendBlockStop(b []byte, index int) []byte {
	b = appendEvent(b, "content_block_stop")
	b = append(b, `{"type":"content_block_stop","index":`...)
	b = strconv.AppendInt(b, int64(index), 10)
	return append(b, "}\n\n"...)
}

// closeThinking appends the end of the thinking block: its signature and
// its stop.
func closeThinking(b []byte) []byte {
	b = appendBlockDelta(b, 0, "signature_delta", "signature", `"sig_sim"`)
	return appendBlockStop(b, 0)
}

func (w anthropicWire) token(st *stream, a *answer, p piece) []byte {
	b := st.buf[:0]
	i := w.blockIndex(a, p.kind == pieceReasoning)
	if p.first && p.kind != pieceReasoning && a.reasoning > 0 {
		b = closeThinking(b)
	}
	if p.first {
		b = appendEvent(b, "content_block_start")
		b = append(b, `{"type":"content_block_start","index":`...)
		b = strconv.AppendInt(b, int64(i), 10)
		switch p.kind {
		case pieceReasoning:
			b = append(b, `,"content_block":{"type":"thinking","thinking":"","signature":""}}`+"\n\n"...)
		case pieceContent:
			b = append(b, `,"content_block":{"type":"text","text":""}}`+"\n\n"...)
		default: // the tool call's start is its first token
			b = append(b, `,"content_block":{"type":"tool_use","id":"`...)
			b = appendID(b, "toolu_", a.seq)
			b = append(b, `","name":`...)
			b = strconv.AppendQuote(b, a.tool)
			b = append(b, `,"input":{}}}`+"\n\n"...)
		}
	}
	switch p.kind {
	case pieceReasoning:
		b = appendBlockDelta(b, i, "thinking_delta", "thinking", p.text)
	case pieceContent:
		b = appendBlockDelta(b, i, "text_delta", "text", p.text)
	case pieceToolArg:
		b = appendBlockDelta(b, i, "input_json_delta", "partial_json", p.text)
	}
	st.buf = b
	return b
}

func (w anthropicWire) close(st *stream, a *answer) error {
	var b []byte
	switch {
	case a.n > a.reasoning:
		b = appendBlockStop(b, w.blockIndex(a, false))
	case a.n > 0: // thinking only
		b = closeThinking(b)
	}
	b = appendEvent(b, "message_delta")
	b = append(b, `{"type":"message_delta","delta":{"stop_reason":"`...)
	b = append(b, a.finish...)
	b = append(b, `","stop_sequence":null},"usage":`...)
	b = w.appendUsage(b, a, a.n)
	b = fmt.Appendf(b, `,"output_tokens_details":{"thinking_tokens":%d}}}`+"\n\n", a.reasoning)
	b = appendEvent(b, "message_stop")
	b = append(b, `{"type":"message_stop"}`+"\n\n"...)
	return st.emit(b, false)
}

func (anthropicWire) malformed() []byte {
	return []byte("event: content_block_delta\ndata: {not json\n\n")
}

func (anthropicWire) fault(st *stream, _ *answer, str bool) {
	typ, msg := "overloaded_error", "Overloaded"
	if str {
		typ, msg = "api_error", "Internal server error"
	}
	_ = st.emit(fmt.Appendf(nil, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":%q,\"message\":%q}}\n\n", typ, msg), false)
}
