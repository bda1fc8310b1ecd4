package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"

	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/latgate/latgate/pkg/sim"
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
	t.Parallel()
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
	t.Parallel()
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
	want := regexp.MustCompile(`(?m)^::error title=latgate%3A measurement failed::the measurement failed, so nothing was gated \(exit 3\)`)
	if !want.MatchString(stdout) {
		t.Errorf("no ::error annotation of the measurement failure on stdout:\n%s", stdout)
	}
	if data, _ := os.ReadFile(output); string(data) != "verdict=error\n" {
		t.Errorf("step output %q, want verdict=error", data)
	}
}

// breakingEndpoint serves the simulator profile spec; once armed, its next
// request (latgate has checked by then that every output can be written)
// replaces the directory broken by a file, so that every later write into
// it fails, as on a disk that filled up or went away during the run.
func breakingEndpoint(t *testing.T, spec, broken string) (url string, arm func()) {
	t.Helper()
	p, err := sim.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	s := sim.New(p)
	var armed atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if armed.CompareAndSwap(true, false) {
			if err := os.RemoveAll(broken); err != nil {
				t.Error(err)
			}
			if err := os.WriteFile(broken, []byte("not a directory any more\n"), 0o644); err != nil {
				t.Error(err)
			}
		}
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { srv.Close(); s.Close() })
	return srv.URL + "/v1", func() { armed.Store(true) }
}

// TestOutputFailureAfterTheVerdict (#16, "disk full while writing results
// after a complete measurement exits 2 and $GITHUB_OUTPUT gets no verdict";
// "a failed history append only warns and exits 0"): when an output cannot
// be written after the gate decided, the verdict is still published to
// every output that works (stdout, JUnit, $GITHUB_OUTPUT), the exit code is
// not a usage problem (3, or 1 for a regression), and the message says what
// was not written and the verdict.
func TestOutputFailureAfterTheVerdict(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken")
	same, armSame := breakingEndpoint(t, "fast", broken)
	slow, armSlow := breakingEndpoint(t, "fast?ttft=300ms", broken)
	// One check the simulator decides at once: ok against itself, regressed
	// against a TTFT 100 times slower.
	cfg := writeConfig(t, dir, fmt.Sprintf(`targets: [{name: t, base_url: %q, model: sim, max_tokens: 8}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {requests: 10, max_requests: 10, bless_requests: 10, warmup: 0, concurrency: 2}
gate:
  checks: [{metric: ttft, stat: p50, tolerance: 20%%, floor: 50ms}]
`, same))
	if code, stdout, stderr := run(t, nil, "bless", "--config", cfg, "--quiet", "--force"); code != ExitPass {
		t.Fatalf("bless: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	results, history := filepath.Join(broken, "results.json"), filepath.Join(broken, "history.jsonl")
	// Against itself the verdict is ok, or inconclusive when other tests'
	// load widens the interval past the floor: either is a pass.
	pass := []string{"ok", "inconclusive", "improved"} // a passing run; which one is the machine's timing
	tests := []struct {
		name     string
		arm      func()
		args     []string
		code     int
		verdicts []string
		unwitten string
	}{
		{"results not written", armSame, []string{"--out", results}, ExitMeasurement, pass, "could not write --out " + results},
		{"history not appended", armSame, []string{"--history", history}, ExitMeasurement, pass, "the run was not added to the history " + history},
		// A failing gate: --strict, so that load widening the interval
		// (inconclusive) fails it too; the exit code is the gate's.
		{"a failing gate stays exit 1", armSlow, []string{"--base-url", slow, "--strict", "--out", results}, ExitRegression, []string{"regressed", "inconclusive"}, "could not write --out " + results},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.RemoveAll(broken)
			if err := os.Mkdir(broken, 0o755); err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			junit, output := filepath.Join(out, "junit.xml"), filepath.Join(out, "output.txt")
			env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": output}
			tt.arm()
			code, stdout, stderr := run(t, env, append([]string{"check", "--config", cfg, "--quiet", "--junit", junit}, tt.args...)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			if fi, err := os.Stat(broken); err != nil || fi.IsDir() {
				t.Fatalf("the endpoint did not break %s (%v): the test tests nothing", broken, err)
			}
			data, _ := os.ReadFile(output)
			verdict := strings.TrimSuffix(strings.TrimPrefix(string(data), "verdict="), "\n")
			if !slices.Contains(tt.verdicts, verdict) || string(data) != "verdict="+verdict+"\n" {
				t.Errorf("step output %q, want verdict= one of %q", data, tt.verdicts)
			}
			if data, err := os.ReadFile(junit); err != nil || strings.Contains(string(data), "latgate.error") {
				t.Errorf("the JUnit report is not the verdict's (%v):\n%s", err, data)
			}
			if !strings.Contains(stderr, tt.unwitten) || !strings.Contains(stderr, "the verdict was "+verdict) {
				t.Errorf("stderr does not say %q and the verdict %q:\n%s", tt.unwitten, verdict, stderr)
			}
			if !regexp.MustCompile(`(?m)^::error title=latgate%3A output not written::.*the verdict was ` + verdict).MatchString(stdout) {
				t.Errorf("no ::error annotation of the output not written:\n%s", stdout)
			}
		})
	}
}

// failingWriter fails every write, as a closed pipe or a full disk does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestMergeOutputNotWritten: merged results that cannot be written to
// stdout are an output failure (exit 3), not a usage problem.
func TestMergeOutputNotWritten(t *testing.T) {
	t.Parallel()
	in := filepath.Join(t.TempDir(), "results.json")
	writeRunnerResults(t, in, nil)
	var stderr bytes.Buffer
	code := Main(context.Background(), []string{"latgate", "merge", in}, Env{Stdout: failingWriter{}, Stderr: &stderr, Getenv: func(string) string { return "" }})
	if code != ExitMeasurement || !strings.Contains(stderr.String(), "could not write the merged results to stdout: no space left on device") {
		t.Errorf("exit %d, stderr %q; want 3 saying what was not written", code, stderr.String())
	}
}
