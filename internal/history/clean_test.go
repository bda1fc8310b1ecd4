package history

import (
	"strings"
	"testing"
)

// TestClean: text read back from a history file is one line of text that
// displays as its bytes: controls, line separators, bidirectional
// overrides and isolates and the byte-order mark become spaces, "::" loses
// its power, and it is clipped.
func TestClean(t *testing.T) {
	tests := []struct{ in, want string }{
		{"runner-1", "runner-1"},
		{"café ✓ ok", "café ✓ ok"},
		{"a\nb\rc\x1b[31m", "a b c [31m"},
		{"run\u202eX", "run X"},
		{"abcdef00\u2066LIVE\u2069", "abcdef00 LIVE "},
		{"\ufeffbom\u2028sep", " bom sep"},
		{"::error::forged", ": :error: :forged"},
		{strings.Repeat("x", 300), strings.Repeat("x", 199) + "…"},
	}
	for _, tt := range tests {
		if got := Clean(tt.in); got != tt.want {
			t.Errorf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
