package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func sampleFile() *File {
	temp := 0.2
	return &File{
		Schema: Schema, Version: "0.1.0",
		StartedAt:  time.Date(2025, 3, 4, 5, 6, 7, 123_000_000, time.UTC),
		FinishedAt: time.Date(2025, 3, 4, 5, 7, 0, 0, time.UTC),
		ConfigPath: "latgate.yaml", ConfigHash: "c0ffee",
		Partial: true, PartialReason: "interrupted",
		Run: Run{Requests: 2, Warmup: 1, Concurrency: 1, TimeoutMS: 60000, Order: "interleave", Seed: 1},
		Targets: []Target{{
			Name: "primary", BaseURL: "sim", Model: "sim-small", ReturnedModels: []string{"sim-small"},
			Params: Params{MaxTokens: 64, Temperature: &temp, Stream: true},
			Prompts: []Prompt{{
				ID: "greeting <html> & co", Hash: "1a2b", Requests: 2, Errors: 1, ByClass: map[string]int{ErrTimeout: 1},
				Metrics:  Metrics{TTFT: &Summary{N: 1, P50: 412.118, P95: 412.118, P99: 412.118, Mean: 412.118, Min: 412.118, Max: 412.118}},
				Samples:  []Sample{{Seq: 0, TTFT: 412.118, Total: 700.5, ITL: []float64{4.1, 3.9}, OutputTokens: 3, TokenSource: "usage", Chunks: 4}},
				Failures: []Failure{{Seq: 1, AtMS: 800, Class: ErrTimeout, Message: "deadline exceeded"}},
			}},
			Requests: 2, Errors: 1, ErrorRate: 0.5, ByClass: map[string]int{ErrTimeout: 1},
		}},
	}
}

func TestWriteRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "results.json")
	if err := Write(path, sampleFile()); err != nil {
		t.Fatalf("Write: %v", err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if diff := cmp.Diff(sampleFile(), got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.MarshalIndent(sampleFile(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(bytes.ReplaceAll(want, []byte(`\u003chtml\u003e \u0026`), []byte("<html> &")), '\n')
	if diff := cmp.Diff(string(want), string(data)); diff != "" {
		t.Errorf("file is not two-space indented JSON without HTML escapes (-want +got):\n%s", diff)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o644 {
		t.Errorf("mode %v, want 0644", got)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(left) > 0 {
		t.Errorf("temporary files left behind: %q", left)
	}
}

func TestWriteErrorKeepsOld(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.json")
	old := []byte("previous results\n")
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	f := sampleFile()
	f.Targets[0].Prompts[0].Samples[0].TTFT = math.NaN()
	if err := Write(path, f); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Write of a NaN = %v, want an error naming %s", err, path)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, old) {
		t.Errorf("failed Write changed the file to %q", got)
	}
}

func TestDecodeErrors(t *testing.T) {
	good, err := json.MarshalIndent(sampleFile(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	edited := func(edit func(f *File)) string {
		f := sampleFile()
		edit(f)
		data, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	badType := strings.Replace(string(good), `"requests": 2,`, `"requests": "2",`, 1)
	badTypeLine := strings.Count(badType[:strings.Index(badType, `"requests": "2"`)], "\n") + 1
	tests := []struct {
		name  string
		data  string
		kind  error
		frags []string
	}{
		{"empty", "", ErrFileInvalid, []string{"r.json: results file is empty", "run the measurement again"}},
		{"truncated", string(good[:len(good)/2]), ErrFileInvalid, []string{"results file is truncated"}},
		{"not JSON", "{\n  \"schema\": \"latgate.results/v1\",\n  \"targets\": [,]\n}", ErrFileInvalid,
			[]string{"r.json:3:15: results file is not valid JSON: invalid character ','"}},
		{"top level string", `"x"`, ErrFileInvalid, []string{"r.json:1:3: results file holds a JSON string, want an object"}},
		{"wrong field type", badType, ErrFileInvalid,
			[]string{"r.json:" + strconv.Itoa(badTypeLine) + ":", "field run.requests holds a JSON string, want a number"}},
		{"a baseline by mistake", `{"schema": "latgate.baseline/v1", "targets": []}`, ErrFileSchema,
			[]string{"this is a baseline file (schema latgate.baseline/v1), not a results file"}},
		{"newer schema", `{"schema": "latgate.results/v2"}`, ErrFileSchema,
			[]string{"latgate.results/v2 was written by a newer latgate", "upgrade latgate"}},
		{"other schema", `{"schema": "latgate.results/vX"}`, ErrFileSchema,
			[]string{`not a latgate results file (schema "latgate.results/vX", want latgate.results/v1)`}},
		{"no schema", `{"targets": []}`, ErrFileSchema, []string{`not a latgate results file (no "schema" field)`}},
		{"no targets", `{"schema": "latgate.results/v1"}`, ErrFileInvalid, []string{"results file has no targets"}},
		{"target without name", edited(func(f *File) { f.Targets[0].Name = "" }), ErrFileInvalid, []string{"target 1 has no name"}},
		{"prompt without id", edited(func(f *File) { f.Targets[0].Prompts[0].ID = "" }), ErrFileInvalid,
			[]string{"target primary: prompt 1 has no id"}},
		// A file's text an error quotes, or compare and bless print, is
		// one line of printable text.
		{"a baseline schema with escape codes", "{\"schema\": \"latgate.baseline/\\u001b]8;;https://evil.example\\u0007x\\nlatgate: PASS\"}", ErrFileSchema,
			[]string{`this is a baseline file (schema latgate.baseline/\x1b]8;;https://evil.example\x07x\nlatgate: PASS), not a results file`}},
		{"a prompt without id in a target named with escape codes", edited(func(f *File) {
			f.Targets[0].Name, f.Targets[0].Prompts[0].ID = "x\x1b[2K\rPASS", ""
		}), ErrFileInvalid, []string{`target x\x1b[2K\rPASS: prompt 1 has no id`}},
		{"a partial run's reason with escape codes", edited(func(f *File) {
			f.Partial, f.PartialReason = true, "interrupted\x1b]8;;https://evil.example\x07here"
		}), ErrFileInvalid, []string{"partial_reason: holds the control character U+001B"}},
		{"a prompt twice", edited(func(f *File) { f.Targets[0].Prompts = append(f.Targets[0].Prompts, f.Targets[0].Prompts[0]) }), ErrFileInvalid,
			[]string{"target primary: prompt " + sampleFile().Targets[0].Prompts[0].ID + " appears twice"}},
		{"a target twice", edited(func(f *File) { f.Targets = append(f.Targets, f.Targets[0]) }), ErrFileInvalid,
			[]string{"target primary appears twice"}},
		{"a bidi override in the version", edited(func(f *File) { f.Version = "v1\u202e" }), ErrFileInvalid,
			[]string{"latgate_version: holds the formatting character U+202E"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Decode([]byte(tt.data), "r.json")
			if err == nil {
				t.Fatalf("Decode succeeded: %+v", f)
			}
			t.Log(err)
			var e *FileError
			if !errors.As(err, &e) || e.Path != "r.json" {
				t.Fatalf("error %T %v is not a *FileError for r.json", err, err)
			}
			if !errors.Is(err, tt.kind) {
				t.Errorf("error %q is not %v", err, tt.kind)
			}
			if strings.ContainsAny(err.Error(), "\x1b\x07\r\n\u202e") {
				t.Errorf("error %q holds the file's escape codes raw", err)
			}
			for _, frag := range tt.frags {
				if !strings.Contains(err.Error(), frag) {
					t.Errorf("error %q does not contain %q", err, frag)
				}
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.json")
	_, err := Read(missing)
	if !errors.Is(err, ErrFileNotFound) || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "no results file at "+missing) {
		t.Errorf("Read of a missing file = %v, want ErrFileNotFound naming %s", err, missing)
	}
	if _, err := Read(dir); !errors.Is(err, ErrFileUnreadable) {
		t.Errorf("Read of a directory = %v, want ErrFileUnreadable", err)
	}
}
