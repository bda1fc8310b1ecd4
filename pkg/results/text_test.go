package results

import (
	"errors"
	"testing"
)

func TestCheckText(t *testing.T) {
	tests := []struct {
		in   string
		want string // the problem, or "" for text a run can write
	}{
		{"", ""},
		{"gpt-4o-mini@eu-west", ""},
		{"fp_44709d6fcb · café ✓", ""},
		{"::error::looks odd but is one line", ""},
		{"a\nb", "holds the control character U+000A at byte 1: latgate never stores one"},
		{"\x1b[31mred", "holds the control character U+001B at byte 0: latgate never stores one"},
		{"tab\there", "holds the control character U+0009 at byte 3: latgate never stores one"},
		{"c1\u0085", "holds the control character U+0085 at byte 2: latgate never stores one"},
		{"bad\xff", "is not valid UTF-8"},
		// Text that displays otherwise than its bytes (Trojan-source style).
		{"sim\u202eLIAF", "holds the formatting character U+202E at byte 3: latgate never stores one"},
		{"fp\u2066YY", "holds the formatting character U+2066 at byte 2: latgate never stores one"},
		{"line\u2028sep", "holds the formatting character U+2028 at byte 4: latgate never stores one"},
		{"\ufeffbom", "holds the formatting character U+FEFF at byte 0: latgate never stores one"},
		{"a real \ufffd stays", ""},
	}
	for _, tt := range tests {
		err := CheckText("targets[0].model", tt.in)
		var de *DataError
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("CheckText(%q) = %v, want nil", tt.in, err)
		case tt.want != "" && (!errors.As(err, &de) || de.Path != "targets[0].model" || de.Problem != tt.want):
			t.Errorf("CheckText(%q) = %v, want targets[0].model: %s", tt.in, err, tt.want)
		}
	}
}
