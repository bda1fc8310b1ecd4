// Package golden compares test output with golden files, which
// `go test -update` rewrites: the one convention for every package whose
// outputs are golden-tested (report, baseline, selftest, cli).
package golden

import (
	"flag"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// update is the -update flag of every test binary that imports golden.
var update = flag.Bool("update", false, "rewrite the golden files instead of comparing with them")

// Check compares got with the golden file at path (relative to the test's
// directory, usually testdata/NAME) and reports a difference as
// (-want +got); under -update it writes got to path instead.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got; go test -update accepts the new output):\n%s", path, diff)
	}
}
