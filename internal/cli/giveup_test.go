package cli

import (
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latgate/latgate/pkg/results"
)

// TestHungEndpointGivesUp is issue 12's scenario: an endpoint that accepts
// connections and never answers, 2 prompts × 62 requests with 2 warmup each,
// concurrency 2. Measuring it to the end would take 62 timeouts; latgate
// gives up once every warmup request failed (two rounds of timeouts) and
// exits 3 with every report written.
func TestHungEndpointGivesUp(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits for timeouts")
	}
	stop := make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // accept, read the request, never answer
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	defer hung.Close()
	defer close(stop)
	const timeout = time.Second
	dir := t.TempDir()
	cfg := writeConfig(t, dir, `targets:
  - name: hung
    base_url: "`+hung.URL+`/v1"
    model: m
    api_key_env: LATGATE_TEST_KEY
prompts:
  - id: greeting
    messages: [{role: user, content: "Say hello."}]
  - id: summarize
    messages: [{role: user, content: "Summarize."}]
run:
  requests: 62
  warmup: 2
  concurrency: 2
  timeout: 1s
`)
	// No baseline: check measures anyway (and would pass ungated), so the
	// exit code is the give-up's alone.
	paths := map[string]string{}
	for _, n := range []string{"junit.xml", "report.md", "summary.md", "output.txt", "results.json"} {
		paths[n] = filepath.Join(dir, n)
	}
	env := map[string]string{"LATGATE_TEST_KEY": "k", "GITHUB_ACTIONS": "true",
		"GITHUB_STEP_SUMMARY": paths["summary.md"], "GITHUB_OUTPUT": paths["output.txt"]}

	start := time.Now()
	code, stdout, stderr := run(t, env, "check", "--config", cfg, "--quiet",
		"--out", paths["results.json"], "--junit", paths["junit.xml"], "--markdown", paths["report.md"])
	elapsed := time.Since(start)
	if code != ExitMeasurement {
		t.Fatalf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	full := time.Duration(2*(62+2)/2) * timeout
	t.Logf("gave up after %v (timeout %v; the full schedule would take about %v)", elapsed.Round(10*time.Millisecond), timeout, full)
	if elapsed > 3*timeout {
		t.Errorf("took %v, want about 2× the %v timeout", elapsed, timeout)
	}
	const why = "every warmup request failed"
	for _, name := range []string{"junit.xml", "report.md", "summary.md"} {
		data, err := os.ReadFile(paths[name])
		if err != nil {
			t.Errorf("%s not written: %v", name, err)
			continue
		}
		if text := html.UnescapeString(string(data)); !strings.Contains(text, why) || !strings.Contains(text, "timed out") {
			t.Errorf("%s does not say why it gave up (%q) in the endpoint's words:\n%s", name, why, text)
		}
	}
	if data, _ := os.ReadFile(paths["output.txt"]); string(data) != "verdict=error\n" {
		t.Errorf("step output %q, want verdict=error", data)
	}
	if !strings.Contains(stderr, why) {
		t.Errorf("stderr lacks %q:\n%s", why, stderr)
	}
	f, err := results.Read(paths["results.json"])
	if err != nil {
		t.Fatalf("no partial results: %v", err)
	}
	if !f.Partial || !f.GaveUp {
		t.Errorf("results: partial %v, gave_up %v; want both", f.Partial, f.GaveUp)
	}
}
