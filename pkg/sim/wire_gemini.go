package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// geminiWire is the Gemini API's POST
// /v1beta/models/MODEL:streamGenerateContent?alt=sse: every event is a
// whole GenerateContentResponse as `data:` with CRLF line ends, no event
// names and no end marker; thoughts are parts with "thought": true; the
// last token's event carries the finishReason and the full usageMetadata
// (an answer without tokens gets an empty text part with them). The key
// is sent as x-goog-api-key. The simulator answers tool declarations with
// text (Gemini sends a function call whole, in one part, not as a stream).
type geminiWire struct{ model string }

// geminiModel returns the model of a streamGenerateContent path, or "".
func geminiModel(path string) string {
	for _, prefix := range []string{"/v1beta/models/", "/v1/models/"} {
		if rest, ok := strings.CutPrefix(path, prefix); ok {
			if m, ok := strings.CutSuffix(rest, ":streamGenerateContent"); ok && m != "" && !strings.Contains(m, "/") {
				return m
			}
		}
	}
	return ""
}

type geminiRequest struct {
	Contents          json.RawMessage `json:"contents"`
	SystemInstruction json.RawMessage `json:"systemInstruction"`
	GenerationConfig  struct {
		MaxOutputTokens *int `json:"maxOutputTokens"`
	} `json:"generationConfig"`
}

func (w geminiWire) decode(body []byte) (simRequest, error) {
	var gr geminiRequest
	if err := json.Unmarshal(body, &gr); err != nil {
		return simRequest{}, err
	}
	if len(gr.Contents) == 0 {
		return simRequest{}, errors.New("contents is not specified")
	}
	size := textSize(gr.Contents)
	if len(gr.SystemInstruction) > 0 {
		size += textSize(gr.SystemInstruction)
	}
	return simRequest{model: w.model, stream: true, maxTokens: gr.GenerationConfig.MaxOutputTokens, usage: true, promptTokens: tokensOf(size),
		prompt: textOf(gr.SystemInstruction) + textOf(gr.Contents), turns: assistantTurns(gr.Contents)}, nil
}

func (geminiWire) authorized(r *http.Request, key string) bool {
	return r.Header.Get("X-Goog-Api-Key") == key || r.URL.Query().Get("key") == key
}

func (geminiWire) presented(r *http.Request) string { return r.Header.Get("X-Goog-Api-Key") }

func (geminiWire) finish(kind string) string {
	if kind == "length" {
		return "MAX_TOKENS"
	}
	return "STOP"
}

// geminiStatus is the canonical status Google APIs name for an HTTP status.
func geminiStatus(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "INVALID_ARGUMENT"
	case http.StatusUnauthorized:
		return "UNAUTHENTICATED"
	case http.StatusForbidden:
		return "PERMISSION_DENIED"
	case http.StatusNotFound:
		return "NOT_FOUND"
	case http.StatusTooManyRequests:
		return "RESOURCE_EXHAUSTED"
	case http.StatusServiceUnavailable:
		return "UNAVAILABLE"
	}
	return "INTERNAL"
}

func (geminiWire) writeError(w http.ResponseWriter, status int, _, _, msg string) {
	type apiError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
	}
	writeJSON(w, status, struct {
		Error apiError `json:"error"`
	}{apiError{status, msg, geminiStatus(status)}})
}

func (geminiWire) open(st *stream, _ *answer) error {
	err := st.rc.Flush() // Gemini sends nothing before the first chunk
	st.last = time.Now()
	return err
}

// appendChunk appends one GenerateContentResponse event holding one text
// part (text pre-quoted; a thought when thought is set).
func (geminiWire) appendChunk(b []byte, a *answer, text string, thought bool, finish string) []byte {
	b = append(b, `data: {"candidates":[{"content":{"parts":[{"text":`...)
	b = append(b, text...)
	if thought {
		b = append(b, `,"thought":true`...)
	}
	b = append(b, `}],"role":"model"},`...)
	if finish != "" {
		b = append(b, `"finishReason":"`...)
		b = append(b, finish...)
		b = append(b, `",`...)
	}
	b = append(b, `"index":0}],"usageMetadata":{"promptTokenCount":`...)
	b = strconv.AppendInt(b, int64(a.promptTokens), 10)
	if finish != "" {
		b = fmt.Appendf(b, `,"candidatesTokenCount":%d,"totalTokenCount":%d`, a.n-a.reasoning, a.promptTokens+a.n)
		if a.cached > 0 {
			b = fmt.Appendf(b, `,"cachedContentTokenCount":%d`, a.cached)
		}
		if a.reasoning > 0 {
			b = fmt.Appendf(b, `,"thoughtsTokenCount":%d`, a.reasoning)
		}
	} else {
		b = append(b, `,"totalTokenCount":`...)
		b = strconv.AppendInt(b, int64(a.promptTokens), 10)
	}
	b = append(b, `},"modelVersion":`...)
	b = append(b, a.modelJSON...)
	b = append(b, `,"responseId":"`...)
	b = appendID(b, "gemini-", a.seq)
	return append(b, "\"}\r\n\r\n"...)
}

// token returns a token's chunk; the last one carries the finishReason and
// the full usage, as Gemini's last chunk does.
func (w geminiWire) token(st *stream, a *answer, p piece) []byte {
	finish := ""
	if p.k == a.n-1 {
		finish = a.finish
	}
	st.buf = w.appendChunk(st.buf[:0], a, p.text, p.kind == pieceReasoning, finish)
	return st.buf
}

// close sends a finish of its own only for an answer without tokens.
func (w geminiWire) close(st *stream, a *answer) error {
	if a.n > 0 {
		return nil
	}
	return st.emit(w.appendChunk(nil, a, `""`, false, a.finish), false)
}

func (geminiWire) malformed() []byte { return []byte("data: {not json\r\n\r\n") }

func (geminiWire) fault(st *stream, _ *answer, str bool) {
	code, status, msg := 503, "UNAVAILABLE", "The model is overloaded. Please try again later."
	if str {
		code, status, msg = 500, "INTERNAL", "An internal error has occurred."
	}
	_ = st.emit(fmt.Appendf(nil, "data: {\"error\":{\"code\":%d,\"message\":%q,\"status\":%q}}\r\n\r\n", code, msg, status), false)
}
