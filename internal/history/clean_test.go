package history

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
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

// TestParseRepeatedLines: a line that repeats an earlier one byte for byte
// (a union merge of the history branch) is one run, read once, with a
// warning naming the lines; two runs alike but for their time stay two.
func TestParseRepeatedLines(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	var lines [][]byte
	for i := range 3 {
		line, err := Encode(FromResults(runFile(rng, 1, 1), meta(time.Unix(1e9+int64(i)*86400, 0))))
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line)
	}
	data := bytes.Join([][]byte{lines[0], lines[1], lines[2], lines[2], lines[1], lines[2]}, nil)
	f := Parse(data)
	if len(f.Records) != 3 {
		t.Errorf("%d records, want the 3 runs once each", len(f.Records))
	}
	want := "3 lines repeat an earlier line byte for byte (line 4 repeats line 3;"
	if !slices.ContainsFunc(f.Warnings, func(w string) bool { return strings.HasPrefix(w, want) }) {
		t.Errorf("warnings %q lack %q", f.Warnings, want)
	}
	if f := Parse(bytes.Join(lines, nil)); len(f.Records) != 3 || len(f.Warnings) != 0 {
		t.Errorf("distinct runs: %d records, warnings %q", len(f.Records), f.Warnings)
	}
	// A bad line repeated is a problem at each of its lines (the fuzzer's
	// "{} \n{} " had its second line vanish, neither record nor problem).
	bad := Parse([]byte("{} \n" + string(lines[0]) + "{} "))
	if got := []int{len(bad.Records), len(bad.Problems), bad.Repeats}; !slices.Equal(got, []int{1, 2, 0}) {
		t.Errorf("a bad line twice: records, problems, repeats = %v, want [1 2 0] (problems %+v)", got, bad.Problems)
	} else if bad.Problems[0].Line != 1 || bad.Problems[1].Line != 3 {
		t.Errorf("problems at lines %d and %d, want 1 and 3", bad.Problems[0].Line, bad.Problems[1].Line)
	}
}

// TestWarnFuture: records dated beyond an hour after now are warned of,
// naming how many and the latest's line; a clock a little ahead is not.
func TestWarnFuture(t *testing.T) {
	now := time.Unix(1e9, 0)
	rng := rand.New(rand.NewPCG(1, 1))
	var data []byte
	for _, at := range []time.Time{now.Add(-24 * time.Hour), now.Add(30 * time.Minute), now.Add(48 * time.Hour), now.Add(24 * time.Hour)} {
		line, err := Encode(FromResults(runFile(rng, 1, 1), meta(at)))
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, line...)
	}
	f := Parse(data)
	f.WarnFuture(now)
	want := "2 records are dated after now (the latest, line 3, at " + now.Add(48*time.Hour).UTC().Format(time.RFC3339) + ")"
	future := func(w string) bool { return strings.Contains(w, "dated after now") }
	if !slices.ContainsFunc(f.Warnings, func(w string) bool { return strings.HasPrefix(w, want) }) {
		t.Errorf("warnings %q, want one starting %q", f.Warnings, want)
	}
	f = Parse(data)
	if f.WarnFuture(now.Add(72 * time.Hour)); slices.ContainsFunc(f.Warnings, future) {
		t.Errorf("no record is after now, yet %q", f.Warnings)
	}
}
