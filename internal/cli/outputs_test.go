package cli

import (
	"net"
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

// TestMeasurementFailureAnnotated (#16, "exit-3 runs in Actions emit no
// ::error annotation"): a check that fails to measure (here: connection
// refused) annotates the run with an ::error naming why, beside its JUnit,
// Markdown, job summary and verdict=error.
func TestMeasurementFailureAnnotated(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	dir := t.TempDir()
	cfg := faultConfig(t, dir, refused, 3, 1)
	output := filepath.Join(dir, "output.txt")
	env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md"), "GITHUB_OUTPUT": output}
	code, stdout, stderr := run(t, env, "check", "--config", cfg, "--quiet")
	if code != ExitMeasurement {
		t.Fatalf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	want := regexp.MustCompile(`(?m)^::error title=latgate%3A measurement failed::.*gave up after 1 of 3 requests: the error budget can no longer be met`)
	if !want.MatchString(stdout) {
		t.Errorf("no ::error annotation of the measurement failure on stdout:\n%s", stdout)
	}
	if data, _ := os.ReadFile(output); string(data) != "verdict=error\n" {
		t.Errorf("step output %q, want verdict=error", data)
	}
}
