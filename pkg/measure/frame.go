package measure

import "bytes"

// frame is what latgate needs from one SSE data payload, whatever the API:
// each wire row's parse fills it without allocating, in one pass that also
// validates the JSON (string values are only checked for emptiness,
// numbers parsed in place). parseFrame below is the chat completion one.
type frame struct {
	done      bool // the end of the stream: data: [DONE], message_stop, response.completed
	malformed bool // not valid JSON
	isError   bool // an error event or frame (a top-level "error" key in the OpenAI or Ollama shape)

	hasChoice    bool
	content      bool // a non-empty answer delta (delta.content, text_delta, output_text.delta, a text part)
	reasoning    bool // a non-empty reasoning delta (reasoning_content or reasoning, thinking_delta, a thought part)
	toolCall     bool // a tool-call delta (delta.tool_calls, a tool_use block, function call arguments)
	status       bool // a status event of an app's stream: progress, never a token
	finishReason []byte
	// text is the answer text of a content frame, as the frame has it
	// (escaped JSON string content; plain, unescaped, when plain is set);
	// it aliases the input. A chain's step keeps it (chain.go).
	text  []byte
	plain bool

	hasUsage bool
	usage    tokenUsage

	id          []byte // aliases the input; copy before keeping
	model       []byte
	fingerprint []byte
}

// token reports whether the frame carries a token: content, reasoning or a
// tool call. Role-only, empty, control, status and usage frames do not.
func (f *frame) token() bool { return f.content || f.reasoning || f.toolCall }

var doneMarker = []byte("[DONE]")

// parseFrame decodes one data payload. A payload is malformed exactly when
// json.Valid rejects it or it is not an object; then only f.malformed is set.
// It never panics on any input.
func parseFrame(data []byte, f *frame) {
	*f = frame{}
	data = bytes.TrimSpace(data)
	if bytes.Equal(data, doneMarker) {
		f.done = true
		return
	}
	s := scanner{b: data}
	if s.peek() != '{' {
		f.malformed = true
		return
	}
	defer s.end(f)
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
								f.text = s.str()
								f.content = len(f.text) > 0
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
			u := &f.usage
			s.object(func(key []byte) {
				switch string(key) {
				case "completion_tokens":
					u.output = s.integer()
					u.set |= useOutput
				case "prompt_tokens":
					u.prompt = s.integer()
					u.set |= usePrompt
				case "prompt_tokens_details":
					s.object(func(key []byte) {
						if string(key) == "cached_tokens" {
							u.cached = s.integer()
							u.set |= useCached
							return
						}
						s.skip()
					})
				case "completion_tokens_details":
					s.object(func(key []byte) {
						if string(key) == "reasoning_tokens" {
							u.reasoning = s.integer()
							u.set |= useReasoning
							return
						}
						s.skip()
					})
				default:
					s.skip()
				}
			})
		case "id":
			f.id = s.str()
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

// scanner walks JSON and validates it as it goes, with the grammar of
// json.Valid (RFC 8259; strings are not checked for valid UTF-8, nesting is
// limited to maxDepth): at the first invalid byte it sets bad and moves to
// the end, so every method then returns at once. Each value method consumes
// exactly one value.
type scanner struct {
	b     []byte
	i     int
	depth int
	bad   bool
}

// end marks f malformed, and nothing else, when the scan failed or left
// bytes after the value: the check every parse makes when it is done.
func (s *scanner) end(f *frame) {
	if s.ws(); s.bad || s.i != len(s.b) {
		*f = frame{malformed: true}
	}
}

// start begins the scan of one data payload that must be a JSON object:
// it resets f, and reports false (f marked malformed) when the payload is
// not an object at all.
func (s *scanner) start(data []byte, f *frame) bool {
	*f = frame{}
	*s = scanner{b: bytes.TrimSpace(data)}
	if s.peek() != '{' {
		f.malformed = true
		return false
	}
	return true
}

// maxDepth is the nesting limit of encoding/json.
const maxDepth = 10000

func (s *scanner) fail() {
	s.bad = true
	s.i = len(s.b)
}

func (s *scanner) ws() {
	b, i := s.b, s.i
	for i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	s.i = i
}

// peek returns the next byte after whitespace, 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// object calls fn for each key with the scanner at the value; fn should
// consume it (it is skipped otherwise). A value that is not an object is
// skipped.
func (s *scanner) object(fn func(key []byte)) {
	if s.peek() != '{' {
		s.skip()
		return
	}
	if s.depth++; s.depth > maxDepth {
		s.fail()
		return
	}
	s.i++
	if s.peek() == '}' {
		s.i++
		s.depth--
		return
	}
	for {
		if s.peek() != '"' {
			s.fail()
			return
		}
		key := s.str()
		if s.peek() != ':' {
			s.fail()
			return
		}
		s.i++
		if s.peek() != 0 {
			// start is after the whitespace: a value fn left unread is
			// skipped (and validated) even when spaces came before it.
			start := s.i
			fn(key)
			if s.i == start {
				s.skip()
			}
		} else {
			s.fail()
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			s.depth--
			return
		default:
			s.fail()
			return
		}
	}
}

// array calls fn for each element index with the scanner at the element;
// fn should consume it (it is skipped otherwise). A value that is not an
// array is skipped.
func (s *scanner) array(fn func(i int)) {
	if s.peek() != '[' {
		s.skip()
		return
	}
	if s.depth++; s.depth > maxDepth {
		s.fail()
		return
	}
	s.i++
	if s.peek() == ']' {
		s.i++
		s.depth--
		return
	}
	for n := 0; ; n++ {
		if s.peek() != 0 {
			start := s.i
			fn(n)
			if s.i == start {
				s.skip()
			}
		} else {
			s.fail()
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			s.depth--
			return
		default:
			s.fail()
			return
		}
	}
}

// str returns the raw (still escaped) bytes of a string value, or nil for
// any other value, which it skips.
func (s *scanner) str() []byte {
	if s.peek() != '"' {
		s.skip()
		return nil
	}
	b := s.b
	start := s.i + 1
	for i := start; i < len(b); {
		switch c := b[i]; {
		case c >= 0x20 && c != '"' && c != '\\':
			i++
		case c == '"':
			s.i = i + 1
			return b[start:i]
		case c == '\\':
			s.i = i
			if !s.escape() {
				s.fail()
				return nil
			}
			i = s.i
		default: // a control character
			s.fail()
			return nil
		}
	}
	s.fail()
	return nil
}

// escape consumes a valid escape sequence at s.i (the backslash).
func (s *scanner) escape() bool {
	if s.i+1 >= len(s.b) {
		return false
	}
	switch s.b[s.i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		s.i += 2
		return true
	case 'u':
		if s.i+6 > len(s.b) {
			return false
		}
		for _, h := range s.b[s.i+2 : s.i+6] {
			if !isHex(h) {
				return false
			}
		}
		s.i += 6
		return true
	}
	return false
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

// integer returns the integer part of a non-negative number value
// ("12.0" gives 12); a negative number or any other value gives 0.
func (s *scanner) integer() int {
	if c := s.peek(); c != '-' && !isDigit(c) {
		s.skip()
		return 0
	}
	start := s.i
	s.number()
	v := 0
	for _, c := range s.b[start:s.i] {
		if !isDigit(c) {
			break
		}
		if v < 1<<40 {
			v = v*10 + int(c-'0')
		}
	}
	return v
}

// number consumes -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() {
	b, i := s.b, s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		s.fail()
		return
	}
	if i < len(b) && b[i] == '.' {
		if i++; i >= len(b) || !isDigit(b[i]) {
			s.fail()
			return
		}
		i = digits(b, i)
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		if i++; i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			s.fail()
			return
		}
		i = digits(b, i)
	}
	s.i = i
}

func digits(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

// literal consumes the literal word (true, false or null).
func (s *scanner) literal(word string) {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		s.fail()
		return
	}
	s.i += len(word)
}

// skip consumes one value of any kind.
func (s *scanner) skip() {
	switch c := s.peek(); {
	case c == '"':
		s.str()
	case c == '{':
		s.object(func([]byte) { s.skip() })
	case c == '[':
		s.array(func(int) { s.skip() })
	case c == 't':
		s.literal("true")
	case c == 'f':
		s.literal("false")
	case c == 'n':
		s.literal("null")
	case c == '-' || isDigit(c):
		s.number()
	default:
		s.fail()
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
