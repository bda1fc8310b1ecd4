// Package jsonerr owns turning an encoding/json error on a file's bytes into
// a "line:col: problem" fact a person can act on: where in the file the JSON
// goes wrong (1-based line, column in runes) and what is wrong, in words.
// It knows nothing of any file type's error type: callers copy the Fact
// into their own.
package jsonerr

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"unicode/utf8"
)

// Kind is the kind of JSON problem a Fact describes.
type Kind int

const (
	// Other is an error that is none of the kinds below; the Fact has no position.
	Other Kind = iota
	// Truncated is a JSON value that ends early; the position is just after
	// its last byte that is not white space.
	Truncated
	// Syntax is bytes that are not JSON; the position is the offending byte.
	Syntax
	// NotObject is a top-level value that is not an object.
	NotObject
	// FieldType is a field that holds the wrong type of JSON value.
	FieldType
)

// Fact is what is wrong with a file's JSON, and where.
type Fact struct {
	Kind Kind
	// Line and Col locate the problem (1-based, Col in runes); zero when the
	// error names no position.
	Line, Col int
	Problem   string // what is wrong, e.g. "field run.requests holds a JSON string, want a number"
}

// Explain describes err, an error from decoding data with encoding/json into
// a struct. noun names the file in the problem ("results file", "baseline"):
//
//	Truncated: NOUN is truncated (the JSON ends early)
//	Syntax:    NOUN is not valid JSON: ERR
//	NotObject: NOUN holds a JSON VALUE, want an object
//	FieldType: field FIELD holds a JSON VALUE, want KIND
//	Other:     not a valid NOUN: ERR
//
// data that ends inside a JSON value is Truncated whatever err says, since
// encoding/json reports that as a syntax error at the end.
func Explain(data []byte, err error, noun string) Fact {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case truncated(data):
		line, col := lineCol(data, len(bytes.TrimRight(data, " \t\r\n")))
		return Fact{Truncated, line, col, noun + " is truncated (the JSON ends early)"}
	case errors.As(err, &syn):
		line, col := lineCol(data, int(syn.Offset)-1)
		return Fact{Syntax, line, col, noun + " is not valid JSON: " + syn.Error()}
	case errors.As(err, &typ) && typ.Field == "":
		line, col := lineCol(data, int(typ.Offset)-1)
		return Fact{NotObject, line, col, noun + " holds a JSON " + typ.Value + ", want an object"}
	case errors.As(err, &typ):
		line, col := lineCol(data, int(typ.Offset)-1)
		return Fact{FieldType, line, col, "field " + typ.Field + " holds a JSON " + typ.Value + ", want " + jsonKind(typ.Type.Kind())}
	}
	return Fact{Kind: Other, Problem: "not a valid " + noun + ": " + err.Error()}
}

// truncated reports whether data is the start of a JSON value that ends early.
func truncated(data []byte) bool {
	var v any
	return errors.Is(json.NewDecoder(bytes.NewReader(data)).Decode(&v), io.ErrUnexpectedEOF)
}

// jsonKind names the JSON value that decodes into a Go value of kind k.
func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}

// lineCol returns the 1-based line and column (in runes) of byte offset off,
// clamped to data.
func lineCol(data []byte, off int) (line, col int) {
	off = max(0, min(off, len(data)))
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return bytes.Count(data[:off], []byte("\n")) + 1, utf8.RuneCount(data[start:off]) + 1
}
