package history

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"
)

// FuzzParse: any bytes parse without a panic, and every non-blank line is
// accounted for, as a record (a run's or a sweep's), a problem with its
// line number, or a repeat of an earlier record's line; an
// append keeps every existing line and adds one record. The history branch
// is writable by anyone who can push to the repository, so its file is
// input like any other.
func FuzzParse(f *testing.F) {
	good, err := Encode(FromResults(runFile(rand.New(rand.NewPCG(1, 1)), 1, 1), meta(time.Unix(1e9, 0))))
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range [][]byte{good, append(good, good[:40]...), []byte("{}\n\n{\"schema\":\"latgate.history/v1\"}\n"),
		[]byte(`{"schema":"latgate.history/v1","at":"2026-01-01T00:00:00Z","targets":[{"prompts":[{"m":{"ttft":{"n":-1,"p50":1e308}}}]}]}`),
		[]byte("\xff\xfe\r\n[1,2]\n\"x\"\nnull\n")} {
		f.Add(seed)
	}
	next := FromResults(runFile(rand.New(rand.NewPCG(2, 2)), 1, 1), meta(time.Unix(2e9, 0)))
	f.Fuzz(func(t *testing.T, data []byte) {
		h := Parse(data)
		nonBlank := 0
		for _, l := range splitLines(data) {
			if len(bytes.TrimSpace(l)) > 0 {
				nonBlank++
			}
		}
		if got := len(h.Records) + len(h.Sweeps) + len(h.Problems) + h.Repeats; got != nonBlank {
			t.Fatalf("%d records + %d sweeps + %d problems + %d repeats for %d non-blank lines", len(h.Records), len(h.Sweeps), len(h.Problems), h.Repeats, nonBlank)
		}
		if len(h.Lines) != len(h.Records) {
			t.Fatalf("%d line numbers for %d records", len(h.Lines), len(h.Records))
		}
		// An append (in memory: the file part is atomicfile's) keeps every
		// line, mends a torn last one, and adds the record.
		line, err := Encode(next)
		if err != nil {
			t.Fatal(err)
		}
		lines, _ := appendLine(data, line, 0)
		var buf bytes.Buffer
		if err := writeLines(&buf, lines); err != nil {
			t.Fatal(err)
		}
		after := Parse(buf.Bytes())
		if len(after.Records) != len(h.Records)+1 || len(after.Problems) != len(h.Problems) {
			t.Fatalf("after an append: %d records, %d problems; want %d and %d", len(after.Records), len(after.Problems), len(h.Records)+1, len(h.Problems))
		}
	})
}
