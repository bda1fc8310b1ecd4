package history

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/latgate/latgate/internal/atomicfile"
	"github.com/latgate/latgate/internal/inputfile"
)

// Problem is a line of the history file that was skipped.
type Problem struct {
	Line int    // 1-based
	What string // why it was skipped, and what to do
}

func (p Problem) String() string { return fmt.Sprintf("line %d: %s", p.Line, p.What) }

// File is a read history: the records oldest first by their time ("at"),
// the line each came from, the lines skipped, and warnings about the file
// (records out of time order).
type File struct {
	Path     string
	Records  []Record
	Lines    []int
	Problems []Problem
	Warnings []string
	// Sweeps are the records of `latgate sweep` (Command "sweep"), oldest
	// first: each target's knee, not latency series, so they are kept out
	// of Records (every reader of runs reads those alone).
	Sweeps []Record
	// Repeats counts the lines read once already: a record's line
	// repeated byte for byte (see Parse). A bad line is a Problem every
	// time it appears.
	Repeats int
}

// AtLoad keeps the records of runs at arrival rate rate (0: a closed loop)
// and returns how many it left out: latency at one load says nothing of
// another, so a config that moved to a rate (or another one) starts its
// series afresh instead of reading the old load's as drift.
func (f *File) AtLoad(rate float64) (dropped int) {
	kept, lines := f.Records[:0], f.Lines[:0]
	for i, r := range f.Records {
		if r.Rate == rate {
			kept, lines = append(kept, r), append(lines, f.Lines[i])
			continue
		}
		dropped++
	}
	f.Records, f.Lines = kept, lines
	return dropped
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
// Problems. Blank lines are ignored. Records are returned oldest first by
// their "at" time: latgate appends in time order, so a file that disagrees
// was edited, merged or reversed, and its order is not trusted (a reversed
// history would turn a slowdown into a speed-up); a warning says so, and
// records with the same time keep their file order.
func Parse(data []byte) *File {
	f := &File{}
	// A line that repeats an earlier record's byte for byte is one run
	// read twice (a union merge of the history branch writes both sides'
	// lines): counted twice it narrows every interval and can turn a
	// two-night step into "the newest 5 runs". Each is read once. A bad
	// line repeated is a problem at each of its lines, as any bad line is.
	seen := map[[sha256.Size]byte]int{} // a record's line by its bytes
	var firstRepeat, firstOrig int      // the first repeat, and the line it repeats
	for i, line := range splitLines(data) {
		n := i + 1
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		sum := sha256.Sum256(bytes.TrimSpace(line))
		if orig, dup := seen[sum]; dup {
			if f.Repeats == 0 {
				firstRepeat, firstOrig = n, orig
			}
			f.Repeats++
			continue
		}
		rec, err := decodeLine(line)
		if err != nil {
			f.Problems = append(f.Problems, Problem{Line: n, What: err.Error()})
			continue
		}
		seen[sum] = n
		if rec.Command == "sweep" {
			f.Sweeps = append(f.Sweeps, rec)
			continue
		}
		f.Records = append(f.Records, rec)
		f.Lines = append(f.Lines, n)
	}
	if f.Repeats > 0 {
		f.Warnings = append(f.Warnings, fmt.Sprintf("%d lines repeat an earlier line byte for byte (line %d repeats line %d; a merge of the history file keeps both sides' lines): each run is read once",
			f.Repeats, firstRepeat, firstOrig))
	}
	f.sortByTime()
	slices.SortStableFunc(f.Sweeps, func(a, b Record) int { return a.At.Compare(b.At) })
	return f
}

// sortByTime puts the records in time order (stably), with their line
// numbers, and warns when the file had them otherwise.
func (f *File) sortByTime() {
	first := -1 // the first record older than the one before it
	for i := 1; i < len(f.Records); i++ {
		if f.Records[i].At.Before(f.Records[i-1].At) {
			first = i
			break
		}
	}
	if first < 0 {
		return
	}
	idx := make([]int, len(f.Records))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return f.Records[a].At.Compare(f.Records[b].At) })
	moved := 0
	recs, lines := make([]Record, len(idx)), make([]int, len(idx))
	for i, j := range idx {
		recs[i], lines[i] = f.Records[j], f.Lines[j]
		if i != j {
			moved++
		}
	}
	f.Warnings = append(f.Warnings, fmt.Sprintf("the records are not in time order (line %d, %s, comes after line %d, %s; %d of %d records out of place): they are read by their times, not by their place in the file",
		f.Lines[first], f.Records[first].At.UTC().Format(time.RFC3339), f.Lines[first-1], f.Records[first-1].At.UTC().Format(time.RFC3339), moved, len(idx)))
	f.Records, f.Lines = recs, lines
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
	if err := r.validate(); err != nil {
		return Record{}, fmt.Errorf("impossible value: %s; skipped: fix or delete the line", clipErr(err))
	}
	r.clean()
	return r, nil
}

// clean passes every text field of a record read back through Clean: latgate
// wrote them clean, but anyone who can push to the history branch can edit
// the file, and trend prints them into the CI log, reports and issues.
func (r *Record) clean() {
	r.CommitURL = SafeURL(r.CommitURL)
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
// copied byte for byte, malformed and blank ones included (nothing is lost
// that a person could still repair; retention drops only the oldest
// records), and a torn last line gets its newline back.
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

// appendLine is Append without the file: the lines of old, then line (a
// record with its newline), less what keep drops.
func appendLine(old, line []byte, keep int) ([][]byte, int) {
	lines := append(splitLines(old), line[:len(line)-1])
	return retain(lines, keep)
}

// retain drops the oldest records (by time, then by place in the file) so
// that keep remain, and returns the lines left and how many records it
// dropped. Every line that is not a record — malformed, of another schema,
// blank — stays as it was, where it was: the README promises that nothing
// a person could still repair is lost. keep ≤ 0 keeps everything.
func retain(lines [][]byte, keep int) ([][]byte, int) {
	if keep <= 0 {
		return lines, 0
	}
	type rec struct {
		line int
		at   time.Time
	}
	var recs []rec
	for i, l := range lines {
		if r, err := decodeLine(l); err == nil {
			recs = append(recs, rec{i, r.At})
		}
	}
	if len(recs) <= keep {
		return lines, 0
	}
	slices.SortStableFunc(recs, func(a, b rec) int { return a.at.Compare(b.at) })
	drop := make(map[int]bool, len(recs)-keep)
	for _, r := range recs[:len(recs)-keep] {
		drop[r.line] = true
	}
	out := make([][]byte, 0, len(lines)-len(drop))
	for i, l := range lines {
		if !drop[i] {
			out = append(out, l)
		}
	}
	return out, len(drop)
}

func isRecord(line []byte) bool {
	_, err := decodeLine(line)
	return err == nil
}

// writeLines writes every line with its newline, blank ones included: the
// existing lines of a history are copied byte for byte.
func writeLines(w io.Writer, lines [][]byte) error {
	for _, l := range lines {
		if _, err := w.Write(l); err != nil {
			return err
		}
		if _, err := w.Write([]byte{'\n'}); err != nil {
			return err
		}
	}
	return nil
}

// futureSlack is how far past now a record's time may be before it is a
// clock set wrong rather than a runner's clock a little ahead.
const futureSlack = time.Hour

// WarnFuture adds a warning when records are dated after now (beyond
// futureSlack): a runner whose clock is wrong. Records are read by their
// times, so those stay the "newest" runs until that time comes, and the
// runs after them (tonight's) are not read as the newest; --history-keep,
// which drops the oldest, never drops them.
func (f *File) WarnFuture(now time.Time) {
	var n, line int
	var latest time.Time
	for i, r := range f.Records {
		if r.At.After(now.Add(futureSlack)) {
			n++
			if r.At.After(latest) {
				latest, line = r.At, f.Lines[i]
			}
		}
	}
	if n > 0 {
		f.Warnings = append(f.Warnings, fmt.Sprintf("%d records are dated after now (the latest, line %d, at %s): a runner's clock set wrong? "+
			"they read as the newest runs until then, ahead of tonight's; fix or delete those lines",
			n, line, latest.UTC().Format(time.RFC3339)))
	}
}
