package sanitize

import (
	"io"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Writer redacts everything written through it before it reaches the
// underlying writer. It holds back an end of the text that could be part of
// a secret until more text or Flush arrives, so a secret, or a fragment of
// one, split over two writes is still caught. Call Flush when done.
//
// With NoCommands, a line whose first non-blank characters are "::" gets a
// zero-width space between the colons: stderr, and stdout outside the
// annotation writer, never carry a GitHub workflow command.
type Writer struct {
	mu         sync.Mutex
	w          io.Writer
	r          *Redactor
	noCommands bool
	pending    []byte // not yet redacted
	lineStart  bool
}

// NewWriter returns a Writer on w that redacts r's secrets; with noCommands
// it also neutralises workflow commands (see Writer).
func NewWriter(w io.Writer, r *Redactor, noCommands bool) *Writer {
	return &Writer{w: w, r: r, noCommands: noCommands, lineStart: true}
}

// Write redacts p (with what is pending) and writes what is safe to write.
func (sw *Writer) Write(p []byte) (int, error) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	sw.pending = append(sw.pending, p...)
	// Pass on what is pending, redacted, but for an end that the next write
	// could turn into (more of) a secret, or half of a "::".
	text := string(sw.pending)
	cut, spans := sw.r.hold(text)
	if sw.noCommands {
		for cut > 0 && text[cut-1] == ':' && (len(spans) == 0 || spans[len(spans)-1].hi < cut) {
			cut--
		}
		// Nor half of a character: it may be white space before a "::".
		if i := lastRuneStart(text[:cut]); i >= 0 && !utf8.FullRuneInString(text[i:cut]) && (len(spans) == 0 || spans[len(spans)-1].hi <= i) {
			cut = i
		}
	}
	if cut > 0 {
		if err := sw.emit(apply(text[:cut], spans)); err != nil {
			return 0, err
		}
	}
	sw.pending = append(sw.pending[:0], text[cut:]...)
	return len(p), nil
}

// Flush writes what is pending.
func (sw *Writer) Flush() error {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if len(sw.pending) == 0 {
		return nil
	}
	err := sw.emit(sw.r.Redact(string(sw.pending)))
	sw.pending = sw.pending[:0]
	return err
}

// Raw returns a writer that flushes what is pending and then writes
// redacted but with workflow commands intact: for the annotation writer,
// whose "::error" lines are meant.
func (sw *Writer) Raw() io.Writer { return rawWriter{sw} }

type rawWriter struct{ sw *Writer }

func (rw rawWriter) Write(p []byte) (int, error) {
	if err := rw.sw.Flush(); err != nil {
		return 0, err
	}
	rw.sw.mu.Lock()
	defer rw.sw.mu.Unlock()
	if _, err := io.WriteString(rw.sw.w, rw.sw.r.Redact(string(p))); err != nil {
		return 0, err
	}
	rw.sw.lineStart = len(p) > 0 && p[len(p)-1] == '\n'
	return len(p), nil
}

func (sw *Writer) emit(s string) error {
	if sw.noCommands {
		s = sw.neutralise(s)
	}
	_, err := io.WriteString(sw.w, s)
	return err
}

// neutralise puts a zero-width space between the colons of a "::" that
// starts a line (after white space, which the runner trims: any Unicode
// white space, as .NET's Trim does).
func (sw *Writer) neutralise(s string) string {
	var b []byte
	blank := sw.lineStart
	for i := 0; i < len(s); {
		c := s[i]
		size := 1
		switch {
		case c == '\n' || c == '\r':
			blank = true
		case c == ':' && blank && i+1 < len(s) && s[i+1] == ':':
			if b == nil {
				b = append(make([]byte, 0, len(s)+8), s[:i]...)
			}
			b = append(b, ":\u200b"...)
			blank = false
			i++
			continue
		case c < utf8.RuneSelf:
			blank = blank && unicode.IsSpace(rune(c))
		default:
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			blank = blank && unicode.IsSpace(r)
		}
		if b != nil {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	sw.lineStart = blank
	if b == nil {
		return s
	}
	return string(b)
}

// lastRuneStart returns the index of the byte that starts the last
// character of s (at most utf8.UTFMax back), or -1 for an empty s.
func lastRuneStart(s string) int {
	i := len(s) - 1
	for i > 0 && len(s)-i < utf8.UTFMax && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}
