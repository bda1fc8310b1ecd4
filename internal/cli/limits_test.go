package cli

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// limitsConfig gates TTFT P50 by an absolute limit only, on a simulator
// whose TTFT is a steady 100 ms, through the real HTTP/SSE path: 90 ms
// beyond the low limit, more than a busy runner's delay explains (#29).
func limitsConfig(max string) string {
	return `targets:
  - name: sim
    base_url: "sim:fast?ttft=100ms"
    model: sim
    max_tokens: 8
prompts:
  - id: greeting
    messages:
      - {role: user, content: "Say hello."}
run:
  requests: 20
  warmup: 1
  concurrency: 4
gate:
  checks:
    - {metric: ttft, stat: p50, max: ` + max + `}
`
}

// TestCheckLimits: a max is gated with and without a baseline: 100 ms TTFT
// against max 10ms fails (exit 1, JUnit failure naming the limit), against
// 500ms passes; with a baseline the limit is gated beside it.
func TestCheckLimits(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures on the simulator")
	}
	for _, tt := range []struct {
		name, max string
		bless     bool
		code      int
		out       []string
		md        string // in the Markdown report
	}{
		{"no baseline, above the limit", "10ms", false, ExitRegression,
			[]string{"ttft p50 max", "REGRESSED, p50 ", "> max 10.0 ms", "only the absolute limits (max, min) were gated", "above an absolute limit"}, "❌ **regressed**, p50 "},
		{"no baseline, below the limit", "500ms", false, ExitPass,
			[]string{"ttft p50 max", "ok, p50 ≤ 500 ms ruled in", "only the absolute limits (max, min) were gated", "PASS"}, "✅ ok, p50 ≤ 500 ms ruled in"},
		{"with a baseline, above the limit", "10ms", true, ExitRegression,
			[]string{"ttft p50 max", "REGRESSED, p50 ", "> max 10.0 ms"}, "\\> max 10.0 ms"},
		{"with a baseline, below the limit", "500ms", true, ExitPass,
			[]string{"ok, p50 ≤ 500 ms ruled in", "PASS"}, "✅ ok, p50 ≤ 500 ms ruled in"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := writeConfig(t, dir, limitsConfig(tt.max))
			if tt.bless {
				// The baseline needs a tolerance to be blessed against:
				// bless with one, then check with the limit alone.
				both := strings.Replace(limitsConfig(tt.max), "max: "+tt.max, "tolerance: 50%, max: "+tt.max, 1)
				writeConfig(t, dir, both)
				if code, out, errs := run(t, nil, "bless", "--config", cfg, "--quiet", "--force"); code != ExitPass {
					t.Fatalf("bless exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
				}
				writeConfig(t, dir, limitsConfig(tt.max))
			}
			junit := filepath.Join(dir, "junit.xml")
			md := filepath.Join(dir, "report.md")
			code, out, errs := run(t, nil, "check", "--config", cfg, "--quiet", "--junit", junit, "--markdown", md)
			if code != tt.code {
				t.Fatalf("check exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errs)
			}
			for _, w := range tt.out {
				if !strings.Contains(out, w) {
					t.Errorf("stdout does not say %q:\n%s", w, out)
				}
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
			var limit []string
			for _, s := range doc.Suites {
				for _, c := range s.Cases {
					if c.Name == "greeting ttft p50 max" {
						msg := "passed"
						if c.Failure != nil {
							msg = c.Failure.Message
						}
						limit = append(limit, msg)
					}
				}
			}
			if len(limit) != 1 {
				t.Fatalf("JUnit has %d cases for the limit, want 1:\n%s", len(limit), data)
			}
			if failed := limit[0] != "passed"; failed != (tt.code == ExitRegression) || failed && !strings.Contains(limit[0], "> max 10.0 ms") {
				t.Errorf("JUnit limit case: %q (want a failure naming the limit: %v)", limit[0], tt.code == ExitRegression)
			}
			mdText, err := os.ReadFile(md)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(mdText), "ttft p50 max") || !strings.Contains(string(mdText), tt.md) {
				t.Errorf("Markdown does not show the limit:\n%s", mdText)
			}
		})
	}
}
