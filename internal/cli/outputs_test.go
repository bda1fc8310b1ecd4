package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// outputsKey is an API key that ends up in the paths latgate reports (the
// directory is named after it), so that every report file shows whether it
// went through the redaction wrapper.
const outputsKey = "sk-latgate-outputs-0123456789"

// TestNoBaselineAnnotation (#16 item 3): inside GitHub Actions a check
// without a baseline emits its ::warning through the writer allowed to emit
// workflow commands, so the line reaches GitHub as an annotation (not
// defused to ":\u200b:warning"); and its JUnit, Markdown and job summary pass
// through the redaction wrapper like every other report.
func TestNoBaselineAnnotation(t *testing.T) {
	dir := filepath.Join(t.TempDir(), outputsKey)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := faultConfig(t, dir, "sim:fast", 3, 1)
	junit, md, summary := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "report.md"), filepath.Join(dir, "summary.md")
	env := map[string]string{keyEnv: outputsKey, "GITHUB_ACTIONS": "true",
		"GITHUB_STEP_SUMMARY": summary, "GITHUB_OUTPUT": filepath.Join(dir, "output.txt")}
	code, stdout, stderr := run(t, env, "check", "--config", cfg, "--quiet", "--junit", junit, "--markdown", md)
	if code != ExitPass {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !regexp.MustCompile(`(?m)^::warning title=latgate%3A no baseline::no baseline: nothing was gated`).MatchString(stdout) {
		t.Errorf("no ::warning annotation line on stdout:\n%s", stdout)
	}
	for _, p := range []string{junit, md, summary} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if s := string(data); strings.Contains(s, outputsKey) || !strings.Contains(s, "[REDACTED]") {
			t.Errorf("%s is not redacted:\n%s", filepath.Base(p), s)
		}
	}
}
