package action

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/latgate/latgate/internal/testkit"
)

var overhead = flag.Bool("overhead", false, "TestActionOverhead: measure and print the action's own overhead")

const actionRepo = "latgate/latgate"

// releaseServer builds this machine's release binary with scripts/release.sh
// and serves it, as GitHub serves release assets, at
// /latgate/latgate/releases/download/TAG/NAME on 127.0.0.1, for each tag.
// tamper corrupts the served binary of a tag (its SHA256SUMS unchanged).
// requests returns the paths asked for under a tag, in order.
func releaseServer(t *testing.T, version string, tags []string, tamper map[string]bool) (srv *httptest.Server, requests func(tag string) []string) {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("bash", filepath.Join(testkit.RepoRoot(t), "scripts", "release.sh"), version, dir)
	cmd.Env = append(os.Environ(), "RELEASE_TARGETS="+runtime.GOOS+"/"+runtime.GOARCH)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("release.sh: %v\n%s", err, out)
	}
	var mu sync.Mutex
	asked := map[string][]string{}
	mux := http.NewServeMux()
	for _, tag := range tags {
		prefix := "/" + actionRepo + "/releases/download/" + tag + "/"
		mux.HandleFunc(prefix, func(w http.ResponseWriter, req *http.Request) {
			mu.Lock()
			asked[tag] = append(asked[tag], req.URL.Path)
			mu.Unlock()
			name := strings.TrimPrefix(req.URL.Path, prefix)
			data, err := os.ReadFile(filepath.Join(dir, filepath.Base(name)))
			if err != nil || strings.Contains(name, "/") {
				http.NotFound(w, req)
				return
			}
			if tamper[tag] && name != "SHA256SUMS" {
				data[len(data)/2] ^= 0xff
			}
			_, _ = w.Write(data)
		})
	}
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, func(tag string) []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(asked[tag])
	}
}

// stepWhat returns what the runner did with the named step of the last use.
func (r *runner) stepWhat(name string) string {
	for _, s := range r.steps {
		if s.name == name {
			return s.what
		}
	}
	r.t.Fatalf("no step %q", name)
	return ""
}

// TestActionBinary covers where the action's latgate comes from: the
// release binary of its tag (checksum verified), a build when there is none,
// the build cache, and a refusal of a binary that does not match.
func TestActionBinary(t *testing.T) {
	testkit.Scripts(t)
	t.Parallel()
	if testing.Short() {
		t.Skip("builds latgate and measures the simulator")
	}
	requireCheck(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	t.Cleanup(cancel)
	const version = "v1.2.3"
	srv, requests := releaseServer(t, version, []string{"v1.2.3", "v1", "v6.6.6"}, map[string]bool{"v6.6.6": true})
	a := loadAction(t)
	bless := map[string]string{"command": "bless", "args": "--quiet --force"}

	newR := func(t *testing.T, ref string) *runner {
		r := newRunner(t, a, wiringWorkspace(t))
		// Its own cache: these tests are about what the action builds.
		r.actionRef, r.actionRepo, r.serverURL, r.cacheDir = ref, actionRepo, srv.URL, filepath.Join(r.tmp, "actions-cache")
		return r
	}
	mustPass := func(t *testing.T, r *runner) {
		t.Helper()
		if r.failedStep != "" {
			r.logOutput()
			t.Fatalf("step %q exited %d", r.failedStep, r.exitCode)
		}
	}

	for _, ref := range []string{"v1.2.3", "v1"} {
		t.Run("release binary of "+ref, func(t *testing.T) {
			t.Parallel()
			r := newR(t, ref)
			r.use(ctx, bless)
			mustPass(t, r)
			if got := r.stepOutputs["prebuilt"]["found"]; got != "true" {
				r.logOutput()
				t.Fatalf("found = %q, want the release binary", got)
			}
			for _, name := range []string{"Set up Go", "Key the build cache", "Restore latgate from the cache", "Build latgate", "Save latgate to the cache"} {
				if what := r.stepWhat(name); what != "skipped" {
					t.Errorf("step %q: %s, want skipped with a release binary", name, what)
				}
			}
			// The binary that ran is the release's: its version is the tag's.
			if !strings.Contains(r.stdout.String(), "latgate version "+version+" (") {
				t.Errorf("latgate version is not the release's %s:\n%s", version, r.stdout.String())
			}
			want := []string{"/" + actionRepo + "/releases/download/" + ref + "/SHA256SUMS",
				"/" + actionRepo + "/releases/download/" + ref + "/latgate_" + runtime.GOOS + "_" + runtime.GOARCH}
			if got := requests(ref); !slices.Equal(got, want) {
				t.Errorf("downloads %q, want %q", got, want)
			}
		})
	}

	t.Run("a binary that does not match SHA256SUMS is refused", func(t *testing.T) {
		t.Parallel()
		r := newR(t, "v6.6.6")
		r.use(ctx, bless)
		if r.failedStep != "Download the release binary" || r.exitCode != 2 {
			r.logOutput()
			t.Fatalf("failed step %q exit %d, want the download step to fail with 2", r.failedStep, r.exitCode)
		}
		if !strings.Contains(r.stdout.String(), "::error title=latgate::latgate_"+runtime.GOOS+"_"+runtime.GOARCH) ||
			!strings.Contains(r.stdout.String(), "does not match its SHA256SUMS") {
			t.Errorf("no ::error naming the mismatch:\n%s", r.stdout.String())
		}
		if _, err := os.Stat(filepath.Join(r.runnerTemp, "latgate-action", "bin", "latgate")); err == nil {
			t.Errorf("the mismatching binary was installed")
		}
	})

	t.Run("no release asset: built, then cached by ref and Go version", func(t *testing.T) {
		t.Parallel()
		cache := t.TempDir()
		for run, wantCache := range []string{"cache miss", "cache hit"} {
			r := newR(t, "v2.0.0") // no such release on the server
			r.cacheDir = cache
			r.use(ctx, bless)
			mustPass(t, r)
			if got := r.stepOutputs["prebuilt"]["found"]; got != "false" {
				t.Errorf("run %d: found = %q, want false", run+1, got)
			}
			if what := r.stepWhat("Restore latgate from the cache"); what != wantCache {
				t.Errorf("run %d: cache restore: %s, want %s", run+1, what, wantCache)
			}
			wantBuild, wantSave := "ran", "saved"
			if run == 1 {
				wantBuild, wantSave = "skipped", "skipped"
			}
			if what := r.stepWhat("Build latgate"); what != wantBuild {
				t.Errorf("run %d: build: %s, want %s", run+1, what, wantBuild)
			}
			if what := r.stepWhat("Save latgate to the cache"); what != wantSave {
				t.Errorf("run %d: save: %s, want %s", run+1, what, wantSave)
			}
			key := r.stepOutputs["key"]["key"]
			if !strings.Contains(key, "-v2.0.0-"+runtime.Version()+"-") || !strings.HasPrefix(key, "latgate-"+runnerOS()+"-"+runnerArch()+"-") {
				t.Errorf("run %d: cache key %q does not name the OS, architecture, ref and Go version", run+1, key)
			}
			if !strings.Contains(r.stdout.String(), "latgate version v2.0.0 (") {
				t.Errorf("run %d: the built latgate does not report the ref as its version:\n%s", run+1, r.stdout.String())
			}
		}
		// Another ref does not reuse that build.
		r := newR(t, "v2.0.1")
		r.cacheDir = cache
		r.use(ctx, bless)
		mustPass(t, r)
		if what := r.stepWhat("Restore latgate from the cache"); what != "cache miss" {
			t.Errorf("another ref: cache restore %s, want a miss", what)
		}
	})

	t.Run("prebuilt: false builds from source", func(t *testing.T) {
		t.Parallel()
		r := newR(t, "v1.2.3")
		r.use(ctx, map[string]string{"command": "bless", "args": "--quiet --force", "prebuilt": "false"})
		mustPass(t, r)
		if r.stepWhat("Download the release binary") != "skipped" || r.stepWhat("Build latgate") != "ran" {
			t.Errorf("steps %+v: want no download and a build", r.steps)
		}
	})
}

// TestActionOverhead measures and prints the action's own overhead: the
// time from the start of the action to latgate starting to measure, on the
// simulated runner, in four situations. It asserts nothing about time (the
// machine is shared); run it with
//
//	go test ./test/action -run TestActionOverhead -v -args -overhead
//
// setup-go is not run here (Go is installed): on a GitHub runner, add its
// time (a few seconds with the runner's tool cache) to the build rows, and
// the module downloads a cold build needs (GOMODCACHE is warm here).
func TestActionOverhead(t *testing.T) {
	testkit.Scripts(t)
	if !*overhead {
		t.Skip("prints figures; run with -args -overhead")
	}
	requireCheck(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	const runs = 3
	srv, _ := releaseServer(t, "v1.2.3", []string{"v1.2.3"}, nil)
	a := loadAction(t)
	type scenario struct {
		name, ref, expect string
		setup             func(r *runner, run int)
	}
	warmCache := t.TempDir()
	scenarios := []scenario{
		{"release binary (downloaded from 127.0.0.1, verified)", "v1.2.3", "Download the release binary", nil},
		{"build, cold: empty Go build cache, no action cache", "main", "Build latgate", func(r *runner, run int) {
			r.extraEnv = []string{"GOCACHE=" + filepath.Join(r.tmp, "gocache")}
		}},
		{"build, warm Go build cache, no action cache", "main", "Build latgate", nil},
		{"warm: the action's cache holds the build", "main", "Restore latgate from the cache", func(r *runner, run int) {
			r.cacheDir = warmCache
		}},
	}
	// Fill the action cache for the warm row.
	{
		r := newRunner(t, a, wiringWorkspace(t))
		r.actionRef, r.actionRepo, r.serverURL, r.cacheDir = "main", actionRepo, srv.URL, warmCache
		r.use(ctx, map[string]string{"command": "bless", "args": "--quiet --force"})
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%-58s %8s %8s %8s  (%d runs each)\n", "action overhead before latgate runs", "min", "median", "max", runs)
	for _, sc := range scenarios {
		var took []time.Duration
		for run := range runs {
			r := newRunner(t, a, wiringWorkspace(t))
			r.actionRef, r.actionRepo, r.serverURL, r.cacheDir = sc.ref, actionRepo, srv.URL, filepath.Join(r.tmp, "actions-cache")
			if sc.setup != nil {
				sc.setup(r, run)
			}
			r.use(ctx, map[string]string{"command": "bless", "args": "--quiet --force"})
			if r.failedStep != "" {
				r.logOutput()
				t.Fatalf("%s: step %q exited %d", sc.name, r.failedStep, r.exitCode)
			}
			if what := r.stepWhat(sc.expect); what == "skipped" || what == "cache miss" {
				t.Fatalf("%s: step %q: %s; the scenario did not happen", sc.name, sc.expect, what)
			}
			var d time.Duration
			for _, s := range r.steps {
				if s.name != "Run latgate" {
					d += s.took
				}
			}
			took = append(took, d)
		}
		slices.Sort(took)
		fmt.Fprintf(&table, "%-58s %7.2fs %7.2fs %7.2fs\n", sc.name, took[0].Seconds(), took[len(took)/2].Seconds(), took[len(took)-1].Seconds())
	}
	fmt.Fprintf(&table, "(%s/%s, %d CPUs, %s)\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
	t.Logf("\n%s", table.String())
	fmt.Print(table.String())
}
