package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/internal/testkit"
)

func TestWriteFile(t *testing.T) {
	tests := []struct {
		name     string
		existing *fs.FileMode // nil: no file before the write
		perm     fs.FileMode
		wantPerm fs.FileMode
	}{
		{name: "new file gets perm", perm: 0o644, wantPerm: 0o644},
		{name: "new file gets other perm", perm: 0o600, wantPerm: 0o600},
		{name: "existing file keeps its bits", existing: ptr(fs.FileMode(0o640)), perm: 0o644, wantPerm: 0o640},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "latgate.baseline.json")
			if tt.existing != nil {
				writeOld(t, path, "old")
				if err := os.Chmod(path, *tt.existing); err != nil {
					t.Fatal(err)
				}
			}
			if err := WriteFile(path, []byte("new\n"), tt.perm); err != nil {
				t.Fatalf("WriteFile: %v", err)
			}
			if got := testkit.ReadFile(t, path); got != "new\n" {
				t.Errorf("content = %q, want %q", got, "new\n")
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode().Perm(); got != tt.wantPerm {
				t.Errorf("perm = %v, want %v", got, tt.wantPerm)
			}
			testkit.AssertNoTemp(t, filepath.Dir(path))
		})
	}
}

func TestWriteUsesTempInSameDir(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "latgate.baseline.json")
	var seen []string
	err := Write(path, 0o644, func(w io.Writer) error {
		seen, _ = filepath.Glob(filepath.Join(dir, ".latgate.baseline-*.tmp")) // errors only on a bad pattern
		_, err := io.WriteString(w, "x")
		return err
	})
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	if len(seen) != 1 {
		t.Errorf("temp files during the write = %q, want one .latgate.baseline-*.tmp", seen)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("target missing after a write while it was absent before: %v", err)
	}
	testkit.AssertNoTemp(t, dir)
}

func TestWriteErrorKeepsOld(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name  string
		write func(w io.Writer) error
	}{
		{"fails before writing", func(io.Writer) error { return boom }},
		{"fails after a partial write", func(w io.Writer) error {
			if _, err := io.WriteString(w, `{"schema": "half`); err != nil {
				return err
			}
			return boom
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.json")
			writeOld(t, path, "old content\n")
			err := Write(path, 0o644, tt.write)
			if !errors.Is(err, boom) {
				t.Fatalf("Write error = %v, want it to wrap %v", err, boom)
			}
			if got := testkit.ReadFile(t, path); got != "old content\n" {
				t.Errorf("old file changed to %q", got)
			}
			testkit.AssertNoTemp(t, dir)
		})
	}
}

func TestWriteReadOnlyDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores directory permissions")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	writeOld(t, path, "old")
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	if err := WriteFile(path, []byte("new"), 0o644); err == nil {
		t.Fatal("WriteFile into a read-only directory succeeded")
	}
	if got := testkit.ReadFile(t, path); got != "old" {
		t.Errorf("old file changed to %q", got)
	}
}

func TestWriteFollowsSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.json")
	link := filepath.Join(dir, "link.json")
	writeOld(t, real, "old")
	if err := os.Symlink("real.json", link); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	if err := WriteFile(link, []byte("new"), 0o644); err != nil {
		t.Fatalf("WriteFile: %v", err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("link replaced by a regular file (err %v)", err)
	}
	if got := testkit.ReadFile(t, real); got != "new" {
		t.Errorf("link target = %q, want %q", got, "new")
	}
}

func TestWriteNotRegular(t *testing.T) {
	dir := t.TempDir()
	if err := WriteFile(dir, []byte("x"), 0o644); err == nil {
		t.Fatal("WriteFile over a directory succeeded")
	}
}

func TestTempPattern(t *testing.T) {
	got := map[string]string{}
	for _, p := range []string{"latgate.baseline.json", "dir/results.json", "noext", ".hidden"} {
		got[p] = tempPattern(p)
	}
	want := map[string]string{
		"latgate.baseline.json": ".latgate.baseline-*.tmp",
		"dir/results.json":      ".results-*.tmp",
		"noext":                 ".noext-*.tmp",
		".hidden":               "..hidden-*.tmp",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tempPattern (-want +got):\n%s", diff)
	}
}

func ptr[T any](v T) *T { return &v }

func writeOld(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWriteRemovesStaleTemps: the temporary files a killed write of the same
// file left (over a minute old) are removed by the next write; a fresh one
// (a write in progress), another file's, and files that only look similar
// are kept.
func TestWriteRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-2 * time.Minute)
	files := map[string]bool{ // name → removed
		".latgate.baseline-123456.tmp":  true,
		".latgate.baseline-42.tmp":      true,
		".latgate.baseline-999.tmp":     false, // fresh: a write in progress
		".latgate.baseline-abc.tmp":     false, // not our digits
		".results-123.tmp":              false, // another file's
		"latgate.baseline-123.tmp":      false, // no leading dot
		".latgate.baseline-123.tmp.bak": false,
	}
	for name := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if name != ".latgate.baseline-999.tmp" {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := WriteFile(filepath.Join(dir, "latgate.baseline.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, removed := range files {
		_, err := os.Stat(filepath.Join(dir, name))
		if gone := errors.Is(err, fs.ErrNotExist); gone != removed {
			t.Errorf("%s: removed %v, want %v", name, gone, removed)
		}
	}
}
