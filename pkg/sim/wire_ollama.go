package sim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// ollamaWire is Ollama's native chat API, POST /api/chat: newline-delimited
// JSON (Content-Type application/x-ndjson), one object per token
// {"model":…,"created_at":…,"message":{"role":"assistant","content":…},"done":false}
// (reasoning as message.thinking), and a last object with done: true,
// done_reason and the prompt and output token counts (prompt_eval_count,
// eval_count). It reads model, messages and options.num_predict, and the
// key, when the simulator has one, as Authorization: Bearer (a proxy in
// front of Ollama; Ollama itself takes none).
type ollamaWire struct{}

func (ollamaWire) contentType() string { return "application/x-ndjson" }

// ping is a blank line: NDJSON has no comments, and readers skip blank
// lines between objects.
func (ollamaWire) ping() []byte { return []byte("\n") }

func (ollamaWire) decode(body []byte) (simRequest, error) {
	var or struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		Stream  *bool `json:"stream"`
		Options struct {
			NumPredict *int `json:"num_predict"`
		} `json:"options"`
	}
	if err := json.Unmarshal(body, &or); err != nil {
		return simRequest{}, err
	}
	// Ollama streams unless told not to.
	req := simRequest{model: or.Model, stream: or.Stream == nil || *or.Stream, usage: true, maxTokens: or.Options.NumPredict}
	size := 0
	for _, m := range or.Messages {
		size += len(m.Content)
		req.prompt += m.Content
		if m.Role == "assistant" {
			req.turns++
		}
	}
	req.promptTokens = max(1, (size+3)/4)
	return req, nil
}

func (ollamaWire) authorized(r *http.Request, key string) bool {
	return r.Header.Get("Authorization") == "Bearer "+key
}

func (ollamaWire) presented(r *http.Request) string { return r.Header.Get("Authorization") }

func (ollamaWire) finish(kind string) string {
	if kind == "length" {
		return "length"
	}
	return "stop"
}

func (ollamaWire) writeError(w http.ResponseWriter, status int, _, _, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

func (ollamaWire) open(st *stream, a *answer) error {
	b := append([]byte(nil), `{"model":`...)
	b = append(b, a.modelJSON...)
	b = append(b, `,"created_at":"`...)
	st.prefix = b
	err := st.rc.Flush()
	st.last = time.Now()
	return err
}

// line appends one object: the prefix, its creation time, the message.
func (ollamaWire) line(st *stream, field, text string, done bool) []byte {
	b := append(st.buf[:0], st.prefix...)
	b = time.Now().UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","message":{"role":"assistant","`...)
	b = append(b, field...)
	b = append(b, `":`...)
	b = append(b, text...)
	b = append(b, `},"done":`...)
	b = strconv.AppendBool(b, done)
	st.buf = b
	return b
}

func (w ollamaWire) token(st *stream, _ *answer, p piece) []byte {
	field := "content"
	if p.kind == pieceReasoning {
		field = "thinking"
	}
	b := append(w.line(st, field, p.text, false), "}\n"...)
	st.buf = b
	return b
}

func (w ollamaWire) close(st *stream, a *answer) error {
	b := w.line(st, "content", `""`, true)
	b = fmt.Appendf(b, `,"done_reason":%q,"total_duration":1,"prompt_eval_count":%d,"eval_count":%d}`+"\n", a.finish, a.promptTokens, a.n)
	st.buf = b
	return st.emit(b, false)
}

func (ollamaWire) malformed() []byte { return []byte("{not json\n") }

func (ollamaWire) fault(st *stream, _ *answer, _ bool) {
	_ = st.emit([]byte(`{"error":"simulated mid-stream failure"}`+"\n"), false)
}
