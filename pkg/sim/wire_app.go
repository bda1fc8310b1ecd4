package sim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// appWire is an app's own streaming endpoint, POST /app/chat, of the kind
// teams put in front of a model (auth, retrieval, a rewrite step, then the
// model's tokens): an SSE stream whose first event is a status
// ("retrieving", with the event id app-sim-N), then one delta event
// {"text": …} per token (reasoning as reasoning events), then a done event.
// It reads max_tokens and model from the body when they are there, and the
// key as Authorization: Bearer.
type appWire struct{}

func (appWire) decode(body []byte) (simRequest, error) {
	var v map[string]json.RawMessage
	if err := json.Unmarshal(body, &v); err != nil {
		return simRequest{}, err
	}
	req := simRequest{model: "sim", stream: true, usage: true, promptTokens: tokensOf(len(body)), prompt: string(body)}
	for _, raw := range v { // the conversation, wherever the body template put it
		req.turns += assistantTurns(raw)
	}
	var model string
	if json.Unmarshal(v["model"], &model) == nil && model != "" {
		req.model = model
	}
	var n int
	if json.Unmarshal(v["max_tokens"], &n) == nil && n > 0 {
		req.maxTokens = &n
	}
	return req, nil
}

func (appWire) authorized(r *http.Request, key string) bool {
	return r.Header.Get("Authorization") == "Bearer "+key
}

func (appWire) presented(r *http.Request) string { return r.Header.Get("Authorization") }

func (appWire) finish(kind string) string {
	if kind == "length" {
		return "length"
	}
	return "stop"
}

func (appWire) writeError(w http.ResponseWriter, status int, _, _, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

func (appWire) open(st *stream, a *answer) error {
	b := fmt.Appendf(nil, "id: app-sim-%d\nevent: status\ndata: {\"stage\":\"retrieving\"}\n\n", a.seq)
	err := st.emit(b, false)
	st.last = time.Now()
	return err
}

func (appWire) token(st *stream, _ *answer, p piece) []byte {
	b := st.buf[:0]
	if p.kind == pieceReasoning {
		b = append(b, "event: reasoning\ndata: {\"text\":"...)
	} else {
		b = append(b, "event: delta\ndata: {\"text\":"...)
	}
	b = append(b, p.text...)
	b = append(b, "}\n\n"...)
	st.buf = b
	return b
}

func (appWire) close(st *stream, a *answer) error {
	return st.emit(fmt.Appendf(nil, "event: done\ndata: {\"reason\":%q,\"output_tokens\":%d}\n\n", a.finish, a.n), false)
}

func (appWire) malformed() []byte { return []byte("event: delta\ndata: {not json\n\n") }

func (appWire) fault(st *stream, _ *answer, _ bool) {
	_ = st.emit([]byte("event: error\ndata: {\"message\":\"simulated mid-stream failure\"}\n\n"), false)
}
