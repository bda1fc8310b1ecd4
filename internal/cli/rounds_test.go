package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/latgate/latgate/internal/testkit"
	"github.com/latgate/latgate/pkg/results"
)

// TestCheckRounds: a check that no sample size can decide (a 0% tolerance on
// a 50 ms TTFT leaves only the 1 ms resolution) makes check measure round
// after round up to run.max_requests, say why on stderr, and then pass as
// inconclusive; the results file holds every round's requests, numbered on.
// A check decided at the first look takes no extra round.
func TestCheckRounds(t *testing.T) {
	testkit.Timing(t)
	// Not parallel: a 0% tolerance on a 50 ms TTFT is decided by the
	// machine's timing; other tests' load would make it a regression.
	if testing.Short() {
		t.Skip("measures the simulator")
	}
	dir := t.TempDir()
	cfg := writeConfig(t, dir, `targets:
  - {name: s, base_url: "sim:fast?ttft=50ms&ttft_sigma=0.25", model: sim}
prompts:
  - {id: a, messages: [{role: user, content: hi}]}
  - {id: b, messages: [{role: user, content: ho}]}
run: {requests: 10, max_requests: 20, bless_requests: 20, warmup: 0, concurrency: 4}
gate:
  aggregate: false
  day_to_day: 0% # else that noise alone keeps it undecided, and no round is taken
  checks: [{metric: ttft, stat: p50, tolerance: 0%}]
`)
	if code, _, stderr := run(t, nil, "bless", "--config", cfg, "--quiet", "--force"); code != ExitPass {
		t.Fatalf("bless: exit %d\n%s", code, stderr)
	}
	out := filepath.Join(dir, "results.json")
	code, stdout, stderr := run(t, nil, "check", "--config", cfg, "--out", out)
	if code != ExitPass {
		t.Fatalf("check: exit %d, want %d (inconclusive passes)\n%s\n%s", code, ExitPass, stdout, stderr)
	}
	for _, want := range []string{"latgate: 2 checks undecided: a ttft p50", "round 2 of 3: 15 requests per prompt for a, b", "round 3 of 3: 20 requests per prompt for a, b"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if f.Run.MaxRequests != 20 {
		t.Errorf("results run.max_requests = %d, want 20", f.Run.MaxRequests)
	}
	for _, p := range f.Targets[0].Prompts {
		seen := map[int]bool{}
		for _, s := range p.Samples {
			seen[s.Seq] = true
		}
		if p.Requests != 20 || len(p.Samples) != 20 || len(seen) != 20 {
			t.Errorf("prompt %s: %d requests, %d samples, %d distinct seq; want 20 of each", p.ID, p.Requests, len(p.Samples), len(seen))
		}
	}
	if !strings.Contains(stdout, "inconclusive") {
		t.Errorf("stdout has no inconclusive verdict:\n%s", stdout)
	}
	// compare on check's results rebuilds the same looks: the same verdicts.
	_, cmpOut, _ := run(t, nil, "compare", "--config", cfg, filepath.Join(dir, "latgate.baseline.json"), out)
	if got, want := statusLine(cmpOut), statusLine(stdout); got != want || want == "" {
		t.Errorf("compare says %q, check said %q", got, want)
	}

	// A generous tolerance is decided at the first look: no round.
	loose := writeConfig(t, t.TempDir(), strings.Replace(testkit.ReadFile(t, cfg), "tolerance: 0%", "tolerance: 300%", 1))
	code, stdout, stderr = run(t, nil, "check", "--config", loose, "--baseline", filepath.Join(dir, "latgate.baseline.json"))
	if code != ExitPass || strings.Contains(stderr, "undecided") {
		t.Errorf("loose check: exit %d, stderr %q; want 0 and no extra round\n%s", code, stderr, stdout)
	}
}

// statusLine returns the PASS/FAIL line of a verdict report.
func statusLine(out string) string {
	for line := range strings.Lines(out) {
		if strings.HasPrefix(line, "PASS: ") || strings.HasPrefix(line, "FAIL: ") {
			return strings.TrimSpace(line)
		}
	}
	return ""
}
