// Package jsonfile is the kernel latgate's JSON files share (baseline and
// results): one error type that says what is wrong, where and how to fix it;
// reading with not-found and unreadable told apart; the schema probe; and
// the indented, HTML-unescaped encoding every JSON file is written in.
// Each file's own package keeps its schema rules and messages.
package jsonfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"strconv"
	"strings"

	"github.com/latgate/latgate/internal/inputfile"
)

// Error is a problem with a JSON file: what is wrong, where, and how to fix
// it. Kind is one of the owning package's error kinds, for errors.Is.
type Error struct {
	Path string // the file, as given
	// Line and Col locate a JSON problem (1-based); zero when not known.
	Line, Col int
	Kind      error  // the kind of problem, for errors.Is
	Problem   string // what is wrong
	Fix       string // what to do about it
	Err       error  // the underlying error, if any
}

// Error returns "PATH[:LINE:COL]: PROBLEM: FIX".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line) + ":" + strconv.Itoa(e.Col))
	}
	b.WriteString(": ")
	b.WriteString(e.Problem)
	if e.Fix != "" {
		b.WriteString(": ")
		b.WriteString(e.Fix)
	}
	return b.String()
}

// Is reports whether target is the kind of e.
func (e *Error) Is(target error) bool { return target == e.Kind }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Read reads the regular file at path, without blocking and up to
// inputfile.MaxData bytes. A missing file is an *Error of kind notFound, any
// other failure (a FIFO, a directory, too large) one of kind unreadable
// whose Problem is "cannot read WHAT: CAUSE" (the path, already in Path,
// dropped from CAUSE); the caller fills in the rest.
func Read(path, what string, notFound, unreadable error) ([]byte, *Error) {
	data, err := inputfile.Read(path, inputfile.MaxData)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, &Error{Path: path, Kind: notFound, Err: err}
	case err != nil:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &Error{Path: path, Kind: unreadable, Err: err, Problem: "cannot read " + what + ": " + err.Error()}
	}
	return data, nil
}

// Empty reports whether data holds nothing but white space.
func Empty(data []byte) bool { return len(bytes.TrimSpace(data)) == 0 }

// Schema probes the top-level "schema" field of a JSON object: its value,
// and whether it is there at all. The error is encoding/json's, for the
// caller to explain.
func Schema(data []byte) (schema string, present bool, err error) {
	var probe struct {
		Schema *string `json:"schema"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return "", false, err
	}
	if probe.Schema == nil {
		return "", false, nil
	}
	return *probe.Schema, true, nil
}

// Newer reports whether schema is prefix followed by a version above current:
// "latgate.results/v2" is newer than version 1 of "latgate.results/v".
func Newer(schema, prefix string, current int) bool {
	v, ok := strings.CutPrefix(schema, prefix)
	if !ok {
		return false
	}
	n, err := strconv.Atoi(v)
	return err == nil && n > current
}

// Encode returns v as latgate writes its JSON files: indented by two
// spaces, '<', '>' and '&' left as they are, ending in a newline.
func Encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
