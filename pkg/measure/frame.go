package measure

import (
	"bytes"
	"encoding/json"
)

// frame is what latgate needs from one SSE `data:` payload of a chat
// completion stream. It is filled without allocating: string values are
// only checked for emptiness, numbers parsed in place.
type frame struct {
	done      bool // data: [DONE]
	malformed bool // not valid JSON
	isError   bool // a top-level "error" key (OpenAI or Ollama shape)

	hasChoice    bool
	content      bool // non-empty delta.content
	reasoning    bool // non-empty delta.reasoning_content or delta.reasoning
	toolCall     bool // non-empty delta.tool_calls
	finishReason []byte

	hasUsage         bool
	completionTokens int
	promptTokens     int
	cachedTokens     int

	model       []byte // aliases the input; copy before keeping
	fingerprint []byte
}

// token reports whether the frame carries a token: content, reasoning or a
// tool call. Role-only, empty and usage chunks do not.
func (f *frame) token() bool { return f.content || f.reasoning || f.toolCall }

var doneMarker = []byte("[DONE]")

// parseFrame decodes one data payload. It never panics on any input.
func parseFrame(data []byte, f *frame) {
	*f = frame{}
	data = bytes.TrimSpace(data)
	if bytes.Equal(data, doneMarker) {
		f.done = true
		return
	}
	if !json.Valid(data) {
		f.malformed = true
		return
	}
	s := scanner{b: data}
	if s.peek() != '{' {
		f.malformed = true
		return
	}
	s.object(func(key []byte) {
		switch string(key) { // the compiler does not allocate for this switch
		case "choices":
			s.array(func(i int) {
				if i != 0 {
					s.skip()
					return
				}
				f.hasChoice = true
				s.object(func(key []byte) {
					switch string(key) {
					case "delta", "message":
						if s.peek() != '{' {
							s.skip()
							return
						}
						s.object(func(key []byte) {
							switch string(key) {
							case "content":
								f.content = s.nonEmptyString()
							case "reasoning_content", "reasoning":
								if s.nonEmptyString() {
									f.reasoning = true
								}
							case "tool_calls":
								f.toolCall = s.nonEmptyArray()
							default:
								s.skip()
							}
						})
					case "finish_reason":
						f.finishReason = s.str()
					default:
						s.skip()
					}
				})
			})
		case "usage":
			if s.peek() != '{' {
				s.skip()
				return
			}
			f.hasUsage = true
			s.object(func(key []byte) {
				switch string(key) {
				case "completion_tokens":
					f.completionTokens = s.integer()
				case "prompt_tokens":
					f.promptTokens = s.integer()
				case "prompt_tokens_details":
					if s.peek() != '{' {
						s.skip()
						return
					}
					s.object(func(key []byte) {
						if string(key) == "cached_tokens" {
							f.cachedTokens = s.integer()
							return
						}
						s.skip()
					})
				default:
					s.skip()
				}
			})
		case "model":
			f.model = s.str()
		case "system_fingerprint":
			f.fingerprint = s.str()
		case "error":
			f.isError = s.peek() != 'n' // "error": null is no error
			s.skip()
		default:
			s.skip()
		}
	})
}

// scanner walks JSON that json.Valid has accepted. Its methods assume
// validity and stay in bounds on any input.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// object calls fn for each key with the scanner at the value; fn must consume it.
func (s *scanner) object(fn func(key []byte)) {
	if s.peek() != '{' {
		s.skip()
		return
	}
	s.i++
	for {
		c := s.peek()
		if c == '}' || c == 0 {
			s.i++
			return
		}
		if c == ',' {
			s.i++
			continue
		}
		key := s.str()
		if s.peek() == ':' {
			s.i++
		}
		start := s.i
		fn(key)
		if s.i == start { // fn consumed nothing: make progress
			s.skip()
		}
	}
}

// array calls fn for each element index with the scanner at the element.
func (s *scanner) array(fn func(i int)) {
	if s.peek() != '[' {
		s.skip()
		return
	}
	s.i++
	for n := 0; ; {
		c := s.peek()
		if c == ']' || c == 0 {
			s.i++
			return
		}
		if c == ',' {
			s.i++
			continue
		}
		start := s.i
		fn(n)
		if s.i == start {
			s.skip()
		}
		n++
	}
}

// str returns the raw (still escaped) bytes of a string value, or nil for
// any other value, which it skips.
func (s *scanner) str() []byte {
	if s.peek() != '"' {
		s.skip()
		return nil
	}
	s.i++
	start := s.i
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '\\':
			s.i += 2
		case '"':
			v := s.b[start:s.i]
			s.i++
			return v
		default:
			s.i++
		}
	}
	return s.b[start:min(s.i, len(s.b))]
}

func (s *scanner) nonEmptyString() bool {
	if s.peek() != '"' {
		s.skip()
		return false
	}
	return len(s.str()) > 0
}

func (s *scanner) nonEmptyArray() bool {
	if s.peek() != '[' {
		s.skip()
		return false
	}
	n := 0
	s.array(func(int) { n++; s.skip() })
	return n > 0
}

// integer parses a non-negative integer value; anything else gives 0.
func (s *scanner) integer() int {
	s.ws()
	v, any := 0, false
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		if v < 1<<40 {
			v = v*10 + int(s.b[s.i]-'0')
		}
		s.i++
		any = true
	}
	if !any {
		s.skip()
		return 0
	}
	// a fraction or exponent ("12.0") is skipped, keeping the integer part
	for s.i < len(s.b) && isNumberByte(s.b[s.i]) {
		s.i++
	}
	return v
}

// skip skips one value of any kind.
func (s *scanner) skip() {
	switch s.peek() {
	case '"':
		s.str()
	case '{':
		s.object(func([]byte) { s.skip() })
	case '[':
		s.array(func(int) { s.skip() })
	case 0:
	default: // number, true, false, null
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return
			}
			s.i++
		}
	}
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}
