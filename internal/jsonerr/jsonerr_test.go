package jsonerr

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// doc is what the tests decode into when they take the error from encoding/json.
type doc struct {
	Run struct {
		Requests int `json:"requests"`
	} `json:"run"`
}

func TestExplain(t *testing.T) {
	// typeErr is an error as encoding/json builds it; the byte at offset-1 is
	// where the problem is reported.
	typeErr := func(value string, typ reflect.Type, offset int64, field string) error {
		return &json.UnmarshalTypeError{Value: value, Type: typ, Offset: offset, Field: field}
	}
	tests := []struct {
		name string
		data string
		err  error // nil: the error from decoding data into a doc
		want Fact  // ERR in Problem stands for the error's text
	}{
		{"syntax error", "{\n  \"run\": [,]\n}", nil,
			Fact{Syntax, 2, 11, "results file is not valid JSON: ERR"}},
		{"syntax error after CRLF", "{\r\n  \"run\": [,]\r\n}", nil,
			Fact{Syntax, 2, 11, "results file is not valid JSON: ERR"}},
		{"column counts runes, not bytes", `{"é": ,}`, nil,
			Fact{Syntax, 1, 7, "results file is not valid JSON: ERR"}},
		{"not JSON at all", "run:\n  requests: 2\n", nil,
			Fact{Syntax, 1, 1, "results file is not valid JSON: ERR"}},
		{"truncated in a literal", `{"run": tru`, nil,
			Fact{Truncated, 1, 12, "results file is truncated (the JSON ends early)"}},
		{"truncated, position ignores trailing white space", "{\n  \"run\": {\"requests\": 2,\r\n \t\n", nil,
			Fact{Truncated, 2, 25, "results file is truncated (the JSON ends early)"}},
		{"truncated wins over what the error says", `{"run": {"requests": "2"`,
			typeErr("string", reflect.TypeFor[int](), 24, "run.requests"),
			Fact{Truncated, 1, 25, "results file is truncated (the JSON ends early)"}},
		{"top level is not an object", `"x"`, nil,
			Fact{NotObject, 1, 3, "results file holds a JSON string, want an object"}},
		{"top level array, position from the offset", "\n\n  [1]",
			typeErr("array", reflect.TypeFor[doc](), 5, ""),
			Fact{NotObject, 3, 3, "results file holds a JSON array, want an object"}},
		{"field of the wrong type", "{\"run\":\n {\"requests\": \"2\"}}", nil,
			Fact{FieldType, 2, 17, "field run.requests holds a JSON string, want a number"}},
		{"field type error, wrapped", "{\"run\": {\"requests\": true}}",
			fmt.Errorf("decode: %w", typeErr("bool", reflect.TypeFor[float64](), 25, "run.requests")),
			Fact{FieldType, 1, 25, "field run.requests holds a JSON bool, want a number"}},
		{"offset past the end is clamped", "{}",
			typeErr("string", reflect.TypeFor[[]int](), 99, "tags"),
			Fact{FieldType, 1, 3, "field tags holds a JSON string, want an array"}},
		{"another error has no position", `{"run": {}}`, errors.New("boom"),
			Fact{Other, 0, 0, "not a valid results file: boom"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.err
			if err == nil {
				err = json.Unmarshal([]byte(tt.data), &doc{})
				if err == nil {
					t.Fatalf("decoding %q succeeded; the test needs an error", tt.data)
				}
			}
			want := tt.want
			want.Problem = strings.ReplaceAll(want.Problem, "ERR", err.Error())
			if diff := cmp.Diff(want, Explain([]byte(tt.data), err, "results file")); diff != "" {
				t.Errorf("Explain(%q, %v) mismatch (-want +got):\n%s", tt.data, err, diff)
			}
		})
	}
}

func TestExplainNoun(t *testing.T) {
	data := `[]`
	err := json.Unmarshal([]byte(data), &doc{})
	got := Explain([]byte(data), err, "baseline").Problem
	if want := "baseline holds a JSON array, want an object"; got != want {
		t.Errorf("Problem = %q, want %q", got, want)
	}
}

func TestLineCol(t *testing.T) {
	tests := []struct {
		name      string
		data      string
		off       int
		line, col int
	}{
		{"empty", "", 0, 1, 1},
		{"start", "ab\ncd", 0, 1, 1},
		{"the newline ends its line", "ab\ncd", 2, 1, 3},
		{"just after a newline", "ab\ncd", 3, 2, 1},
		{"runes, not bytes", "é\nxé y", 6, 2, 3},
		{"CR is a character of its line", "a\r\nb", 1, 1, 2},
		{"negative offset", "ab", -5, 1, 1},
		{"offset past the end", "a\nbc", 99, 2, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line, col := lineCol([]byte(tt.data), tt.off)
			if diff := cmp.Diff([2]int{tt.line, tt.col}, [2]int{line, col}); diff != "" {
				t.Errorf("lineCol(%q, %d) [line col] mismatch (-want +got):\n%s", tt.data, tt.off, diff)
			}
		})
	}
}

func TestTruncated(t *testing.T) {
	tests := []struct {
		data string
		want bool
	}{
		{"", false},
		{" \n", false},
		{"{", true},
		{`{"a": tru`, true},
		{`"abc`, true},
		{"[1, 2", true},
		{`{"a": 1}`, false},
		{`{"a": 1,}`, false}, // a syntax error, not an early end
		{"{} {", false},      // the first value is whole
	}
	for _, tt := range tests {
		if got := truncated([]byte(tt.data)); got != tt.want {
			t.Errorf("truncated(%q) = %v, want %v", tt.data, got, tt.want)
		}
	}
}

func TestJSONKind(t *testing.T) {
	tests := []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[int](), "a number"},
		{reflect.TypeFor[int8](), "a number"},
		{reflect.TypeFor[int64](), "a number"},
		{reflect.TypeFor[uint](), "a number"},
		{reflect.TypeFor[uint16](), "a number"},
		{reflect.TypeFor[float32](), "a number"},
		{reflect.TypeFor[float64](), "a number"},
		{reflect.TypeFor[string](), "a string"},
		{reflect.TypeFor[bool](), "true or false"},
		{reflect.TypeFor[[]string](), "an array"},
		{reflect.TypeFor[[3]int](), "an array"},
		{reflect.TypeFor[map[string]int](), "an object"},
		{reflect.TypeFor[doc](), "an object"},
	}
	for _, tt := range tests {
		if got := jsonKind(tt.typ.Kind()); got != tt.want {
			t.Errorf("jsonKind(%v) = %q, want %q", tt.typ, got, tt.want)
		}
	}
}
