package measure

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/latgate/latgate/pkg/config"
)

// ndjsonWire is a stream of newline-delimited JSON (Ollama's native
// /api/chat, many apps): POST {base_url} with the ndjson section's body
// template filled for each prompt, the key (if api_key_env is set) as
// Authorization: Bearer, and the ndjson.headers_env headers. Every
// non-empty line is one JSON object, read at the section's pointers
// (ndjsonLines); without done_pointer the end of the body ends the answer.
func ndjsonWire(ep Endpoint) (wire, error) {
	o := ep.NDJSON
	if o == nil {
		return wire{}, fmt.Errorf("api: ndjson needs an ndjson section")
	}
	p := &ndjsonLines{ptrs: [nPtrs][]string{
		ptrToken: segments(o.TokenPointer), ptrReasoning: segments(o.ReasoningPointer), ptrDone: segments(o.DonePointer),
		ptrFinish: segments(o.FinishPointer), ptrError: segments(o.ErrorPointer),
		ptrPrompt: segments(o.PromptTokensPointer), ptrOutput: segments(o.OutputTokensPointer), ptrModel: segments(o.ModelPointer),
	}}
	p.index()
	w := wire{
		keyHeader:  config.KeyHeader(config.APINDJSON),
		bearer:     true,
		body:       sseBody,
		parse:      p.parse,
		lines:      true,
		endsAtEOF:  p.ptrs[ptrDone] == nil,
		finishName: "done line",
		headers:    secretHeaders(ep), // proto_sse.go
	}
	return w, nil
}

// segments returns a JSON pointer's reference tokens, unescaped; nil for
// "" (no pointer).
func segments(ptr string) []string {
	if ptr == "" {
		return nil
	}
	segs := strings.Split(ptr, "/")[1:]
	for i, s := range segs {
		segs[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(s)
	}
	return segs
}

// The pointers of an ndjson target, by index into ndjsonLines.ptrs.
const (
	ptrToken = iota
	ptrReasoning
	ptrDone
	ptrFinish
	ptrError
	ptrPrompt
	ptrOutput
	ptrModel
	nPtrs
)

// ndjsonLines are the pointers of an ndjson target, each nil when unset:
// the answer text, the reasoning text, the done flag, the finish reason,
// the error, the usage's prompt and output token counts, and the model.
type ndjsonLines struct {
	ptrs [nPtrs][]string
	// idx holds each segment as an array index (-1 when it is none),
	// parsed once: the walk compares ints, and allocates nothing.
	idx [nPtrs][]int
}

// index parses the pointers' segments as array indices.
func (p *ndjsonLines) index() *ndjsonLines {
	for k, segs := range p.ptrs {
		p.idx[k] = make([]int, len(segs))
		for i, s := range segs {
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 || (len(s) > 1 && s[0] == '0') {
				n = -1 // RFC 6901: an index is 0 or digits without a leading 0
			}
			p.idx[k][i] = n
		}
	}
	return p
}

// all is the mask of the pointers that are set.
func (p *ndjsonLines) all() uint8 {
	var m uint8
	for k, segs := range p.ptrs {
		if segs != nil {
			m |= 1 << k
		}
	}
	return m
}

// parse reads one line: it must be a JSON object (else the frame is
// malformed), walked once, validating it and reading the value at each
// pointer on the way.
func (p *ndjsonLines) parse(_, data []byte, f *frame) {
	var s scanner
	if !s.start(data, f) {
		return
	}
	p.walk(&s, p.all(), 0, f)
	if s.end(f); f.malformed {
		return
	}
	if f.done && len(f.finishReason) == 0 {
		f.finishReason = doneWord
	}
}

// walk consumes one value at depth, the pointers of mask leading to it or
// into it: one that ends here reads it, the others go on into its keys or
// elements.
func (p *ndjsonLines) walk(s *scanner, mask uint8, depth int, f *frame) {
	for k := range nPtrs {
		if mask&(1<<k) != 0 && len(p.ptrs[k]) == depth {
			p.read(s, k, f)
			return
		}
	}
	switch s.peek() {
	case '{':
		s.object(func(key []byte) {
			if bytes.IndexByte(key, '\\') >= 0 {
				key = jsonText(key) // {"\u006dessage": …} is the key message (allocates: rare)
			}
			var m uint8
			for k := range nPtrs {
				if mask&(1<<k) != 0 && p.ptrs[k][depth] == string(key) {
					m |= 1 << k
				}
			}
			if m != 0 {
				p.walk(s, m, depth+1, f)
			}
		})
	case '[':
		s.array(func(i int) {
			var m uint8
			for k := range nPtrs {
				if mask&(1<<k) != 0 && p.idx[k][depth] == i {
					m |= 1 << k
				}
			}
			if m != 0 {
				p.walk(s, m, depth+1, f)
			}
		})
	default:
		s.skip()
	}
}

// read consumes the value of pointer k into f.
func (p *ndjsonLines) read(s *scanner, k int, f *frame) {
	switch k {
	case ptrToken:
		f.text = s.str()
		f.content = len(f.text) > 0
	case ptrReasoning:
		f.reasoning = s.nonEmptyString()
	case ptrFinish:
		f.finishReason = s.str()
	case ptrModel:
		f.model = s.str()
	case ptrError:
		switch s.peek() {
		case 'n', 'f':
			s.skip() // null or false: no error
		case '"':
			f.isError = s.nonEmptyString()
		default:
			f.isError = true
			s.skip()
		}
	case ptrDone:
		if s.peek() != 't' {
			s.skip()
			return
		}
		s.literal("true")
		f.done = !s.bad
	case ptrPrompt, ptrOutput:
		if !isDigit(s.peek()) {
			s.skip()
			return
		}
		n := s.integer()
		f.hasUsage = true
		if k == ptrPrompt {
			f.usage.prompt, f.usage.set = n, f.usage.set|usePrompt
		} else {
			f.usage.output, f.usage.set = n, f.usage.set|useOutput
		}
	}
}

// doneWord is the finish of a line whose done pointer is true when no
// finish pointer says more.
var doneWord = []byte("done")
