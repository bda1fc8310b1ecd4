package publish

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestStderrFoldsInATerminal: in a terminal a long message on stderr wraps
// at 100 columns, its line breaks kept; in a pipe or a CI log it stays one
// line (for grep), as it was.
func TestStderrFoldsInATerminal(t *testing.T) {
	long := "the run drifted while it was measured: " + strings.Repeat("ttft p50 +80% [+70%, +87%]; ", 12) + "bless again"
	for _, tty := range []bool{true, false} {
		var out, errb strings.Builder
		s := New(Options{Stdout: &out, Stderr: &errb, StderrIsTerminal: tty})
		s.Warn("%s\nsecond line", long)
		s.Flush()
		lines := strings.Split(strings.TrimSuffix(errb.String(), "\n"), "\n")
		widest := 0
		for _, l := range lines {
			widest = max(widest, utf8.RuneCountInString(l))
		}
		joined := strings.Join(strings.Fields(errb.String()), " ")
		if !strings.Contains(joined, "bless again second line") && !strings.Contains(joined, "bless again") {
			t.Errorf("tty %v: the message lost words:\n%s", tty, errb.String())
		}
		if lines[len(lines)-1] != "second line" {
			t.Errorf("tty %v: the message's own line break is gone:\n%s", tty, errb.String())
		}
		switch {
		case tty && (widest > 100 || len(lines) < 4):
			t.Errorf("in a terminal: %d lines, %d columns at most; want it wrapped at 100:\n%s", len(lines), widest, errb.String())
		case !tty && len(lines) != 2:
			t.Errorf("in a pipe: %d lines; want the message on one line and its second line:\n%s", len(lines), errb.String())
		}
	}
}
