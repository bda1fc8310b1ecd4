package baseline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/latgate/latgate/internal/jsonerr"
	"github.com/latgate/latgate/internal/jsonfile"
	"github.com/latgate/latgate/internal/sanitize"
	"github.com/latgate/latgate/pkg/results"
)

// Kinds of baseline problems, for errors.Is on an *Error. The CLI maps every
// *Error to exit code 2.
var (
	ErrNotFound      = errors.New("no baseline file")
	ErrUnreadable    = errors.New("baseline file cannot be read")
	ErrSyntax        = errors.New("baseline file is not valid JSON") // also empty, truncated, wrong field types
	ErrResultsFile   = errors.New("a results file, not a baseline")
	ErrUnknownSchema = errors.New("not a latgate baseline")
	ErrNewerSchema   = errors.New("baseline written by a newer latgate")
	ErrIncomplete    = errors.New("baseline is missing required fields")
	ErrInvalid       = errors.New("baseline holds values no run can have") // see results.ValidateData
)

// Error is a problem with a baseline file: what is wrong, where, and how to
// fix it. It is the JSON-file kernel's error, shared with results files.
type Error = jsonfile.Error

const (
	fixRestore = "restore it from git (`git checkout -- FILE`) or re-create it with `latgate bless`"
	fixBless   = "re-create it with `latgate bless`"
)

// Load reads and decodes the baseline at path. Every error is an *Error.
func Load(path string) (*File, error) {
	data, ferr := jsonfile.Read(path, "baseline", ErrNotFound, ErrUnreadable)
	if ferr != nil {
		if ferr.Kind == ErrNotFound {
			ferr.Problem = "no baseline here"
			ferr.Fix = "run `latgate bless` (with the same --config) to create one"
		}
		return nil, ferr
	}
	return Decode(data, path)
}

// Decode decodes a baseline; name is the file name used in errors. It checks
// the schema (rejecting results files, other schemas and newer versions) and
// the required fields. Every error is an *Error.
func Decode(data []byte, name string) (*File, error) {
	fail := func(kind error, problem, fix string) *Error {
		return &Error{Path: name, Kind: kind, Problem: problem, Fix: strings.ReplaceAll(fix, "FILE", name)}
	}
	if jsonfile.Empty(data) {
		return nil, fail(ErrSyntax, "baseline file is empty", fixRestore)
	}
	schema, present, err := jsonfile.Schema(data)
	if err != nil {
		return nil, jsonError(data, name, err)
	}
	switch {
	case !present:
		return nil, fail(ErrUnknownSchema, `not a latgate baseline (no "schema" field)`, "check the path, or "+fixBless)
	case schema == Schema:
	case strings.HasPrefix(schema, "latgate.results/"):
		return nil, fail(ErrResultsFile, "this is a results file (schema "+shown(schema)+"), not a baseline",
			"bless it with `latgate bless --from "+name+"`")
	case jsonfile.Newer(schema, "latgate.baseline/v", 1):
		return nil, fail(ErrNewerSchema, "schema "+shown(schema)+" was written by a newer latgate (this one reads "+Schema+")",
			"upgrade latgate")
	default:
		return nil, fail(ErrUnknownSchema, fmt.Sprintf("not a latgate baseline (schema %q, want %s)", schema, Schema),
			"check the path, or "+fixBless)
	}
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, jsonError(data, name, err)
	}
	if problem := missing(&f); problem != "" {
		return nil, fail(ErrIncomplete, problem, fixBless)
	}
	if path, line, dup := jsonerr.DuplicateKey(data); dup {
		e := fail(ErrInvalid, "key "+shown(path)+" appears twice: a baseline latgate wrote never repeats a key", fixRestore)
		e.Line, e.Col = line, 1
		return nil, e
	}
	err = results.ValidateData(f.Run, f.Targets, true)
	if err == nil {
		err = provenanceText(&f)
	}
	if err != nil {
		return nil, &Error{Path: name, Kind: ErrInvalid, Err: err,
			Problem: err.Error() + " (the baseline was edited or damaged)", Fix: strings.ReplaceAll(fixRestore, "FILE", name)}
	}
	return &f, nil
}

// provenanceText checks the baseline's own text fields as results.CheckText
// checks a run's: every report prints them.
func provenanceText(f *File) error {
	fields := [][2]string{{"latgate_version", f.Version}, {"git_commit", f.GitCommit}, {"config_hash", f.ConfigHash}}
	if r := f.Runner; r != nil {
		fields = append(fields, [][2]string{{"runner.os", r.OS}, {"runner.arch", r.Arch}, {"runner.name", r.Name},
			{"runner.labels", r.Labels}, {"runner.region", r.Region}, {"runner.environment", r.Environment}}...)
	}
	for _, fv := range fields {
		if err := results.CheckText(fv[0], fv[1]); err != nil {
			return err
		}
	}
	return nil
}

// shown is text of the file as an error quotes it before validation: one
// line of printable text (sanitize.Line), so that a tampered baseline's
// schema, key or name cannot redraw a terminal or forge a line of the log.
func shown(s string) string { return sanitize.Line(s, 120) }

// missing describes the first missing required field of f, or returns "".
func missing(f *File) string {
	if len(f.Targets) == 0 {
		return "baseline has no targets"
	}
	seen := map[string]bool{}
	for i, t := range f.Targets {
		if t.Name == "" {
			return fmt.Sprintf("target %d has no name", i+1)
		}
		key := t.Label()
		if seen[key] {
			return "target " + shown(key) + " appears twice"
		}
		seen[key] = true
		key = shown(key)
		if len(t.Prompts) == 0 {
			return "target " + key + " has no prompts"
		}
		ids := map[string]bool{}
		for j, p := range t.Prompts {
			if p.ID == "" {
				return fmt.Sprintf("target %s: prompt %d has no id", key, j+1)
			}
			if ids[p.ID] {
				return "target " + key + ": prompt " + shown(p.ID) + " appears twice"
			}
			ids[p.ID] = true
		}
	}
	return ""
}

// jsonError turns an encoding/json error into an *Error with a line and column.
func jsonError(data []byte, name string, err error) *Error {
	e := &Error{Path: name, Kind: ErrSyntax, Err: err, Fix: strings.ReplaceAll(fixRestore, "FILE", name)}
	if line := conflictLine(data); line > 0 {
		e.Line, e.Col = line, 1
		e.Problem = "unresolved git merge conflict"
		e.Fix = "resolve it by keeping one side, or " + fixBless
		return e
	}
	f := jsonerr.Explain(data, err, "baseline")
	if f.Kind == jsonerr.Truncated {
		f.Problem = "baseline file is truncated (the JSON ends early)" // the file, not the document, is cut short
	}
	e.Line, e.Col, e.Problem = f.Line, f.Col, f.Problem
	return e
}

// conflictLine returns the line of the first git conflict marker, or 0.
func conflictLine(data []byte) int {
	for i, line := range bytes.Split(data, []byte("\n")) {
		if bytes.HasPrefix(line, []byte("<<<<<<< ")) || bytes.Equal(bytes.TrimRight(line, "\r"), []byte("=======")) {
			return i + 1
		}
	}
	return 0
}
