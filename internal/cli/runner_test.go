package cli

import (
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/results"
)

// TestStarvedRunner (#29): latgate's own process starved of the CPU while
// it checks records how late its runner woke, and says in every output
// that the runner was too busy, not the endpoint. The starvation is real:
// goroutines spinning in this process, several per CPU, so that the
// scheduler holds latgate's reads (and its probe) off the CPU for
// milliseconds at a time. Not parallel: the spinning would starve the
// package's other tests (Go runs parallel tests after the sequential ones).
func TestStarvedRunner(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the simulator")
	}
	const body = `targets:
  - {name: sim, base_url: "sim:default?tokens=16", model: sim, max_tokens: 16}
prompts:
  - {id: greeting, messages: [{role: user, content: "Say hello."}]}
run: {requests: 30, warmup: 2, concurrency: 2, max_requests: 30}
`
	cfg := blessed(t, body)
	dir := filepath.Dir(cfg)
	out, junit, md := filepath.Join(dir, "current.json"), filepath.Join(dir, "junit.xml"), filepath.Join(dir, "report.md")

	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 * runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for n := 0; ; n++ {
				if n%1024 == 0 {
					select {
					case <-stop:
						return
					default:
					}
				}
			}
		})
	}
	code, stdout, stderr := run(t, nil, "check", "--config", cfg, "--out", out, "--junit", junit, "--markdown", md, "--quiet")
	close(stop)
	wg.Wait()
	if code != ExitPass && code != ExitRegression {
		t.Fatalf("exit %d, want a verdict (0, or 1 for a change beyond the runner's delay)\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}

	f, err := results.Decode([]byte(readFile(t, out)), out)
	if err != nil {
		t.Fatal(err)
	}
	late := f.Targets[0].Lateness
	if late == nil || late.Probes == 0 || late.Lag() < compare.BusyLagMS {
		t.Fatalf("a starved run recorded lateness %+v, want a lag of at least %g ms", late, compare.BusyLagMS)
	}
	t.Logf("starved: exit %d, lateness %+v (lag %.2f ms)", code, *late, late.Lag())
	const said = "latgate's own runner was too busy"
	for name, text := range map[string]string{"stdout and stderr": stdout + stderr, "JUnit": readFile(t, junit), "Markdown": readFile(t, md)} {
		if !strings.Contains(strings.Join(strings.Fields(text), " "), said) {
			t.Errorf("%s does not say the runner was busy:\n%s", name, text)
		}
	}
}

// TestColdStart (#29): a server that starts cold on every run (its first
// 16 requests from ×4 down to ×1, two of them the warmup) is compared on
// its steady part, in the baseline and in the run, and the report says
// what it left out.
func TestColdStart(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures the simulator")
	}
	const body = `targets:
  - {name: sim, base_url: "sim:fast?ttft=80ms&tokens=8&cold=16&cold_x=4", model: sim, max_tokens: 8}
prompts:
  - {id: greeting, messages: [{role: user, content: "Say hello."}]}
  - {id: summarize, messages: [{role: user, content: "Summarize."}]}
run: {requests: 30, max_requests: 30, bless_requests: 60, warmup: 1, concurrency: 2}
`
	cfg := blessed(t, body)
	code, stdout, stderr := run(t, nil, "check", "--config", cfg, "--quiet")
	flat := strings.Join(strings.Fields(stdout+stderr), " ")
	for _, want := range []string{"target sim started cold in this run: its first", "target sim started cold in the baseline: its first", "raise run.warmup"} {
		if !strings.Contains(flat, want) {
			t.Errorf("the report lacks %q\nstdout:\n%s\nstderr:\n%s", want, stdout, stderr)
		}
	}
	if code == ExitRegression {
		t.Errorf("an unchanged server that starts cold regressed\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
}
