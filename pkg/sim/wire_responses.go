package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
)

// responsesWire is the OpenAI Responses API, POST /v1/responses, with its
// documented event sequence: response.created and response.in_progress
// with the headers; for reasoning a reasoning item whose summary text
// streams as response.reasoning_summary_text.delta; a message item whose
// text streams as response.output_text.delta (or a function_call item
// whose arguments stream as response.function_call_arguments.delta); the
// .done events of each; response.completed (or response.incomplete at the
// max_output_tokens cap) with the usage. Every event's data repeats its
// name as "type" and carries a sequence_number.
type responsesWire struct{}

type responsesRequest struct {
	Model           string          `json:"model"`
	Input           json.RawMessage `json:"input"`
	Instructions    string          `json:"instructions"`
	MaxOutputTokens *int            `json:"max_output_tokens"`
	Stream          bool            `json:"stream"`
	Tools           []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tools"`
	ToolChoice json.RawMessage `json:"tool_choice"`
}

func (responsesWire) decode(body []byte) (simRequest, error) {
	var rr responsesRequest
	if err := json.Unmarshal(body, &rr); err != nil {
		return simRequest{}, err
	}
	if len(rr.Input) == 0 {
		return simRequest{}, errors.New("missing input")
	}
	req := simRequest{model: rr.Model, stream: rr.Stream, maxTokens: rr.MaxOutputTokens, usage: true,
		promptTokens: tokensOf(textSize(rr.Input) + len(rr.Instructions)), prompt: rr.Instructions + textOf(rr.Input), turns: assistantTurns(rr.Input)}
	if len(rr.Tools) > 0 {
		req.tool = rr.Tools[0].Name
		var s string
		var named struct {
			Name string `json:"name"`
		}
		switch {
		case json.Unmarshal(rr.ToolChoice, &s) == nil && s == "none":
			req.tool = ""
		case json.Unmarshal(rr.ToolChoice, &named) == nil && named.Name != "":
			req.tool = named.Name
		}
	}
	return req, nil
}

func (responsesWire) authorized(r *http.Request, key string) bool {
	return r.Header.Get("Authorization") == "Bearer "+key
}

func (responsesWire) presented(r *http.Request) string { return r.Header.Get("Authorization") }

func (responsesWire) finish(kind string) string {
	if kind == "length" {
		return "max_output_tokens" // response.incomplete's incomplete_details.reason
	}
	return "completed"
}

func (responsesWire) writeError(w http.ResponseWriter, status int, typ, code, msg string) {
	writeError(w, status, typ, code, msg) // the OpenAI shape
}

// appendResponse appends the response object of the opening and closing
// events: status, and for a closing event its usage.
func (st *stream) appendResponse(b []byte, a *answer, status string, closing bool) []byte {
	b = append(b, `"response":{"id":"`...)
	b = appendID(b, "resp-", a.seq)
	b = append(b, `","object":"response","created_at":`...)
	b = strconv.AppendInt(b, st.start.Unix(), 10)
	b = append(b, `,"status":"`...)
	b = append(b, status...)
	b = append(b, `","model":`...)
	b = append(b, a.modelJSON...)
	b = append(b, `,"output":[]`...)
	if status == "incomplete" {
		b = append(b, `,"incomplete_details":{"reason":"max_output_tokens"}`...)
	} else {
		b = append(b, `,"incomplete_details":null`...)
	}
	b = append(b, `,"usage":`...)
	if !closing || !a.usage {
		return append(b, "null}"...)
	}
	return fmt.Appendf(b, `{"input_tokens":%d,"input_tokens_details":{"cached_tokens":%d},"output_tokens":%d,"output_tokens_details":{"reasoning_tokens":%d},"total_tokens":%d}}`,
		a.promptTokens, a.cached, a.n, a.reasoning, a.promptTokens+a.n)
}

func (w responsesWire) open(st *stream, a *answer) error {
	var b []byte
	for _, name := range []string{"response.created", "response.in_progress"} {
		b = appendEvent(b, name)
		b = append(b, `{"type":"`+name+`",`...)
		b = st.appendSeq(b)
		b = st.appendResponse(b, a, "in_progress", false)
		b = append(b, "}\n\n"...)
	}
	return st.emit(b, false)
}

// Output items of a Responses answer: the reasoning item comes first.
func (responsesWire) outputIndex(a *answer, reasoning bool) int {
	if reasoning || a.reasoning == 0 {
		return 0
	}
	return 1
}

func (w responsesWire) appendItemEvent(st *stream, b []byte, a *answer, name string, idPrefix string, reasoning bool) []byte {
	b = appendEvent(b, name)
	b = append(b, `{"type":"`...)
	b = append(b, name...)
	b = append(b, `",`...)
	b = st.appendSeq(b)
	b = append(b, `"item_id":"`...)
	b = appendID(b, idPrefix, a.seq)
	b = append(b, `","output_index":`...)
	return strconv.AppendInt(b, int64(w.outputIndex(a, reasoning)), 10)
}

// closeReasoning appends the events that end the reasoning item.
func (w responsesWire) closeReasoning(st *stream, b []byte, a *answer) []byte {
	text := quote(st.text(a, true))
	b = w.appendItemEvent(st, b, a, "response.reasoning_summary_text.done", "rs-", true)
	b = append(b, `,"summary_index":0,"text":`...)
	b = append(b, text...)
	b = append(b, "}\n\n"...)
	b = w.appendItemEvent(st, b, a, "response.reasoning_summary_part.done", "rs-", true)
	b = append(b, `,"summary_index":0,"part":{"type":"summary_text","text":`...)
	b = append(b, text...)
	b = append(b, "}}\n\n"...)
	b = appendEvent(b, "response.output_item.done")
	b = append(b, `{"type":"response.output_item.done",`...)
	b = st.appendSeq(b)
	b = append(b, `"output_index":0,"item":{"id":"`...)
	b = appendID(b, "rs-", a.seq)
	b = append(b, `","type":"reasoning","summary":[{"type":"summary_text","text":`...)
	b = append(b, text...)
	return append(b, "}]}}\n\n"...)
}

func (w responsesWire) token(st *stream, a *answer, p piece) []byte {
	b := st.buf[:0]
	switch p.kind {
	case pieceReasoning:
		if p.first {
			b = appendEvent(b, "response.output_item.added")
			b = append(b, `{"type":"response.output_item.added",`...)
			b = st.appendSeq(b)
			b = append(b, `"output_index":0,"item":{"id":"`...)
			b = appendID(b, "rs-", a.seq)
			b = append(b, `","type":"reasoning","summary":[]}}`+"\n\n"...)
			b = w.appendItemEvent(st, b, a, "response.reasoning_summary_part.added", "rs-", true)
			b = append(b, `,"summary_index":0,"part":{"type":"summary_text","text":""}}`+"\n\n"...)
		}
		b = w.appendItemEvent(st, b, a, "response.reasoning_summary_text.delta", "rs-", true)
		b = append(b, `,"summary_index":0,"delta":`...)
		b = append(b, p.text...)
		b = append(b, "}\n\n"...)
	case pieceContent:
		if p.first {
			if a.reasoning > 0 {
				b = w.closeReasoning(st, b, a)
			}
			b = appendEvent(b, "response.output_item.added")
			b = append(b, `{"type":"response.output_item.added",`...)
			b = st.appendSeq(b)
			b = append(b, `"output_index":`...)
			b = strconv.AppendInt(b, int64(w.outputIndex(a, false)), 10)
			b = append(b, `,"item":{"id":"`...)
			b = appendID(b, "msg-", a.seq)
			b = append(b, `","type":"message","status":"in_progress","role":"assistant","content":[]}}`+"\n\n"...)
			b = w.appendItemEvent(st, b, a, "response.content_part.added", "msg-", false)
			b = append(b, `,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}`+"\n\n"...)
		}
		b = w.appendItemEvent(st, b, a, "response.output_text.delta", "msg-", false)
		b = append(b, `,"content_index":0,"delta":`...)
		b = append(b, p.text...)
		b = append(b, `,"logprobs":[]}`+"\n\n"...)
	case pieceToolStart:
		if a.reasoning > 0 {
			b = w.closeReasoning(st, b, a)
		}
		b = appendEvent(b, "response.output_item.added")
		b = append(b, `{"type":"response.output_item.added",`...)
		b = st.appendSeq(b)
		b = append(b, `"output_index":`...)
		b = strconv.AppendInt(b, int64(w.outputIndex(a, false)), 10)
		b = append(b, `,"item":{"id":"`...)
		b = appendID(b, "fc-", a.seq)
		b = append(b, `","type":"function_call","status":"in_progress","arguments":"","call_id":"`...)
		b = appendID(b, "call_", a.seq)
		b = append(b, `","name":`...)
		b = strconv.AppendQuote(b, p.text)
		b = append(b, "}}\n\n"...)
	case pieceToolArg:
		b = w.appendItemEvent(st, b, a, "response.function_call_arguments.delta", "fc-", false)
		b = append(b, `,"delta":`...)
		b = append(b, p.text...)
		b = append(b, "}\n\n"...)
	}
	st.buf = b
	return b
}

func (w responsesWire) close(st *stream, a *answer) error {
	var b []byte
	switch {
	case a.n == a.reasoning && a.reasoning > 0: // reasoning only
		b = w.closeReasoning(st, b, a)
	case a.n > a.reasoning && a.tool != "":
		args := quote(st.text(a, false))
		b = w.appendItemEvent(st, b, a, "response.function_call_arguments.done", "fc-", false)
		b = append(b, `,"arguments":`...)
		b = append(b, args...)
		b = append(b, "}\n\n"...)
		b = appendEvent(b, "response.output_item.done")
		b = append(b, `{"type":"response.output_item.done",`...)
		b = st.appendSeq(b)
		b = fmt.Appendf(b, `"output_index":%d,"item":{"id":"fc-sim-%d","type":"function_call","status":"completed","arguments":%s,"call_id":"call_sim-%d","name":%s}}`+"\n\n",
			w.outputIndex(a, false), a.seq, args, a.seq, quote(a.tool))
	case a.n > a.reasoning:
		text := quote(st.text(a, false))
		b = w.appendItemEvent(st, b, a, "response.output_text.done", "msg-", false)
		b = append(b, `,"content_index":0,"text":`...)
		b = append(b, text...)
		b = append(b, `,"logprobs":[]}`+"\n\n"...)
		b = w.appendItemEvent(st, b, a, "response.content_part.done", "msg-", false)
		b = append(b, `,"content_index":0,"part":{"type":"output_text","text":`...)
		b = append(b, text...)
		b = append(b, `,"annotations":[]}}`+"\n\n"...)
		b = appendEvent(b, "response.output_item.done")
		b = append(b, `{"type":"response.output_item.done",`...)
		b = st.appendSeq(b)
		b = fmt.Appendf(b, `"output_index":%d,"item":{"id":"msg-sim-%d","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":%s,"annotations":[]}]}}`+"\n\n",
			w.outputIndex(a, false), a.seq, text)
	}
	name, status := "response.completed", "completed"
	if a.finish == "max_output_tokens" {
		name, status = "response.incomplete", "incomplete"
	}
	b = appendEvent(b, name)
	b = append(b, `{"type":"`+name+`",`...)
	b = st.appendSeq(b)
	b = st.appendResponse(b, a, status, true)
	b = append(b, "}\n\n"...)
	return st.emit(b, false)
}

func (responsesWire) malformed() []byte {
	return []byte("event: response.output_text.delta\ndata: {not json\n\n")
}

func (responsesWire) fault(st *stream, a *answer, str bool) {
	var b []byte
	if str { // response.failed, the response's own error
		b = appendEvent(b, "response.failed")
		b = append(b, `{"type":"response.failed",`...)
		b = st.appendSeq(b)
		b = fmt.Appendf(b, `"response":{"id":"resp-sim-%d","object":"response","status":"failed","model":%s,"output":[],"error":{"code":"server_error","message":"simulated mid-stream failure"},"usage":null}}`+"\n\n",
			a.seq, a.modelJSON)
	} else {
		b = appendEvent(b, "error")
		b = append(b, `{"type":"error",`...)
		b = st.appendSeq(b)
		b = append(b, `"code":"server_error","message":"simulated mid-stream failure","param":null}`+"\n\n"...)
	}
	_ = st.emit(b, false)
}
