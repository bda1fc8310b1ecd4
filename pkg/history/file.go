package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/latgate/latgate/internal/atomicfile"
	"github.com/latgate/latgate/internal/inputfile"
)

// Problem is a line of the history file that was skipped.
type Problem struct {
	Line int    // 1-based
	What string // why it was skipped, and what to do
}

func (p Problem) String() string { return fmt.Sprintf("line %d: %s", p.Line, p.What) }

// File is a read history: the records in file order (oldest first, as they
// were appended), the line each came from, and the lines skipped.
type File struct {
	Path     string
	Records  []Record
	Lines    []int
	Problems []Problem
}

// MaxFileSize bounds the history file read into memory (--history-keep
// bounds it in use: 1000 runs of 10 prompts are about 5 MB).
const MaxFileSize = 256 << 20

// Read reads the history at path. A malformed line (not JSON, another
// schema, no time) is reported in Problems with its line number and skipped;
// nothing else is lost. A missing file is an error wrapping fs.ErrNotExist.
func Read(path string) (*File, error) {
	data, err := readBounded(path)
	if err != nil {
		return nil, err
	}
	f := Parse(data)
	f.Path = path
	return f, nil
}

// readBounded reads the history through inputfile, as every input latgate
// takes is read: a regular file only, opened without blocking (a FIFO
// named by mistake or malice is refused at once, never waited on), at most
// MaxFileSize bytes.
func readBounded(path string) ([]byte, error) {
	data, err := inputfile.Read(path, MaxFileSize)
	switch {
	case errors.Is(err, inputfile.ErrTooLarge):
		return nil, fmt.Errorf("history %s: %w; trim it with --history-keep N", path, err)
	case err != nil:
		return nil, fmt.Errorf("history %s: %w", path, err)
	}
	return data, nil
}

// Parse decodes history bytes (JSON Lines). It never fails: bad lines become
// Problems. Blank lines are ignored.
func Parse(data []byte) *File {
	f := &File{}
	for i, line := range splitLines(data) {
		n := i + 1
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		rec, err := decodeLine(line)
		if err != nil {
			f.Problems = append(f.Problems, Problem{Line: n, What: err.Error()})
			continue
		}
		f.Records = append(f.Records, rec)
		f.Lines = append(f.Lines, n)
	}
	return f
}

// splitLines splits on '\n'; a last line without one (a torn write) is a line.
func splitLines(data []byte) [][]byte {
	lines := bytes.Split(data, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func decodeLine(line []byte) (Record, error) {
	var r Record
	err := json.Unmarshal(line, &r) // one pass over the line: the common case
	if err != nil {
		var head struct {
			Schema string `json:"schema"`
		}
		if herr := json.Unmarshal(line, &head); herr != nil {
			return Record{}, fmt.Errorf("not a JSON object (%s); skipped: fix or delete the line", clipErr(herr))
		}
		r.Schema = head.Schema
	}
	switch {
	case r.Schema == "":
		return Record{}, errors.New(`no "schema" field: not a latgate history record; skipped`)
	case r.Schema != Schema:
		if strings.HasPrefix(r.Schema, "latgate.history/") {
			return Record{}, fmt.Errorf("schema %q is newer than this latgate reads (%s); skipped: upgrade latgate", Clean(r.Schema), Schema)
		}
		return Record{}, fmt.Errorf("schema %q is not a latgate history record; skipped", Clean(r.Schema))
	case err != nil:
		return Record{}, fmt.Errorf("malformed record (%s); skipped", clipErr(err))
	case r.At.IsZero():
		return Record{}, errors.New(`record has no "at" time; skipped`)
	}
	r.clean()
	return r, nil
}

// clean passes every text field of a record read back through Clean: latgate
// wrote them clean, but anyone who can push to the history branch can edit
// the file, and trend prints them into the CI log, reports and issues.
func (r *Record) clean() {
	for _, p := range []*string{&r.Commit, &r.Version, &r.Command, &r.Verdict, &r.ConfigHash,
		&r.Runner.OS, &r.Runner.Arch, &r.Runner.Name, &r.Runner.Labels, &r.Runner.Region, &r.Runner.Environment} {
		*p = Clean(*p)
	}
	for i := range r.Targets {
		t := &r.Targets[i]
		t.Name, t.Region, t.Model = Clean(t.Name), Clean(t.Region), Clean(t.Model)
		for k := range t.ReturnedModels {
			t.ReturnedModels[k] = Clean(t.ReturnedModels[k])
		}
		for k := range t.SystemFingerprints {
			t.SystemFingerprints[k] = Clean(t.SystemFingerprints[k])
		}
		for j := range t.Prompts {
			t.Prompts[j].ID, t.Prompts[j].Hash = Clean(t.Prompts[j].ID), Clean(t.Prompts[j].Hash)
		}
	}
}

func clipErr(err error) string { return Clean(err.Error()) }

// Encode returns r as one JSON line, newline included.
func Encode(r Record) ([]byte, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encoding history record: %w", err)
	}
	return append(b, '\n'), nil
}

// AppendResult says what Append did.
type AppendResult struct {
	Bytes   int // the new record's size, newline included
	Records int // records in the file afterwards
	Dropped int // lines dropped by retention
}

// Append adds r to the history at path, creating it, and keeps at most keep
// records (0: all), dropping the oldest lines.
//
// It rewrites the whole file (a temporary file beside it, fsync, rename),
// never appends in place. An O_APPEND write of one line is atomic for
// concurrent writers on a local disk, but not against a crash: a process
// killed in the middle, or a full disk, leaves a torn last line, and the next
// append glues its record onto it, losing both. A rename leaves the old file
// or the new one, whole, whatever happens; retention needs a rewrite anyway,
// and the cost is linear in a file --history-keep bounds. Existing lines are
// copied byte for byte, malformed ones included (nothing is lost that a
// person could still repair), and a torn last line gets its newline back.
// Two processes appending to the same file at the same moment can lose one
// record (the last rename wins): run one writer at a time (the example
// workflow's concurrency group does).
func Append(path string, r Record, keep int) (AppendResult, error) {
	line, err := Encode(r)
	if err != nil {
		return AppendResult{}, err
	}
	old, err := readBounded(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return AppendResult{}, err
	}
	lines, dropped := appendLine(old, line, keep)
	res := AppendResult{Bytes: len(line), Dropped: dropped}
	for _, l := range lines {
		if isRecord(l) {
			res.Records++
		}
	}
	err = atomicfile.Write(path, 0o644, func(w io.Writer) error { return writeLines(w, lines) })
	if err != nil {
		return AppendResult{}, fmt.Errorf("history: %w", err)
	}
	return res, nil
}

// Trim keeps the newest keep records of the history at path (atomic rewrite)
// and returns how many lines it dropped: the lines before the oldest kept
// record; every line after it stays.
func Trim(path string, keep int) (int, error) {
	old, err := readBounded(path)
	if err != nil {
		return 0, err
	}
	lines, dropped := retain(splitLines(old), keep)
	if dropped == 0 {
		return 0, nil
	}
	if err := atomicfile.Write(path, 0o644, func(w io.Writer) error { return writeLines(w, lines) }); err != nil {
		return 0, fmt.Errorf("history: %w", err)
	}
	return dropped, nil
}

// appendLine is Append without the file: the lines of old, then line (a
// record with its newline), less what keep drops.
func appendLine(old, line []byte, keep int) ([][]byte, int) {
	lines := append(splitLines(old), line[:len(line)-1])
	return retain(lines, keep)
}

// retain drops the lines before the keep-th newest record (malformed and
// blank lines among them too). keep ≤ 0 keeps everything.
func retain(lines [][]byte, keep int) ([][]byte, int) {
	if keep <= 0 {
		return lines, 0
	}
	seen := 0
	for i := len(lines) - 1; i >= 0; i-- {
		if isRecord(lines[i]) {
			seen++
			if seen == keep {
				return lines[i:], i
			}
		}
	}
	return lines, 0
}

func isRecord(line []byte) bool {
	_, err := decodeLine(line)
	return err == nil
}

func writeLines(w io.Writer, lines [][]byte) error {
	for _, l := range lines {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		if _, err := w.Write(l); err != nil {
			return err
		}
		if _, err := w.Write([]byte{'\n'}); err != nil {
			return err
		}
	}
	return nil
}
