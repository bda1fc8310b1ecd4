package action

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/latgate/latgate/internal/testkit"
)

// The action builds latgate in its "Build latgate" step unless actions/cache
// restores it. Runners share one simulated cache (sharedCache) unless a test
// gives them their own (the cache and overhead tests do): the first use
// builds and saves while later ones wait, then every use restores it. The
// tests' own latgate (requireCheck) is built once too.
var shared struct {
	dir string // the shared cache, made by TestMain

	mu   sync.Mutex // held through the use that fills the cache
	warm bool

	binOnce sync.Once
	bin     string
	binErr  error
	binOut  []byte
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "latgate-action-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	shared.dir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// sharedCache returns the shared simulated actions/cache directory.
func sharedCache() string { return filepath.Join(shared.dir, "actions-cache") }

// holdSharedCache is called at the start of a use of the action with the
// shared cache: until the cache holds a build, uses run one at a time, so
// only the first builds. It returns the function to call when the use ends.
func (r *runner) holdSharedCache() (release func()) {
	if r.cacheDir != sharedCache() {
		return func() {}
	}
	shared.mu.Lock()
	if shared.warm {
		shared.mu.Unlock()
		return func() {}
	}
	return func() {
		entries, _ := os.ReadDir(r.cacheDir)
		shared.warm = len(entries) > 0
		shared.mu.Unlock()
	}
}

// latgateBin builds this tree's latgate once and returns its path.
func latgateBin(t *testing.T) string {
	t.Helper()
	shared.binOnce.Do(func() {
		shared.bin = filepath.Join(shared.dir, "latgate")
		build := exec.Command("go", "build", "-o", shared.bin, "./cmd/latgate")
		build.Dir = testkit.RepoRoot(t)
		var out bytes.Buffer
		build.Stdout, build.Stderr = &out, &out
		shared.binErr, shared.binOut = build.Run(), out.Bytes()
	})
	if shared.binErr != nil {
		t.Fatalf("go build ./cmd/latgate: %v\n%s", shared.binErr, shared.binOut)
	}
	return shared.bin
}
