package sim

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// wire is one API's side of the simulator: how its requests read, how its
// errors and events look. The schedule (Profile.Plan), the faults, the
// keep-alives, the flush record and the waits are the stream's, shared by
// every API.
type wire interface {
	// decode reads a request body.
	decode(body []byte) (simRequest, error)
	// authorized reports whether r carries key the way the API sends it;
	// presented returns what r carried (for the echo_key fault).
	authorized(r *http.Request, key string) bool
	presented(r *http.Request) string
	// finish names a finish in the API's words: "" a natural stop,
	// "length" the max_tokens cap, "tool" a tool call.
	finish(kind string) string
	// writeError writes an error answer in the API's shape (typ and code
	// are OpenAI's words; each API maps them to its own).
	writeError(w http.ResponseWriter, status int, typ, code, msg string)
	// open writes and flushes the events that go out with the headers;
	// token returns the event of one token (valid until the next call);
	// close writes the closing events.
	open(st *stream, a *answer) error
	token(st *stream, a *answer, p piece) []byte
	close(st *stream, a *answer) error
	// malformed returns a frame that is not JSON; fault writes the
	// error_frame (or, str, error_string) fault's events.
	malformed() []byte
	fault(st *stream, a *answer, str bool)
}

// chatWire is OpenAI Chat Completions (and the Ollama style of it).
type chatWire struct{}

func (chatWire) decode(body []byte) (simRequest, error) {
	var cr chatRequest
	if err := json.Unmarshal(body, &cr); err != nil {
		return simRequest{}, err
	}
	req := simRequest{model: cr.Model, stream: cr.Stream, maxTokens: cr.MaxTokens,
		usage: cr.StreamOptions != nil && cr.StreamOptions.IncludeUsage}
	if cr.MaxCompletionTokens != nil {
		req.maxTokens = cr.MaxCompletionTokens
	}
	size := 0
	for _, m := range cr.Messages {
		size += len(m.Content)
		req.prompt += textOf(m.Content)
		if m.Role == "assistant" {
			req.turns++
		}
	}
	req.promptTokens = max(1, (size+3)/4)
	if len(cr.Tools) > 0 {
		req.tool = cr.Tools[0].Function.Name
		var choice struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		var s string
		switch {
		case json.Unmarshal(cr.ToolChoice, &s) == nil && s == "none":
			req.tool = ""
		case json.Unmarshal(cr.ToolChoice, &choice) == nil && choice.Function.Name != "":
			req.tool = choice.Function.Name
		}
	}
	return req, nil
}

func (chatWire) authorized(r *http.Request, key string) bool {
	return r.Header.Get("Authorization") == "Bearer "+key
}

func (chatWire) presented(r *http.Request) string { return r.Header.Get("Authorization") }

func (chatWire) finish(kind string) string {
	switch kind {
	case "length":
		return "length"
	case "tool":
		return "tool_calls"
	}
	return "stop"
}

func (chatWire) writeError(w http.ResponseWriter, status int, typ, code, msg string) {
	writeError(w, status, typ, code, msg)
}

func (chatWire) open(st *stream, a *answer) error {
	st.prefix = st.appendPrefix(nil, a, "chat.completion.chunk")
	if st.s.p.RoleChunk {
		return st.emit(st.chunk(`"role":"assistant","content":""`, "", ""), false)
	}
	err := st.rc.Flush()
	st.last = time.Now()
	return err
}

func (chatWire) token(st *stream, a *answer, p piece) []byte {
	s := st.s
	switch p.kind {
	case pieceReasoning:
		return st.chunk(s.reasonHead, p.text, "")
	case pieceToolStart:
		b := append(st.buf[:0], st.prefix...)
		b = append(b, `{"index":0,"delta":{`...)
		if s.p.Style == StyleOllama {
			b = append(b, `"role":"assistant","content":"",`...)
		}
		b = append(b, `"tool_calls":[{"index":0,"id":"call_sim-`...)
		b = strconv.AppendInt(b, int64(a.seq), 10)
		b = append(b, `","type":"function","function":{"name":`...)
		b = strconv.AppendQuote(b, p.text)
		b = append(b, `,"arguments":""}}]},"finish_reason":null}]}`+"\n\n"...)
		st.buf = b
		return b
	case pieceToolArg:
		b := append(st.buf[:0], st.prefix...)
		b = append(b, `{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":`...)
		b = append(b, p.text...)
		b = append(b, `}}]},"finish_reason":null}]}`+"\n\n"...)
		st.buf = b
		return b
	}
	return st.chunk(s.contentHead, p.text, "")
}

func (chatWire) close(st *stream, a *answer) error {
	if err := st.emit(st.chunk(st.s.finalDelta, "", a.finish), false); err != nil {
		return err
	}
	if a.usage {
		if err := st.emit(st.usageChunk(a), false); err != nil {
			return err
		}
	}
	return st.emit([]byte(doneFrame), false)
}

func (chatWire) malformed() []byte { return []byte(malformedFrame) }

func (chatWire) fault(st *stream, _ *answer, str bool) {
	if str {
		_ = st.emit([]byte(errorStringFrame), false)
		return
	}
	if st.emit([]byte(errorFrame), false) == nil {
		_ = st.emit([]byte(doneFrame), false)
	}
}

// pinger is a wire whose keep-alive is an event of its own (Anthropic's
// ping) rather than an SSE comment.
type pinger interface{ ping() []byte }

// appendEvent appends "event: NAME\ndata: " to b.
func appendEvent(b []byte, name string) []byte {
	b = append(b, "event: "...)
	b = append(b, name...)
	return append(b, "\ndata: "...)
}

// appendSeq appends `"sequence_number":N,` and counts the event.
func (st *stream) appendSeq(b []byte) []byte {
	b = append(b, `"sequence_number":`...)
	b = strconv.AppendInt(b, int64(st.seqNo), 10)
	st.seqNo++
	return append(b, ',')
}

// appendID appends prefix + "sim-" + the request number.
func appendID(b []byte, prefix string, seq int) []byte {
	b = append(b, prefix...)
	b = append(b, "sim-"...)
	return strconv.AppendInt(b, int64(seq), 10)
}

// text returns the answer's text of the given kind, as the APIs repeat it
// in their closing events.
func (st *stream) text(a *answer, reasoning bool) string {
	var b strings.Builder
	for k := range a.n {
		switch p := st.piece(a, k, -1); {
		case reasoning && p.kind == pieceReasoning, !reasoning && (p.kind == pieceContent || p.kind == pieceToolArg):
			b.WriteString(unquoteJSON(p.text))
		}
	}
	return b.String()
}

// unquoteJSON decodes a pre-quoted JSON string.
func unquoteJSON(q string) string {
	var s string
	if json.Unmarshal([]byte(q), &s) != nil {
		return ""
	}
	return s
}

// quote returns s as a JSON string.
func quote(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}

// textSize is the bytes of text in a JSON value: strings' lengths,
// recursively (a prompt's size, whatever its shape).
func textSize(raw json.RawMessage) int {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return len(raw)
	}
	var size func(any) int
	size = func(v any) int {
		switch x := v.(type) {
		case string:
			return len(x)
		case []any:
			n := 0
			for _, e := range x {
				n += size(e)
			}
			return n
		case map[string]any:
			n := 0
			for k, e := range x {
				if k == "text" || k == "content" || k == "parts" || k == "input" {
					n += size(e)
				}
			}
			return n
		}
		return 0
	}
	return size(v)
}

// tokensOf is a text size in tokens, 4 bytes each, at least 1.
func tokensOf(size int) int { return max(1, (size+3)/4) }
