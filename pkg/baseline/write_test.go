package baseline

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/latgate/latgate/internal/testkit"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "latgate.baseline.json")
	want := encodeFixture(t, nil)

	if err := Write(path, fixture()); err != nil {
		t.Fatalf("Write: %v", err)
	}
	assertFile(t, path, want)
	assertPerm(t, path, 0o644)

	// Replacing keeps the permission bits of the file it replaces.
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	f := fixture()
	f.GitCommit = "fedcba"
	if err := Write(path, f); err != nil {
		t.Fatalf("Write over an existing file: %v", err)
	}
	want = encodeFixture(t, func(f *File) { f.GitCommit = "fedcba" })
	assertFile(t, path, want)
	assertPerm(t, path, 0o600)
	testkit.AssertNoTemp(t, dir)
}

func TestWriteFailureKeepsOld(t *testing.T) {
	boom := errors.New("disk full")
	tests := []struct {
		name string
		file func() *File
		wrap func(io.Writer) io.Writer
		dir  func(t *testing.T, dir string) // prepares the directory
	}{
		{name: "encode error", file: func() *File {
			f := fixture()
			f.Targets[0].Prompts[0].Samples[0].TTFT = math.NaN()
			return f
		}},
		{name: "write error after half the bytes", file: fixture, wrap: func(w io.Writer) io.Writer {
			return &failingWriter{w: w, err: boom}
		}},
		{name: "read-only directory", file: fixture, dir: func(t *testing.T, dir string) {
			if os.Geteuid() == 0 {
				t.Skip("root ignores directory permissions")
			}
			if err := os.Chmod(dir, 0o555); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(dir, 0o755) })
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "latgate.baseline.json")
			old := []byte("the previous baseline\n") // any bytes: Write must not touch them
			if err := os.WriteFile(path, old, 0o644); err != nil {
				t.Fatal(err)
			}
			if tt.dir != nil {
				tt.dir(t, dir)
			}
			err := writeFile(path, tt.file(), tt.wrap)
			if err == nil {
				t.Fatal("write succeeded")
			}
			t.Log(err)
			assertFile(t, path, old)
			testkit.AssertNoTemp(t, dir)
		})
	}
}

// failingWriter writes half of what it is given, then fails.
type failingWriter struct {
	w   io.Writer
	err error
}

func (f *failingWriter) Write(p []byte) (int, error) {
	n, err := f.w.Write(p[:len(p)/2])
	if err != nil {
		return n, err
	}
	return n, f.err
}

const helperEnv = "LATGATE_BASELINE_HELPER_PATH"

// largeFixture is a baseline of a few hundred kilobytes.
func largeFixture() *File {
	f := fixture()
	for i := range f.Targets {
		for j := range f.Targets[i].Prompts {
			p := &f.Targets[i].Prompts[j]
			s := p.Samples[0]
			p.Samples = nil
			for seq := range 250 {
				s.Seq, s.TTFT = seq, 400+float64(seq%97)*1.001
				p.Samples = append(p.Samples, s)
			}
		}
	}
	return f
}

// TestWriteKilled kills a process in the middle of writing a baseline and
// checks that the previous baseline is intact.
func TestWriteKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "latgate.baseline.json")
	if err := Write(path, fixture()); err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	full, err := Encode(largeFixture())
	if err != nil {
		t.Fatal(err)
	}

	var out bytes.Buffer
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+path)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	// Wait for the temporary file to hold part of the new baseline. The
	// deadline is generous: it only bounds a broken test on a slow machine.
	var tmp string
	deadline := time.After(60 * time.Second)
poll:
	for {
		select {
		case err := <-done:
			t.Fatalf("helper exited before it was killed: %v\n%s", err, out.Bytes())
		case <-deadline:
			cmd.Process.Kill()
			<-done
			t.Fatalf("no partial temporary file appeared\n%s", out.Bytes())
		case <-time.After(5 * time.Millisecond):
		}
		matches, _ := filepath.Glob(filepath.Join(dir, ".latgate.baseline-*.tmp"))
		for _, m := range matches {
			if fi, err := os.Stat(m); err == nil && fi.Size() > 0 {
				tmp = m
				break poll
			}
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-done

	// The kill happened mid-write: the temporary file is a strict prefix of the new baseline.
	partial, err := os.ReadFile(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if len(partial) == 0 || len(partial) >= len(full) || !bytes.HasPrefix(full, partial) {
		t.Fatalf("temporary file holds %d bytes, want a strict prefix of the %d-byte new baseline", len(partial), len(full))
	}
	assertFile(t, path, old)
	if _, err := Load(path); err != nil {
		t.Errorf("the previous baseline no longer loads: %v", err)
	}
}

// TestHelperProcess is the process TestWriteKilled kills: it writes a large
// baseline and stalls halfway through.
func TestHelperProcess(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("helper for TestWriteKilled")
	}
	err := writeFile(path, largeFixture(), func(w io.Writer) io.Writer { return stallWriter{w} })
	fmt.Fprintf(os.Stderr, "helper was not killed; write returned %v\n", err)
	os.Exit(3)
}

// stallWriter writes half of what it is given, then waits to be killed.
type stallWriter struct{ w io.Writer }

func (s stallWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p[:len(p)/2])
	if err != nil {
		return n, err
	}
	time.Sleep(2 * time.Minute)
	return n, errors.New("stalled write was not killed")
}

func assertFile(t *testing.T, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s holds %d bytes, want the expected %d bytes", path, len(got), len(want))
	}
}

func assertPerm(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s has mode %v, want %v", path, got, want)
	}
}
