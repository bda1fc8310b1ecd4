package baseline

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to the baseline loader: it never panics;
// an error is always an *Error of a known kind naming the file; a decoded
// baseline keeps the promises check relies on, and its canonical encoding
// decodes again to the same encoding.
func FuzzDecode(f *testing.F) {
	good, err := os.ReadFile(filepath.Join("testdata", "encode.golden.json"))
	if err != nil {
		f.Fatal(err)
	}
	lines := strings.SplitAfter(string(good), "\n")
	for _, s := range []string{
		string(good),
		string(good[:len(good)/2]), // truncated
		strings.Replace(string(good), "latgate.baseline/v1", "latgate.baseline/v9", 1),
		strings.Replace(string(good), "latgate.baseline/v1", "latgate.results/v1", 1),
		strings.Replace(string(good), `"ttft_ms":`, `"ttft_ms":"x",`, 1),
		strings.Join(lines[:4], "") + "<<<<<<< HEAD\n" + strings.Join(lines[4:], ""),
		"", " \n", "null", "[]", "{}", `{"schema": 1}`, `{"schema": "acme/v1"}`,
		`{"schema": "latgate.baseline/v1"}`,
		`{"schema": "latgate.baseline/v1", "targets": [{"name": "a", "prompts": [{"id": "p"}, {"id": "p"}]}]}`,
		`{"schema": "latgate.baseline/v1", "blessed_at": "9999-12-31T23:59:59-01:00", "targets": [{"name": "a", "prompts": [{"id": "p", "samples": [{"seq": 1, "ttft_ms": 1e300}]}]}]}`,
	} {
		f.Add([]byte(s))
	}
	kinds := []error{ErrNotFound, ErrUnreadable, ErrSyntax, ErrResultsFile, ErrUnknownSchema, ErrNewerSchema, ErrIncomplete, ErrInvalid}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Decode(data, "fuzz.json")
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || !strings.HasPrefix(err.Error(), "fuzz.json") {
				t.Fatalf("error %q (%T) is not an *Error naming the file", err, err)
			}
			known := false
			for _, k := range kinds {
				known = known || errors.Is(err, k)
			}
			if !known {
				t.Fatalf("error %q has an unknown kind %v", err, e.Kind)
			}
			return
		}
		if b.Schema != Schema {
			t.Fatalf("decoded schema %q", b.Schema)
		}
		if problem := missing(b); problem != "" {
			t.Fatalf("decoded a baseline that is %s", problem)
		}
		enc, err := Encode(b)
		if err != nil {
			// Only a time outside what JSON can hold: the input kept its
			// offset, the canonical form is UTC (year 10000).
			if strings.Contains(err.Error(), "year outside of range") {
				return
			}
			t.Fatalf("a decoded baseline does not encode: %v", err)
		}
		again, err := Decode(enc, "fuzz.json")
		if err != nil {
			t.Fatalf("the encoding of a decoded baseline does not decode: %v\n%s", err, enc)
		}
		enc2, err := Encode(again)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(enc, enc2) {
			t.Fatalf("encode(decode(encode(b))) differs from encode(b):\n%s\n---\n%s", enc, enc2)
		}
	})
}
