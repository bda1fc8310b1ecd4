package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// blessed writes body as the config in a temp dir, blesses it, and returns
// the config's path.
func blessed(t *testing.T, body string, args ...string) string {
	t.Helper()
	cfg := writeConfig(t, t.TempDir(), body)
	code, out, errs := run(t, nil, append([]string{"bless", "--config", cfg, "--quiet"}, args...)...)
	if code != ExitPass {
		t.Fatalf("bless exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	return cfg
}

// whyOf returns the attribution line under the first row of stdout that
// matches row (a regexp), "" when there is none.
func whyOf(t *testing.T, stdout, row string) string {
	t.Helper()
	lines := strings.Split(stdout, "\n")
	re := regexp.MustCompile(row)
	for i, l := range lines {
		if re.MatchString(l) && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "  ↳ why: ") {
			why := strings.TrimPrefix(lines[i+1], "  ↳ why: ")
			for _, c := range lines[i+2:] { // wrapped continuation lines
				if !strings.HasPrefix(c, "         ") {
					break
				}
				why += " " + strings.TrimSpace(c)
			}
			return why
		}
	}
	return ""
}

// TestBufferedStream (#22): a server whose stream something buffers (the
// simulator's buffer=true holds every event and flushes them at the end)
// is reported as buffered, a finding of its own, and fails check against
// the baseline that streamed; the TTFT regression it causes names it.
func TestBufferedStream(t *testing.T) {
	if testing.Short() {
		t.Skip("measures for a few seconds")
	}
	const body = `targets:
  - {name: sim, base_url: "sim:default?tokens=16", model: sim, max_tokens: 16}
prompts:
  - id: greeting
    messages: [{role: user, content: "Say hello."}]
run: {requests: 20, warmup: 1, concurrency: 4}
` + e2eFloors
	cfg := blessed(t, body)
	junit := filepath.Join(filepath.Dir(cfg), "junit.xml")
	code, out, errs := run(t, nil, "check", "--config", cfg, "--quiet", "--junit", junit,
		"--base-url", "sim:default?tokens=16&buffer=true")
	if code != ExitRegression {
		t.Fatalf("check exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if !regexp.MustCompile(`greeting\s+stream_integrity\s+\d+% → +0%\s+-\d+ pts.*REGRESSED`).MatchString(out) {
		t.Errorf("no regressed stream_integrity row:\n%s", out)
	}
	const finding = "the stream is buffered: something between you and the model holds it until the end"
	if why := whyOf(t, out, `greeting\s+stream_integrity`); !strings.HasPrefix(why, finding) {
		t.Errorf("stream_integrity why = %q, want %q first\n%s", why, finding, out)
	}
	if why := whyOf(t, out, `greeting\s+ttft p50.*REGRESSED`); why != "" && !strings.HasPrefix(why, finding) {
		t.Errorf("ttft why = %q, want the buffered stream first", why)
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `name="greeting stream_integrity"`) || !strings.Contains(string(data), "why: "+finding) {
		t.Errorf("JUnit lacks the stream_integrity failure and its why:\n%s", data)
	}

	// The same server unbuffered reports no stream_integrity (its latency
	// verdicts depend on the machine's load, so they are not asserted).
	code, out, errs = run(t, nil, "check", "--config", cfg, "--quiet")
	if code == ExitUsage || code == ExitMeasurement || strings.Contains(out, "stream_integrity") {
		t.Errorf("unbuffered: exit %d, want a verdict and no stream_integrity row\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}
