package serve

import "sync"

// Tail is an io.Writer that keeps the last lines written to it: at most
// n lines of at most width bytes each (a longer line keeps its start), so
// that a server that writes for hours holds a few kilobytes.
type Tail struct {
	mu      sync.Mutex
	n       int
	width   int
	lines   []string // ring of complete lines
	next    int      // where the next complete line goes in lines
	full    bool     // lines has wrapped
	cur     []byte   // the line being written (at most width bytes)
	cr      bool     // the last byte was a CR
	dropped int64    // complete lines no longer kept
}

// NewTail returns a Tail of n lines of at most width bytes.
func NewTail(n, width int) *Tail {
	return &Tail{n: n, width: width, lines: make([]string, n), cur: make([]byte, 0, width)}
}

// Write keeps p's lines; it never fails.
func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range p {
		switch {
		case c == '\n':
			t.push()
			t.cr = false
			continue
		case c == '\r':
			t.cr = true // CRLF ends a line; a lone CR redraws it (a progress bar)
			continue
		case t.cr:
			t.cur, t.cr = t.cur[:0], false
		}
		if len(t.cur) < t.width {
			t.cur = append(t.cur, c)
		}
	}
	return len(p), nil
}

func (t *Tail) push() {
	if t.full {
		t.dropped++
	}
	t.lines[t.next] = string(t.cur)
	t.cur = t.cur[:0]
	t.next++
	if t.next == t.n {
		t.next, t.full = 0, true
	}
}

// Lines returns the kept lines, oldest first (a last line without its
// newline included), and how many earlier lines were dropped.
func (t *Tail) Lines() (lines []string, dropped int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.full {
		lines = append(lines, t.lines[t.next:]...)
	}
	lines = append(lines, t.lines[:t.next]...)
	if len(t.cur) > 0 {
		if len(lines) == t.n {
			lines, dropped = lines[1:], 1
		}
		lines = append(lines, string(t.cur))
	}
	return lines, t.dropped + dropped
}
