package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Fatal(...any)          { r.failed = true }

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.golden")
	if err := os.WriteFile(path, []byte("same\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, path, got string
		fail            bool
	}{
		{"equal", path, "same\n", false},
		{"different", path, "other\n", true},
		{"missing file", path + ".none", "x", true},
	} {
		r := &recorder{TB: t}
		Check(r, tt.path, []byte(tt.got))
		if r.failed != tt.fail {
			t.Errorf("%s: failed = %v, want %v", tt.name, r.failed, tt.fail)
		}
	}
}
