package cli

import (
	"bytes"
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latgate/latgate/internal/testkit"
)

// run runs latgate in-process and returns its exit code, stdout and stderr.
func run(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	return runIn(context.Background(), Env{Getenv: func(k string) string { return env[k] }}, args...)
}

// runIn runs latgate with args in ctx and e (its Stdout and Stderr are
// set here) and returns the exit code, stdout and stderr.
func runIn(ctx context.Context, e Env, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	e.Stdout, e.Stderr = &out, &errb
	code := Main(ctx, append([]string{"latgate"}, args...), e)
	return code, out.String(), errb.String()
}

// gateConfig's simulator paces tokens 20 ms apart: a loaded runner's late
// timers and bunched reads (four busy loops on 2 cores doubled a 4 ms
// ITL's p95 and put its p50 at 0 ms) stay a small share of the gap.
const gateConfig = `targets:
  - name: sim
    base_url: "sim:default?tokens=8&itl=20ms"
    model: sim
    max_tokens: 16
` + twoPrompts + `run:
  requests: 60
  bless_requests: 120 # half the default: these tests are about the flow, and time
  warmup: 1
  concurrency: 8
`

// e2eFloors gate gateConfig as examples/latgate.yaml does. The default checks
// have no floors (only latgate's timing resolution), and the simulator runs
// in the test's own process: on a loaded machine its timers wake
// milliseconds late, and an unchanged check was seen REGRESSED on ITL
// (3.5 -> 4.2 ms). These floors keep the verdicts about the simulator, not
// about the machine's load; a 1.6x TTFT (about +70 ms) still crosses them.
const e2eFloors = `gate:
  checks:
    - {metric: ttft, stat: p50, tolerance: 20%, floor: 20ms}
    - {metric: ttft, stat: p90, tolerance: 35%, floor: 40ms}
    - {metric: itl, stat: p50, tolerance: 15%, floor: 2ms}
    - {metric: itl, stat: p95, tolerance: 25%, floor: 5ms}
`

// twoPrompts is the prompts section the CLI tests' configs share: a short
// greeting and a summary, as examples/latgate.yaml has them.
const twoPrompts = `prompts:
  - id: greeting
    messages:
      - {role: user, content: "Say hello in five words."}
  - id: summarize
    messages:
      - {role: user, content: "Summarize: latency hides in averages."}
`

func writeConfig(t *testing.T, dir, body string) string {
	t.Helper()
	p := filepath.Join(dir, "latgate.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGateEndToEnd is the acceptance scenario on the built-in
// simulator: bless; check unchanged passes; a 1.6x slower TTFT fails with a
// JUnit failure naming the prompt and metric; an edited prompt is refused
// under --strict-baseline (gated and labelled without it: prflow_test.go).
func TestGateEndToEnd(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures for a few seconds")
	}
	dir := t.TempDir()
	gateConfig := gateConfig + e2eFloors
	cfg := writeConfig(t, dir, gateConfig)
	basePath := filepath.Join(dir, "latgate.baseline.json")

	code, out, errs := run(t, nil, "bless", "--config", cfg, "--quiet")
	if code != ExitPass {
		t.Fatalf("bless exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	blessed, err := os.ReadFile(basePath)
	if err != nil {
		t.Fatalf("bless wrote no baseline: %v", err)
	}

	t.Run("unchanged passes", func(t *testing.T) {
		code, out, errs := run(t, nil, "check", "--config", cfg, "--quiet")
		if code != ExitPass {
			t.Fatalf("check exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errs)
		}
	})

	t.Run("slower TTFT fails with a JUnit failure", func(t *testing.T) {
		junit := filepath.Join(dir, "junit.xml")
		code, out, errs := run(t, nil, "check", "--config", cfg, "--quiet", "--junit", junit,
			"--base-url", "sim:default?tokens=8&itl=20ms&ttft_factor=1.6")
		if code != ExitRegression {
			t.Fatalf("check exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errs)
		}
		data, err := os.ReadFile(junit)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Suites []struct {
				Cases []struct {
					Name    string `xml:"name,attr"`
					Failure *struct {
						Message string `xml:"message,attr"`
					} `xml:"failure"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal(data, &doc); err != nil {
			t.Fatalf("JUnit does not parse: %v\n%s", err, data)
		}
		var failed []string
		for _, s := range doc.Suites {
			for _, c := range s.Cases {
				if c.Failure != nil {
					failed = append(failed, c.Name+": "+c.Failure.Message)
				}
			}
		}
		found := false
		for _, f := range failed {
			if strings.Contains(f, "greeting") && strings.Contains(f, "ttft") || strings.Contains(f, "summarize") && strings.Contains(f, "ttft") {
				found = true
			}
		}
		if !found {
			t.Errorf("no JUnit failure names a prompt and ttft; failures: %q", failed)
		}
	})

	t.Run("edited prompt is refused under --strict-baseline", func(t *testing.T) {
		edited := strings.Replace(gateConfig, "Say hello in five words.", "Say hello in six words.", 1)
		writeConfig(t, dir, edited)
		defer writeConfig(t, dir, gateConfig)
		code, out, errs := run(t, nil, "check", "--config", cfg, "--quiet", "--strict-baseline")
		if code != ExitUsage {
			t.Fatalf("check exit %d, want 2\nstdout:\n%s\nstderr:\n%s", code, out, errs)
		}
		if !strings.Contains(errs, `prompt "greeting"`) || !strings.Contains(errs, "edited") {
			t.Errorf("stderr does not name the edited prompt:\n%s", errs)
		}
		if strings.Contains(out, "TTFT") {
			t.Errorf("check measured before refusing:\n%s", out)
		}
	})

	now, err := os.ReadFile(basePath)
	if err != nil || !bytes.Equal(now, blessed) {
		t.Errorf("check changed the baseline")
	}
}

func TestMain(m *testing.M) { testkit.Main(m) }
