package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFailedCheckStillReports: a check that cannot decide leaves an errored
// JUnit testcase and verdict=error for CI, never a stale or missing report.
func TestFailedCheckStillReports(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := writeConfig(t, dir, gateConfig)
	junit := filepath.Join(dir, "reports", "junit.xml")
	ghOut := filepath.Join(dir, "github_output")
	summary := filepath.Join(dir, "summary.md")
	env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": ghOut, "GITHUB_STEP_SUMMARY": summary}
	code, out, errs := run(t, env, "check", "--config", cfg, "--quiet", "--junit", junit, "--require-baseline")
	if code != ExitUsage {
		t.Fatalf("exit %d, want 2 (no baseline, --require-baseline); stderr:\n%s", code, errs)
	}
	if !strings.Contains(out, "::error title=latgate%3A could not gate::") || !strings.Contains(out, "--require-baseline") {
		t.Errorf("no ::error annotation saying why:\n%s", out)
	}
	for path, want := range map[string]string{
		junit:   `no baseline here`,
		ghOut:   "verdict=error\n",
		summary: "latgate: ERROR",
	} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s not written: %v", filepath.Base(path), err)
			continue
		}
		if !strings.Contains(string(data), want) {
			t.Errorf("%s does not contain %q:\n%s", filepath.Base(path), want, data)
		}
	}
}

// TestSummaryFile (#33): --summary writes the job summary's Markdown, its
// chart included, outside GitHub Actions too; inside, the file is what the
// step summary got.
func TestSummaryFile(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures twice")
	}
	dir := t.TempDir()
	cfg := writeConfig(t, dir, gateConfig)
	if code, _, errs := run(t, nil, "bless", "--config", cfg, "--quiet"); code != ExitPass {
		t.Fatalf("bless: exit %d\n%s", code, errs)
	}
	local := filepath.Join(dir, "local-summary.md")
	if code, _, errs := run(t, nil, "check", "--config", cfg, "--quiet", "--summary", local); code > ExitRegression {
		t.Fatalf("check --summary outside Actions: exit %d\n%s", code, errs)
	}
	data, err := os.ReadFile(local)
	if err != nil {
		t.Fatalf("--summary outside Actions wrote nothing: %v", err)
	}
	for _, want := range []string{"```mermaid", "latgate: "} {
		if !strings.Contains(string(data), want) {
			t.Errorf("--summary outside Actions lacks %q:\n%s", want, data)
		}
	}
	step, file := filepath.Join(dir, "step-summary.md"), filepath.Join(dir, "summary.md")
	env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": step}
	if code, _, errs := run(t, env, "check", "--config", cfg, "--quiet", "--summary", file); code > ExitRegression {
		t.Fatalf("check --summary in Actions: exit %d\n%s", code, errs)
	}
	a, errA := os.ReadFile(step)
	b, errB := os.ReadFile(file)
	if errA != nil || errB != nil || string(a) != string(b) {
		t.Errorf("in Actions, --summary differs from the step summary (%v, %v):\n%s\n----\n%s", errA, errB, a, b)
	}
}
