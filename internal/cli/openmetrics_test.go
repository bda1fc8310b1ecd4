package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/latgate/latgate/internal/testkit"
)

// TestOpenMetrics (#32): check --openmetrics writes the run's latencies and
// the checks as OpenMetrics text: gauge families in seconds with their
// unit, labels for target, prompt, api and model, each check's ratio and
// verdict, and the closing # EOF; Prometheus's own promtool accepts it
// (when it is installed, as .ci/run does). ab labels its two sides.
func TestOpenMetrics(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures the simulator")
	}
	const body = `targets:
  - {name: sim, base_url: "sim:fast?tokens=8", model: sim, max_tokens: 8}
prompts:
  - {id: greeting, messages: [{role: user, content: "Say hello."}]}
  - {id: summarize, messages: [{role: user, content: "Summarize: latency hides in averages."}]}
run: {requests: 20, max_requests: 20, warmup: 1, concurrency: 1}
gate:
  checks:
    - {metric: ttft, stat: p50, tolerance: 500%}
`
	dir := t.TempDir()
	cfg := testkit.WriteFile(t, dir, "latgate.yaml", body)
	cand := testkit.WriteFile(t, dir, "cand.yaml", body)
	if code, out, errs := run(t, nil, "bless", "--config", cfg, "--quiet", "--force"); code != ExitPass {
		t.Fatalf("bless exit %d\n%s\n%s", code, out, errs)
	}
	om := filepath.Join(dir, "check.om")
	// The subject is the exposition: a verdict either way (a machine
	// loaded after the bless can fail the check, and the file says so).
	if code, out, errs := run(t, nil, "check", "--config", cfg, "--quiet", "--openmetrics", om); code != ExitPass && code != ExitRegression {
		t.Fatalf("check exit %d\n%s\n%s", code, out, errs)
	}
	text := testkit.ReadFile(t, om)
	for _, want := range []string{
		"# TYPE latgate_ttft_p50_seconds gauge\n",
		"# UNIT latgate_ttft_p50_seconds seconds\n",
		"# TYPE latgate_check_regressed gauge\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("check's OpenMetrics lacks %q:\n%s", want, text)
		}
	}
	verdict := regexp.MustCompile(`(?m)^latgate_check_verdict\{target="sim",prompt="all prompts",metric="ttft",stat="p50",kind="change",verdict="(ok|improved|inconclusive|regressed)"\} 1\.0$`)
	if !verdict.MatchString(text) {
		t.Errorf("check's OpenMetrics has no verdict series for the pooled ttft p50:\n%s", text)
	}
	sample := regexp.MustCompile(`(?m)^latgate_ttft_p50_seconds\{target="sim",prompt="greeting",api="chat",model="sim"\} ([0-9.e-]+)$`)
	if m := sample.FindStringSubmatch(text); m == nil || m[1] == "0" {
		t.Errorf("no ttft p50 sample in seconds for sim/greeting:\n%s", text)
	}
	if !strings.HasSuffix(text, "# EOF\n") {
		t.Errorf("the exposition does not end with # EOF:\n%s", text)
	}
	promtool(t, om)

	abOM := filepath.Join(dir, "ab.om")
	if code, out, errs := run(t, nil, "ab", "--quiet", "--openmetrics", abOM, cfg, cand); code != ExitPass && code != ExitRegression {
		t.Fatalf("ab exit %d\n%s\n%s", code, out, errs)
	}
	abText := testkit.ReadFile(t, abOM)
	for _, side := range []string{"base", "candidate"} {
		if !strings.Contains(abText, `latgate_ttft_p50_seconds{side="`+side+`",target="sim",prompt="greeting"`) {
			t.Errorf("ab's OpenMetrics lacks the %s side:\n%s", side, abText)
		}
	}
	promtool(t, abOM)
}

// promtool checks an exposition with Prometheus's promtool when it is on
// PATH (Debian's prometheus package; .ci/run installs it).
func promtool(t *testing.T, path string) {
	t.Helper()
	bin, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("LATGATE_REQUIRE_PROMTOOL") != "" {
			t.Fatalf("LATGATE_REQUIRE_PROMTOOL is set but promtool is not on PATH: %v", err)
		}
		t.Logf("promtool not installed: %s checked by the assertions above only", path)
		return
	}
	cmd := exec.Command(bin, "check", "metrics")
	cmd.Stdin = strings.NewReader(testkit.ReadFile(t, path))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("promtool check metrics rejects %s: %v\n%s", path, err, out)
	}
}

// TestMeasureOpenMetrics: measure --openmetrics writes the run's latencies
// (no check families: nothing was compared), accepted by promtool; a run
// that fails its error budget writes none and says so.
func TestMeasureOpenMetrics(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := testkit.WriteFile(t, dir, "latgate.yaml", `targets:
  - {name: sim, base_url: "sim:fast?tokens=4", model: sim, max_tokens: 4}
prompts:
  - {id: greeting, messages: [{role: user, content: "Say hello."}]}
run: {requests: 6, warmup: 0}
`)
	om := filepath.Join(dir, "measure.om")
	if code, out, errs := run(t, nil, "measure", "--config", cfg, "--quiet", "--openmetrics", om); code != ExitPass {
		t.Fatalf("measure exit %d\n%s\n%s", code, out, errs)
	}
	text := testkit.ReadFile(t, om)
	if !regexp.MustCompile(`(?m)^latgate_ttft_p50_seconds\{target="sim",prompt="greeting",api="chat",model="sim"\} [0-9.e-]+$`).MatchString(text) ||
		strings.Contains(text, "latgate_check_") || !strings.HasSuffix(text, "# EOF\n") {
		t.Errorf("measure's OpenMetrics:\n%s", text)
	}
	promtool(t, om)

	failing := filepath.Join(dir, "failing.om")
	code, out, errs := run(t, nil, "measure", "--config", cfg, "--quiet", "--base-url", "sim:fast?fault=500&fault_every=1", "--openmetrics", failing)
	if code != ExitMeasurement || !strings.Contains(errs, "--openmetrics "+failing+" not written: the run failed") {
		t.Fatalf("a failing run: exit %d\n%s\n%s", code, out, errs)
	}
	if _, err := os.Stat(failing); err == nil {
		t.Error("a failed run wrote OpenMetrics")
	}
}
