package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rateConfig gates the decode rate alone: tokens_per_s, higher is better.
const rateConfig = `targets:
  - name: sim
    base_url: "sim:default?tokens=12"
    model: sim
    max_tokens: 16
prompts:
  - id: greeting
    messages:
      - {role: user, content: "Say hello in five words."}
run:
  requests: 60
  warmup: 1
  concurrency: 8
gate:
  checks:
    - {metric: tokens_per_s, stat: p50, tolerance: 15%}
`

// TestRateGateEndToEnd gates tokens_per_s on the simulator through real
// HTTP: unchanged passes; a slower token cadence (ITL 4 ms → 6 ms, the rate
// down by a third) fails with exit 1, the report naming tokens_per_s and
// printing tokens/s, not ms, with the drop as a negative change.
func TestRateGateEndToEnd(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures for a few seconds")
	}
	dir := t.TempDir()
	cfg := writeConfig(t, dir, rateConfig)
	if code, out, errs := run(t, nil, "bless", "--config", cfg, "--quiet", "--force"); code != ExitPass {
		t.Fatalf("bless exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}

	t.Run("unchanged passes", func(t *testing.T) {
		code, out, errs := run(t, nil, "check", "--config", cfg)
		if code != ExitPass {
			t.Fatalf("check exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errs)
		}
	})

	t.Run("slower tokens fail", func(t *testing.T) {
		md := filepath.Join(dir, "report.md")
		code, out, errs := run(t, nil, "check", "--config", cfg, "--markdown", md,
			"--base-url", "sim:default?tokens=12&itl=6ms")
		if code != ExitRegression {
			t.Fatalf("check exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errs)
		}
		all := out + errs
		var line string
		for _, l := range strings.Split(all, "\n") {
			if strings.Contains(l, "tokens_per_s") && strings.Contains(strings.ToLower(l), "regressed") {
				line = l
				break
			}
		}
		if line == "" {
			t.Fatalf("no output line names tokens_per_s as regressed:\n%s", all)
		}
		if !strings.Contains(line, "tokens/s") || strings.Contains(line, " ms") || !strings.Contains(line, "-3") {
			t.Errorf("regressed line should print tokens/s and a drop of about -33%%:\n%s", line)
		}
		report, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(report), `tokens\_per\_s p50`) || !strings.Contains(string(report), "tokens/s →") {
			t.Errorf("Markdown report does not show tokens_per_s in tokens/s:\n%s", report)
		}
	})
}
