package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBuildFrom(t *testing.T) {
	t.Parallel()
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: "2026-11-30T10:00:00Z"}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "0123456789abcdef0123456789abcdef01234567"
	tests := []struct {
		name     string
		info     *debug.BuildInfo
		ok       bool
		override string
		want     buildInfo
		line     string
	}{
		{"go install @version (module zip: no VCS stamp)",
			&debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Version: "v1.2.3"}}, true, "",
			buildInfo{Version: "v1.2.3", GoVersion: "go1.26.1"}, "v1.2.3 (go1.26.1)"},
		{"a clean checkout",
			&debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Version: "v0.0.0-20261130100000-0123456789ab"}, Settings: vcs(rev, "false")}, true, "",
			buildInfo{Version: "v0.0.0-20261130100000-0123456789ab", Revision: rev, Time: "2026-11-30T10:00:00Z", GoVersion: "go1.26.1"},
			"v0.0.0-20261130100000-0123456789ab (revision 0123456789ab, go1.26.1)"},
		{"a checkout with uncommitted changes",
			&debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Version: "v0.0.0-20261130100000-0123456789ab+dirty"}, Settings: vcs(rev, "true")}, true, "",
			buildInfo{Version: "v0.0.0-20261130100000-0123456789ab+dirty", Revision: rev, Time: "2026-11-30T10:00:00Z", Modified: true, GoVersion: "go1.26.1"},
			"v0.0.0-20261130100000-0123456789ab+dirty (revision 0123456789ab, modified, go1.26.1)"},
		{"a release build: the link-time version wins",
			&debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "false")}, true, "v1.4.0",
			buildInfo{Version: "v1.4.0", Revision: rev, Time: "2026-11-30T10:00:00Z", GoVersion: "go1.26.1"},
			"v1.4.0 (revision 0123456789ab, go1.26.1)"},
		{"no build info", nil, false, "",
			buildInfo{Version: "(devel)", GoVersion: runtime.Version()}, "(devel) (" + runtime.Version() + ")"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := buildFrom(tt.info, tt.ok, tt.override)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("buildFrom (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.line, got.String()); diff != "" {
				t.Errorf("String (-want +got):\n%s", diff)
			}
		})
	}
}

// TestVersionStampedByGoBuild builds latgate the way users do, in a Git
// checkout, and checks that `latgate version` reports the commit, the dirty
// flag and the link-time version. The checkout is a fresh repository holding
// a copy of this module: go build stamps VCS information only where .git is
// a directory (not in a `git worktree`, where .git is a file).
func TestVersionStampedByGoBuild(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds latgate three times")
	}
	for _, tool := range []string{"git", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	src := filepath.Join("..", "..")
	repo := t.TempDir()
	for _, dir := range []string{"cmd", "internal", "pkg", "go.mod", "go.sum"} {
		if out, err := exec.Command("cp", "-R", filepath.Join(src, dir), repo).CombinedOutput(); err != nil {
			t.Fatalf("copy %s: %v\n%s", dir, err, out)
		}
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = repo
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "test")
	rev := git("rev-parse", "HEAD")

	version := func(ldflags string) string {
		t.Helper()
		bin := filepath.Join(t.TempDir(), "latgate")
		cmd := exec.Command("go", "build", "-buildvcs=true", "-ldflags="+ldflags, "-o", bin, "./cmd/latgate")
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GOFLAGS=") // this machine's GOFLAGS may turn stamping off
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		out, err := exec.Command(bin, "version").CombinedOutput()
		if err != nil {
			t.Fatalf("latgate version: %v\n%s", err, out)
		}
		return string(out)
	}
	expect := func(out string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("latgate version does not say %q:\n%s", w, out)
			}
		}
	}

	out := version("")
	expect(out, "revision:  "+rev+"\n", "modified:  false\n", "go:        go1.", "(revision "+rev[:12]+", go1.")
	expect(out, "version:   v0.0.0-") // a pseudo-version naming the commit
	expect(out, rev[:12]+"\n")

	if err := os.WriteFile(filepath.Join(repo, "cmd", "latgate", "extra.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	expect(version(""), "modified:  true\n", "(revision "+rev[:12]+", modified, go1.")

	expect(version("-X github.com/latgate/latgate/internal/cli.Version=v9.8.7"), "latgate version v9.8.7 (revision "+rev[:12], "version:   v9.8.7\n")
}

// TestVersionUnstamped: a binary built without VCS information (a test
// binary, -buildvcs=false, a git worktree) cannot tell whether its tree was
// modified, so it does not claim "false".
func TestVersionUnstamped(t *testing.T) {
	t.Parallel()
	if readBuild().Revision != "" {
		t.Skip("this test binary has VCS information")
	}
	code, out, errs := run(t, nil, "version")
	if code != ExitPass || !strings.Contains(out, "revision:  unknown") || !strings.Contains(out, "modified:  unknown\n") {
		t.Errorf("exit %d, stdout:\n%s\nstderr: %s\nwant revision and modified unknown", code, out, errs)
	}
}
