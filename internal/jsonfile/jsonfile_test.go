package jsonfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestError(t *testing.T) {
	kind := errors.New("kind")
	tests := []struct {
		e    Error
		want string
	}{
		{Error{Path: "b.json", Problem: "empty"}, "b.json: empty"},
		{Error{Path: "b.json", Problem: "empty", Fix: "restore it"}, "b.json: empty: restore it"},
		{Error{Path: "b.json", Line: 3, Col: 7, Problem: "bad", Fix: "fix"}, "b.json:3:7: bad: fix"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
	cause := errors.New("cause")
	var err error = &Error{Kind: kind, Err: cause}
	if !errors.Is(err, kind) || !errors.Is(err, cause) || errors.Is(err, errors.New("kind")) {
		t.Error("errors.Is does not find exactly the kind and the cause")
	}
}

func TestRead(t *testing.T) {
	notFound, unreadable := errors.New("nf"), errors.New("ur")
	dir := t.TempDir()
	if _, err := Read(filepath.Join(dir, "none.json"), "thing", notFound, unreadable); err == nil || err.Kind != notFound {
		t.Errorf("missing file: %v, want kind notFound", err)
	}
	if _, err := Read(dir, "thing", notFound, unreadable); err == nil || err.Kind != unreadable || err.Problem == "" || err.Path != dir {
		t.Errorf("a directory: %+v, want kind unreadable with a problem", err)
	}
	path := filepath.Join(dir, "x.json")
	if err := os.WriteFile(path, []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := Read(path, "thing", notFound, unreadable); err != nil || string(data) != "{}" {
		t.Errorf("Read = %q, %v", data, err)
	}
}

func TestSchemaAndNewer(t *testing.T) {
	tests := []struct {
		data    string
		schema  string
		present bool
		err     bool
	}{
		{`{"schema": "latgate.results/v1", "x": 1}`, "latgate.results/v1", true, false},
		{`{"x": 1}`, "", false, false},
		{`{"schema": ""}`, "", true, false},
		{`{"schema": 1}`, "", false, true},
		{`[`, "", false, true},
	}
	for _, tt := range tests {
		s, ok, err := Schema([]byte(tt.data))
		if s != tt.schema || ok != tt.present || (err != nil) != tt.err {
			t.Errorf("Schema(%s) = %q, %v, %v", tt.data, s, ok, err)
		}
	}
	for schema, want := range map[string]bool{
		"latgate.results/v2": true, "latgate.results/v1": false, "latgate.results/vx": false, "latgate.baseline/v9": false,
	} {
		if got := Newer(schema, "latgate.results/v", 1); got != want {
			t.Errorf("Newer(%q) = %v, want %v", schema, got, want)
		}
	}
}

func TestEncode(t *testing.T) {
	got, err := Encode(map[string]any{"a": "<b> & c", "n": []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"a\": \"<b> & c\",\n  \"n\": [\n    1\n  ]\n}\n"
	if string(got) != want {
		t.Errorf("Encode = %q, want %q", got, want)
	}
	if _, err := Encode(func() {}); err == nil {
		t.Error("Encode(func) succeeded")
	}
}
