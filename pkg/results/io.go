package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/latgate/latgate/internal/atomicfile"
	"github.com/latgate/latgate/internal/jsonerr"
	"github.com/latgate/latgate/internal/jsonfile"
	"github.com/latgate/latgate/internal/sanitize"
)

// Kinds of results-file problems, for errors.Is on a *FileError. The CLI maps
// every *FileError to exit code 2.
var (
	ErrFileNotFound   = errors.New("no results file")
	ErrFileUnreadable = errors.New("results file cannot be read")
	// ErrFileInvalid: empty, truncated, not JSON, wrong field types, missing fields.
	ErrFileInvalid = errors.New("invalid results file")
	// ErrFileSchema: a baseline passed by mistake, another schema, a newer version.
	ErrFileSchema = errors.New("not a latgate results file")
)

// FileError is a problem with a results file: what is wrong, where, and how
// to fix it. It is the JSON-file kernel's error, shared with the baseline.
type FileError = jsonfile.Error

// Write atomically replaces the file at path with f as indented JSON: a failed
// or interrupted write leaves any previous file intact. An existing file keeps
// its permission bits; a new one is 0644.
func Write(path string, f *File) error {
	data, err := jsonfile.Encode(f)
	if err != nil {
		return fmt.Errorf("write %s: encode results: %w", path, err)
	}
	return atomicfile.WriteFile(path, data, 0o644) // errors name path
}

// Encode writes f to w as a results file reads: indented JSON. Nothing is
// written when f cannot be encoded.
func Encode(w io.Writer, f *File) error {
	data, err := jsonfile.Encode(f)
	if err != nil {
		return fmt.Errorf("encode results: %w", err)
	}
	_, err = w.Write(data)
	return err
}

// Read reads and decodes the results file at path. Every error is a *FileError.
func Read(path string) (*File, error) {
	data, ferr := jsonfile.Read(path, "results file", ErrFileNotFound, ErrFileUnreadable)
	if ferr != nil {
		if ferr.Kind == ErrFileNotFound {
			ferr.Problem, ferr.Fix = "no results file at "+path, "check the path"
		}
		return nil, ferr
	}
	return Decode(data, path)
}

const fixRerun = "run the measurement again to write a new one"

// Decode decodes a results file; name is the file name used in errors. It
// accepts only schema latgate.results/v1, names the case of a baseline passed
// by mistake, and checks the required fields. Every error is a *FileError.
func Decode(data []byte, name string) (*File, error) {
	fail := func(kind error, problem, fix string) *FileError {
		return &FileError{Path: name, Kind: kind, Problem: problem, Fix: fix}
	}
	if jsonfile.Empty(data) {
		return nil, fail(ErrFileInvalid, "results file is empty", fixRerun)
	}
	schema, present, err := jsonfile.Schema(data)
	if err != nil {
		return nil, jsonError(data, name, err)
	}
	switch {
	case !present:
		return nil, fail(ErrFileSchema, `not a latgate results file (no "schema" field)`, "check the path")
	case schema == Schema:
	case strings.HasPrefix(schema, "latgate.baseline/"):
		return nil, fail(ErrFileSchema, "this is a baseline file (schema "+shown(schema)+"), not a results file",
			"pass the results JSON that a run wrote")
	case jsonfile.Newer(schema, "latgate.results/v", 1):
		return nil, fail(ErrFileSchema, "schema "+shown(schema)+" was written by a newer latgate (this one reads "+Schema+")",
			"upgrade latgate")
	default:
		return nil, fail(ErrFileSchema, fmt.Sprintf("not a latgate results file (schema %q, want %s)", schema, Schema),
			"check the path")
	}
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, jsonError(data, name, err)
	}
	if problem := missingFields(&f); problem != "" {
		return nil, fail(ErrFileInvalid, problem, fixRerun)
	}
	if path, line, dup := jsonerr.DuplicateKey(data); dup {
		e := fail(ErrFileInvalid, "key "+shown(path)+" appears twice: a file latgate wrote never repeats a key", "restore the file, or "+fixRerun)
		e.Line, e.Col = line, 1
		return nil, e
	}
	err = ValidateData(f.Run, f.Targets, false)
	if err == nil {
		err = fileText(&f)
	}
	if err != nil {
		return nil, &FileError{Path: name, Kind: ErrFileInvalid, Err: err,
			Problem: err.Error() + " (the file was edited or damaged)", Fix: "restore the file, or " + fixRerun}
	}
	return &f, nil
}

// shown is text of a file as an error quotes it: one line of printable
// text (sanitize.Line), so that a tampered file's schema, key or name cannot
// redraw a terminal or forge a line of the log before it is validated.
func shown(s string) string { return sanitize.Line(s, 120) }

// fileText checks the run's own text fields as CheckText checks a
// target's: a partial run's reason is printed by compare and bless.
func fileText(f *File) error {
	for _, fv := range [][2]string{{"latgate_version", f.Version}, {"config_path", f.ConfigPath},
		{"config_hash", f.ConfigHash}, {"partial_reason", f.PartialReason}} {
		if err := CheckText(fv[0], fv[1]); err != nil {
			return err
		}
	}
	return nil
}

// missingFields describes the first missing required field of f, or returns "".
func missingFields(f *File) string {
	if len(f.Targets) == 0 {
		return "results file has no targets"
	}
	// A target (name and region) or a prompt twice would have one's
	// samples gated and the other's dropped, and two series of the same
	// labels exported: latgate never writes either (merge refuses them).
	seen := map[string]bool{}
	for i, t := range f.Targets {
		if t.Name == "" {
			return fmt.Sprintf("target %d has no name", i+1)
		}
		key := Label(t.Name, t.Region)
		if seen[key] {
			return "target " + shown(key) + " appears twice"
		}
		seen[key] = true
		ids := map[string]bool{}
		for j, p := range t.Prompts {
			if p.ID == "" {
				return fmt.Sprintf("target %s: prompt %d has no id", shown(t.Name), j+1)
			}
			if ids[p.ID] {
				return "target " + shown(key) + ": prompt " + shown(p.ID) + " appears twice"
			}
			ids[p.ID] = true
		}
	}
	return ""
}

// jsonError turns an encoding/json error into a *FileError with a line and column.
func jsonError(data []byte, name string, err error) *FileError {
	f := jsonerr.Explain(data, err, "results file")
	return &FileError{Path: name, Line: f.Line, Col: f.Col, Kind: ErrFileInvalid,
		Problem: f.Problem, Fix: fixRerun, Err: err}
}
