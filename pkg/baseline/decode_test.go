package baseline

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/latgate/latgate/pkg/results"
)

func encodeFixture(t *testing.T, edit func(f *File)) []byte {
	t.Helper()
	f := fixture()
	if edit != nil {
		edit(f)
	}
	data, err := Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestDecodeErrors(t *testing.T) {
	good := encodeFixture(t, nil)

	// A sample field of the wrong type, and the line it is on.
	badType := bytes.Replace(good, []byte(`"ttft_ms":410.123,`), []byte(`"ttft_ms":"410.123",`), 1)
	badTypeLine := bytes.Count(badType[:bytes.Index(badType, []byte(`"ttft_ms":"410.123"`))], []byte("\n")) + 1

	// A merge conflict from two people blessing on two branches.
	lines := strings.SplitAfter(string(good), "\n")
	conflict := strings.Join(lines[:4], "") + "<<<<<<< HEAD\n" + lines[4] + "=======\n" + lines[4] + ">>>>>>> main\n" + strings.Join(lines[5:], "")

	tests := []struct {
		name  string
		data  string
		kind  error
		frags []string
	}{
		{"empty", "", ErrSyntax, []string{"f.json: baseline file is empty", "git checkout -- f.json", "latgate bless"}},
		{"whitespace only", " \n\t\n", ErrSyntax, []string{"is empty"}},
		{"truncated", string(good[:len(good)/2]), ErrSyntax, []string{"truncated", "git checkout -- f.json"}},
		{"truncated in a literal", `{"schema": tru`, ErrSyntax, []string{"f.json:1:15: baseline file is truncated"}},
		{"not JSON", "targets:\n  - name: x\n", ErrSyntax, []string{"f.json:1:2: baseline is not valid JSON: invalid character"}},
		{"syntax error with line and column", "{\n  \"schema\": \"latgate.baseline/v1\",\n  \"targets\": [,]\n}", ErrSyntax,
			[]string{"f.json:3:15: baseline is not valid JSON: invalid character ','"}},
		{"merge conflict", conflict, ErrSyntax, []string{"f.json:5:1: unresolved git merge conflict", "latgate bless"}},
		{"top level array", "[]", ErrSyntax, []string{"f.json:1:1: baseline holds a JSON array, want an object"}},
		{"schema not a string", `{"schema": 1}`, ErrSyntax, []string{"f.json:1:12: field schema holds a JSON number, want a string"}},
		{"field of the wrong type", string(badType), ErrSyntax,
			[]string{"f.json:" + strconv.Itoa(badTypeLine) + ":", "field targets.prompts.samples.ttft_ms holds a JSON string, want a number"}},
		{"results file", `{"schema": "latgate.results/v1", "targets": []}`, ErrResultsFile,
			[]string{"this is a results file (schema latgate.results/v1)", "bless it with `latgate bless --from f.json`"}},
		{"newer results file", `{"schema": "latgate.results/v2"}`, ErrResultsFile, []string{"this is a results file"}},
		{"newer schema", `{"schema": "latgate.baseline/v2", "whatever": {}}`, ErrNewerSchema,
			[]string{"latgate.baseline/v2 was written by a newer latgate", "upgrade latgate"}},
		{"much newer schema", `{"schema": "latgate.baseline/v10"}`, ErrNewerSchema, []string{"upgrade latgate"}},
		{"version zero", `{"schema": "latgate.baseline/v0"}`, ErrUnknownSchema, []string{`not a latgate baseline (schema "latgate.baseline/v0", want latgate.baseline/v1)`}},
		{"other schema", `{"schema": "acme/v1"}`, ErrUnknownSchema, []string{`schema "acme/v1"`, "check the path"}},
		{"no schema", `{"targets": []}`, ErrUnknownSchema, []string{`not a latgate baseline (no "schema" field)`}},
		{"no targets", `{"schema": "latgate.baseline/v1", "targets": []}`, ErrIncomplete,
			[]string{"baseline has no targets", "re-create it with `latgate bless`"}},
		{"targets missing", `{"schema": "latgate.baseline/v1"}`, ErrIncomplete, []string{"no targets"}},
		{"target without name", string(encodeFixture(t, func(f *File) { f.Targets[1].Name = "" })), ErrIncomplete,
			[]string{"target 2 has no name"}},
		{"target without prompts", string(encodeFixture(t, func(f *File) { f.Targets[0].Prompts = nil })), ErrIncomplete,
			[]string{"target primary has no prompts"}},
		{"prompt without id", string(encodeFixture(t, func(f *File) { f.Targets[1].Prompts[1].ID = "" })), ErrIncomplete,
			[]string{"target fallback@eu: prompt 2 has no id"}},
		{"duplicate target", string(encodeFixture(t, func(f *File) { f.Targets[1].Name, f.Targets[1].Region = "primary", "" })), ErrIncomplete,
			[]string{"target primary appears twice"}},
		{"duplicate prompt", string(encodeFixture(t, func(f *File) { f.Targets[0].Prompts[1].ID = "greeting" })), ErrIncomplete,
			[]string{"target primary: prompt greeting appears twice"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Decode([]byte(tt.data), "f.json")
			if err == nil {
				t.Fatalf("Decode succeeded: %+v", f)
			}
			t.Log(err)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v is not an *Error", err, err)
			}
			if e.Path != "f.json" {
				t.Errorf("Path = %q, want f.json", e.Path)
			}
			if !errors.Is(err, tt.kind) {
				t.Errorf("error %q is not %v", err, tt.kind)
			}
			for _, frag := range tt.frags {
				if !strings.Contains(err.Error(), frag) {
					t.Errorf("error %q does not contain %q", err, frag)
				}
			}
		})
	}
}

func TestDecodeAcceptsUnknownFields(t *testing.T) {
	// A later v1 may add optional fields; older readers keep working.
	data := bytes.Replace(encodeFixture(t, nil), []byte(`"config_hash"`), []byte(`"future_field": [1, 2], "config_hash"`), 1)
	got, err := Decode(data, "f.json")
	if err != nil {
		t.Fatal(err)
	}
	want, err := canonical(fixture())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Decode (-want +got):\n%s", diff)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()

	t.Run("ok", func(t *testing.T) {
		path := filepath.Join(dir, "latgate.baseline.json")
		if err := os.WriteFile(path, encodeFixture(t, nil), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		want, err := canonical(fixture())
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Load (-want +got):\n%s", diff)
		}
	})

	t.Run("missing", func(t *testing.T) {
		path := filepath.Join(dir, "nope.json")
		_, err := Load(path)
		if !errors.Is(err, ErrNotFound) || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("error %v is not ErrNotFound and fs.ErrNotExist", err)
		}
		for _, frag := range []string{path + ": no baseline here", "run `latgate bless`", "to create one"} {
			if err == nil || !strings.Contains(err.Error(), frag) {
				t.Errorf("error %v does not contain %q", err, frag)
			}
		}
	})

	t.Run("a directory", func(t *testing.T) {
		_, err := Load(dir)
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrUnreadable) {
			t.Errorf("error %v is not an *Error of kind ErrUnreadable", err)
		}
	})

	t.Run("a results file", func(t *testing.T) {
		path := filepath.Join(dir, "results.json")
		if err := os.WriteFile(path, []byte(`{"schema": "`+results.Schema+`"}`), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path)
		if !errors.Is(err, ErrResultsFile) || !strings.Contains(err.Error(), "latgate bless --from "+path) {
			t.Errorf("error %v: want ErrResultsFile naming `latgate bless --from %s`", err, path)
		}
	})
}
