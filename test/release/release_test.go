// Package release tests scripts/release.sh, which the release workflow
// (.github/workflows/release.yml) runs on a tag: the binaries it builds, the
// SHA256SUMS that verify them, the version they report, and that a second
// build gives the same bytes.
package release

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/latgate/latgate/internal/testkit"
)

// release runs the script for targets into a new directory.
func release(t *testing.T, version, targets string) (string, []byte, error) {
	t.Helper()
	out := t.TempDir()
	cmd := exec.Command("bash", filepath.Join(testkit.RepoRoot(t), "scripts", "release.sh"), version, out)
	cmd.Env = append(os.Environ(), "RELEASE_TARGETS="+targets)
	log, err := cmd.CombinedOutput()
	return out, log, err
}

// TestReleaseScript builds this machine's target and one other (so a
// cross-build is exercised) twice. RELEASE_TEST_ALL=1 builds all six. The
// first build is shared by the subtests; the second, which only has to link
// (the first filled the build cache), runs beside the checks of the first.
func TestReleaseScript(t *testing.T) {
	testkit.Scripts(t)
	if testing.Short() {
		t.Skip("cross-builds latgate")
	}
	for _, tool := range []string{"bash", "sha256sum", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	host := runtime.GOOS + "/" + runtime.GOARCH
	targets := host + " windows/arm64"
	if os.Getenv("RELEASE_TEST_ALL") == "1" {
		targets = "linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"
	}
	const version = "v9.8.7-rc.1"
	dir, log, err := release(t, version, targets)
	if err != nil {
		t.Fatalf("release.sh: %v\n%s", err, log)
	}
	sums, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string // the binaries' names, in target order
	for _, target := range strings.Fields(targets) {
		goos, goarch, _ := strings.Cut(target, "/")
		name := fmt.Sprintf("latgate_%s_%s", goos, goarch)
		if goos == "windows" {
			name += ".exe"
		}
		want = append(want, name)
	}

	t.Run("reproducible", func(t *testing.T) {
		t.Parallel()
		// The same source builds the same bytes.
		dir2, log, err := release(t, version, targets)
		if err != nil {
			t.Fatalf("second release.sh: %v\n%s", err, log)
		}
		sums2, err := os.ReadFile(filepath.Join(dir2, "SHA256SUMS"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(sums, sums2) {
			t.Errorf("two builds of the same source differ:\n%s\n---\n%s", sums, sums2)
		}
	})
	t.Run("SHA256SUMS", func(t *testing.T) {
		t.Parallel()
		// One binary per target, each listed once in SHA256SUMS, which verifies.
		for _, name := range want {
			if !bytes.Contains(sums, []byte("  "+name+"\n")) {
				t.Errorf("SHA256SUMS does not list %s:\n%s", name, sums)
			}
		}
		if n := strings.Count(string(sums), "\n"); n != len(want) {
			t.Errorf("SHA256SUMS has %d lines, want %d:\n%s", n, len(want), sums)
		}
		check := exec.Command("sha256sum", "--check", "--strict", "SHA256SUMS")
		check.Dir = dir
		if out, err := check.CombinedOutput(); err != nil {
			t.Errorf("sha256sum --check: %v\n%s", err, out)
		}
	})
	t.Run("a corrupted binary fails the check", func(t *testing.T) {
		t.Parallel()
		// The file really is verified.
		tampered := t.TempDir()
		for _, name := range append(slices.Clone(want), "SHA256SUMS") {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if name == want[0] {
				data[len(data)/2] ^= 0xff
			}
			if err := os.WriteFile(filepath.Join(tampered, name), data, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		check := exec.Command("sha256sum", "--check", "--strict", "SHA256SUMS")
		check.Dir = tampered
		if out, err := check.CombinedOutput(); err == nil {
			t.Errorf("sha256sum --check passed a corrupted %s:\n%s", want[0], out)
		}
	})
	t.Run("version", func(t *testing.T) {
		t.Parallel()
		// The host binary runs and reports the release's version.
		hostBin := filepath.Join(dir, "latgate_"+strings.ReplaceAll(host, "/", "_"))
		if runtime.GOOS == "windows" {
			hostBin += ".exe"
		}
		out, err := exec.Command(hostBin, "version").CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), "latgate version "+version+" (") {
			t.Errorf("%s version: %v\n%s", hostBin, err, out)
		}
	})
}

// TestReleaseScriptFailedBuild: a target that does not build fails the
// script, which names it with go's error, and writes no SHA256SUMS.
func TestReleaseScriptFailedBuild(t *testing.T) {
	testkit.Scripts(t)
	dir, log, err := release(t, "v1.2.3", "linux/nosuch")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("release.sh linux/nosuch: %v, want exit 1:\n%s", err, log)
	}
	for _, want := range []string{"release: building latgate_linux_nosuch failed:", "nosuch"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("output lacks %q:\n%s", want, log)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "SHA256SUMS")); err == nil {
		t.Errorf("SHA256SUMS was written although a build failed")
	}
}

func TestReleaseScriptRefusesABadVersion(t *testing.T) {
	for _, v := range []string{"", "1.2.3", "v1.2", "v1.2.3;rm -rf /", "latest"} {
		_, log, err := release(t, v, "linux/amd64")
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(log), "want a version like v1.2.3") {
			t.Errorf("release.sh %q: %v, want exit 2 naming the format:\n%s", v, err, log)
		}
	}
}
