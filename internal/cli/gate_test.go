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
