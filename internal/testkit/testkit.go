// Package testkit holds the helpers latgate's tests share, instead of a copy
// in every package: files written and read in one line, the repository's
// root, the check that no atomic write left a temporary file, a snapshot of
// a directory, the latgate binary built once per test binary, and an
// OTLP/HTTP collector on loopback that decodes what it is sent.
//
// Every helper takes a testing.TB, calls t.Helper, and fails the test on an
// error it cannot recover from.
package testkit

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
)

// WriteFile writes body to dir/name, creating its directory, and returns
// the path.
func WriteFile(t testing.TB, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// ReadFile returns the content of path.
func ReadFile(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Mkdir makes dir parent/name (and its parents) and returns it.
func Mkdir(t testing.TB, parent, name string) string {
	t.Helper()
	d := filepath.Join(parent, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// RepoRoot is the root of the latgate repository (the directory of go.mod),
// found from this file's place in it, whatever the test's directory.
func RepoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("testkit: no caller information")
	}
	root := filepath.Join(filepath.Dir(file), "..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("testkit: %s is not the repository root: %v", root, err)
	}
	return root
}

// AssertNoTemp fails the test when dir holds a temporary file of an atomic
// write (".NAME-*.tmp"): a write that failed or was interrupted must leave
// none behind.
func AssertNoTemp(t testing.TB, dir string) {
	t.Helper()
	left, err := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("temporary files left behind: %q", left)
	}
}

// Snapshot reads every regular file in dir (not below), by name.
func Snapshot(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		if e.Type().IsRegular() {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			files[e.Name()] = data
		}
	}
	return files
}

// Changed lists the files that differ between two snapshots: changed,
// created or removed.
func Changed(before, after map[string][]byte) []string {
	var out []string
	for name, data := range before {
		if now, ok := after[name]; !ok || !bytes.Equal(now, data) {
			out = append(out, name)
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			out = append(out, name)
		}
	}
	return out
}

// FreePort returns a loopback port nothing listens on now, for a server a
// test starts. It is drawn at random below the kernel's ephemeral range
// (Linux: 32768 and up), which every listener on port 0 of every test
// package draws from: a port that listener had and closed is handed to the
// next one at once, and a server given it would find it taken (seen under
// load: another package's httptest server on a serve test's port). It
// never hands out a port twice in one process (given); only another
// package's FreePort can draw the same one, one time in thousands.
func FreePort(t testing.TB) string {
	t.Helper()
	given.mu.Lock()
	defer given.mu.Unlock()
	if given.ports == nil {
		given.ports = map[int]bool{}
	}
	for range 100 {
		n := 20000 + rand.IntN(12000)
		if given.ports[n] {
			continue // this process's already, perhaps not yet listened on
		}
		port := strconv.Itoa(n)
		l, err := net.Listen("tcp", "127.0.0.1:"+port)
		if err != nil {
			continue // taken
		}
		l.Close()
		given.ports[n] = true
		return port
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

// given are the ports FreePort has handed out in this process: a test
// binary's parallel tests each draw one, and two drawing the same port
// before either listens (about 1% of runs of internal/serve's tests, seen
// as "already accepts connections before … starts") is ruled out; only
// another package's process can still draw it.
var given struct {
	mu    sync.Mutex
	ports map[int]bool
}

// built are the binaries Build built, by package, in one temporary
// directory that Main removes.
var built struct {
	mu   sync.Mutex
	dir  string
	bins map[string]*binary
}

type binary struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

// Latgate builds cmd/latgate once per test binary (the first test that asks
// waits for it; the others share it) and returns its path. It skips the
// test when there is no go command.
func Latgate(t testing.TB) string {
	t.Helper()
	return Build(t, "github.com/latgate/latgate/cmd/latgate")
}

// Build builds the main package pkg (an import path) once per test binary
// and returns the binary's path; it skips the test when there is no go
// command. Main removes what it built.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build " + pkg + " with")
	}
	built.mu.Lock()
	if built.bins == nil {
		built.bins = map[string]*binary{}
	}
	if built.dir == "" {
		if built.dir, err = os.MkdirTemp("", "latgate-testkit-"); err != nil {
			built.mu.Unlock()
			t.Fatal(err)
		}
	}
	b := built.bins[pkg]
	if b == nil {
		b = &binary{path: filepath.Join(built.dir, path.Base(pkg)+strconv.Itoa(len(built.bins)))}
		built.bins[pkg] = b
	}
	built.mu.Unlock()
	b.once.Do(func() {
		cmd := exec.Command(gobin, "build", "-o", b.path, pkg)
		cmd.Dir = RepoRoot(t)
		b.out, b.err = cmd.CombinedOutput()
	})
	if b.err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, b.err, b.out)
	}
	return b.path
}

// TimingEnv names the environment variable that runs the timing tests
// (see Timing): .ci/run sets it in a step of its own.
const TimingEnv = "LATGATE_TIMING_TESTS"

// Timing skips a test that is decided by the machine's own timing — a 0%
// tolerance on tens of milliseconds, a simulated step the bless drift check
// must see, queueing figures — unless $LATGATE_TIMING_TESTS is 1. Those
// tests pass on a quiet machine and are not what the README's test command
// promises on a laptop busy compiling something: .ci/run runs them in a
// step of their own, one at a time.
func Timing(t testing.TB) {
	t.Helper()
	if os.Getenv(TimingEnv) != "1" {
		t.Skipf("a timing test: set %s=1 to run it (on a quiet machine; .ci/run does)", TimingEnv)
	}
}

// ScriptsEnv names the environment variable that runs the script tests
// (see Scripts): .ci/run sets it in a step of its own.
const ScriptsEnv = "LATGATE_SCRIPT_TESTS"

// Scripts skips a test of the shell around latgate — the GitHub Action's
// steps and workflows run as a runner would, the release script's
// cross-builds — unless $LATGATE_SCRIPT_TESTS is 1. Each builds latgate
// from source (six platforms for a release) and runs it as a workflow
// would, minutes of CPU on a fresh machine for code that is shell and
// YAML, not Go: .ci/run runs them in a step of their own.
func Scripts(t testing.TB) {
	t.Helper()
	if os.Getenv(ScriptsEnv) != "1" {
		t.Skipf("a script test: set %s=1 to run it (.ci/run does)", ScriptsEnv)
	}
}

// Parallel is the -test.parallel that Main sets when the command line
// sets none: most on-the-wire tests wait on a simulator in real time and
// use little CPU, so more of them at once than the machine has cores
// shortens the run without loading it.
const Parallel = 4

// Main runs the tests of a package that uses Latgate (at Parallel tests at
// once unless -test.parallel says otherwise) and removes the binary
// afterwards: func TestMain(m *testing.M) { testkit.Main(m) }.
func Main(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", strconv.Itoa(max(Parallel, runtime.GOMAXPROCS(0))))
	}
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}
