package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/internal/selftest"
)

// quickSelftest is a short fixed schedule so that the tests run fast.
const quickSelftest = "fixed?ttft=5ms&itl=1ms&tokens=8&spin=0s"

// selftestConfigFile writes a config with concurrency 3, 10 requests and a
// check of each kind of verdict the resolution can give on any machine.
func selftestConfigFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "latgate.yaml")
	body := `targets:
  - {name: sim, base_url: sim, model: sim}
prompts:
  - id: p
    messages: [{role: user, content: hi}]
run: {requests: 10, concurrency: 3}
gate:
  checks:
    - {metric: ttft, stat: p50, tolerance: 15%, floor: 20ms}
    - {metric: ttft, stat: p95, tolerance: 25%, floor: 40ms}
    - {metric: itl, stat: p95, tolerance: 25%, floor: 0ms}
`
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func selftestRun(t *testing.T, req SelftestRequest) (string, string) {
	t.Helper()
	a, out, errs := testApp(t, nil)
	if err := a.Selftest(context.Background(), req); err != nil {
		t.Fatalf("selftest: %v\nstderr:\n%s", err, errs.String())
	}
	a.Out.Flush()
	return out.String(), errs.String()
}

func TestSelftestTable(t *testing.T) {
	out, errs := selftestRun(t, SelftestRequest{ConfigPath: selftestConfigFile(t), Profile: quickSelftest,
		Requests: 4, Concurrency: []int{1, 2}, Runs: 2})
	lines := strings.Split(out, "\n")
	// One row per level, the config's concurrency (3) added.
	var levels []string
	for i, l := range lines {
		if strings.Contains(l, "concurrency  requests") {
			for _, row := range lines[i+1 : i+4] {
				levels = append(levels, strings.Fields(row)[0])
			}
		}
	}
	if diff := cmp.Diff([]string{"1", "2", "3"}, levels); diff != "" {
		t.Errorf("concurrency column (-want +got):\n%s\n%s", diff, out)
	}
	for _, want := range []string{
		"machine:  " + runtime.GOOS + "/" + runtime.GOARCH, // the machine the figures come from
		"2 runs per concurrency",
		"TTFT p50", "ITL p95", "delay p95",
		"under 1 ms",
		"two runs of 10 requests per prompt at concurrency 3, 95% confidence (noise from 8 requests)",
		"ttft p50  15%",
		"always inconclusive: p95 needs ≥ 72 requests per prompt at 95% confidence (run.requests is 10)",
		"itl p95   25%        250µs (resolution)", // a 0ms floor is latgate's resolution
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(errs, "latgate: selftest: concurrency") != 3 {
		t.Errorf("stderr shows no progress per level:\n%s", errs)
	}
}

func TestSelftestJSON(t *testing.T) {
	out, _ := selftestRun(t, SelftestRequest{Profile: quickSelftest, Requests: 3, Concurrency: []int{2, 1}, Runs: 1, JSON: true})
	var got selftest.Report
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if got.Resolution != nil {
		t.Errorf("resolution without a config: %+v", got.Resolution)
	}
	if got.Runs != 1 || len(got.Levels) != 2 || got.Levels[0].Concurrency != 1 || got.Levels[1].Concurrency != 2 {
		t.Fatalf("got %d runs, levels %+v; want 1 run, levels 1 and 2", got.Runs, got.Levels)
	}
	for _, l := range got.Levels {
		if l.Requests != 3 || l.ChunkRate.Median <= 0 || l.DelayP95.Min > l.DelayP95.Max {
			t.Errorf("level %d: %+v", l.Concurrency, l)
		}
	}
	if got.Machine.CPUs < 1 || got.Machine.Go == "" {
		t.Errorf("machine = %+v", got.Machine)
	}
}
