package cli

import (
	"encoding/xml"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPullRequestFlow is issue 12's acceptance scenario on the built-in
// simulator, through real HTTP: the PR that adds latgate starts green (no
// baseline: measured, reported, exit 0 with a notice; --require-baseline
// exits 2); its results become the first baseline with bless --from; then a
// PR's changes are gated and labelled instead of refused: a slower model
// fails naming the change, an edited prompt is compared and labelled, a new
// prompt is reported without failing, and blessing names what it changes.
func TestPullRequestFlow(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures for several seconds")
	}
	// The test is about pairing and labels, so the gate is TTFT P50 with a
	// floor and ITL with floors the simulator's 4 ms gaps cannot cross even
	// when -race on a loaded machine delays reads; a 1.6× TTFT (about +70 ms)
	// still fails it.
	gateConfig := gateConfig + `gate:
  checks:
    - {metric: ttft, stat: p50, tolerance: 15%, floor: 30ms}
    - {metric: itl, stat: p50, tolerance: 50%, floor: 20ms}
`
	dir := t.TempDir()
	cfg := writeConfig(t, dir, gateConfig)
	basePath := filepath.Join(dir, "latgate.baseline.json")
	resultsPath := filepath.Join(dir, "latgate.results.json")
	read := func(t *testing.T, p string) string {
		t.Helper()
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("%s not written: %v", filepath.Base(p), err)
		}
		return html.UnescapeString(string(data))
	}
	// The text output wraps its prose at 100 columns: compare words.
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	contains := func(t *testing.T, what, text string, wants ...string) {
		t.Helper()
		for _, w := range wants {
			if !strings.Contains(flat(text), flat(w)) {
				t.Errorf("%s lacks %q:\n%s", what, w, text)
			}
		}
	}

	t.Run("no baseline: measured, reported, exit 0 with a notice", func(t *testing.T) {
		gh := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": filepath.Join(dir, "gh_output"), "GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md")}
		junit, md := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "report.md")
		code, out, errs := run(t, gh, "check", "--config", cfg, "--quiet", "--junit", junit, "--markdown", md)
		if code != ExitPass {
			t.Fatalf("check exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errs)
		}
		contains(t, "stdout", out, "TTFT p50", "no baseline: nothing was gated", "latgate bless --config", "--from "+resultsPath)
		// #33: the first pull request's report has the numbers bless would
		// write, and the command as code (not escaped backticks).
		for name, text := range map[string]string{"Markdown": read(t, md), "job summary": read(t, gh["GITHUB_STEP_SUMMARY"])} {
			contains(t, name, text, "NOT GATED", "no baseline: nothing was gated", "`latgate bless --config ", "| prompt | n | TTFT p50 |", "| **overall** |")
			if strings.Contains(text, "\\`") {
				t.Errorf("%s escapes the backticks of the bless command (GitHub shows them literally):\n%s", name, text)
			}
		}
		contains(t, "JUnit", read(t, junit), "<skipped", "no baseline: nothing was gated")
		contains(t, "job summary", read(t, gh["GITHUB_STEP_SUMMARY"]), "no baseline: nothing was gated")
		contains(t, "step output", read(t, gh["GITHUB_OUTPUT"]), "verdict=no-baseline\n")
		contains(t, "results", read(t, resultsPath), `"schema": "latgate.results/v1"`)
		if _, err := os.Stat(basePath); err == nil {
			t.Errorf("check wrote a baseline")
		}
	})

	t.Run("--require-baseline exits 2 before measuring", func(t *testing.T) {
		code, out, errs := run(t, nil, "check", "--config", cfg, "--quiet", "--require-baseline")
		if code != ExitUsage {
			t.Fatalf("check exit %d, want 2\nstdout:\n%s\nstderr:\n%s", code, out, errs)
		}
		contains(t, "stderr", errs, "no baseline", "--require-baseline")
		if strings.Contains(out, "TTFT") {
			t.Errorf("measured before refusing:\n%s", out)
		}
	})

	// The first baseline is the no-baseline run's results: nothing measured twice.
	if code, out, errs := run(t, nil, "bless", "--config", cfg, "--quiet", "--force", "--from", resultsPath); code != ExitPass {
		t.Fatalf("bless --from exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}

	slower := strings.NewReplacer(`base_url: "sim:default?tokens=8&itl=20ms"`, `base_url: "sim:default?tokens=8&itl=20ms&ttft_factor=1.6"`,
		"model: sim\n", "model: sim-slow\n").Replace(gateConfig)
	t.Run("a slower model fails naming the change", func(t *testing.T) {
		writeConfig(t, dir, slower)
		defer writeConfig(t, dir, gateConfig)
		junit, md := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "report.md")
		code, out, errs := run(t, nil, "check", "--config", cfg, "--quiet", "--junit", junit, "--markdown", md)
		if code != ExitRegression {
			t.Fatalf("check exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errs)
		}
		contains(t, "stdout", out, "REGRESSED", "model sim → sim-slow", "changed since the baseline: model sim → sim-slow")
		contains(t, "Markdown", read(t, md), "model sim → sim-slow", "Changed since the baseline")
		var doc struct {
			Suites []struct {
				Cases []struct {
					Failure *struct {
						Message string `xml:"message,attr"`
					} `xml:"failure"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal([]byte(read(t, junit)), &doc); err != nil {
			t.Fatalf("JUnit does not parse: %v", err)
		}
		labelled := 0
		for _, s := range doc.Suites {
			for _, c := range s.Cases {
				if c.Failure != nil && strings.Contains(c.Failure.Message, "model sim → sim-slow") {
					labelled++
				}
			}
		}
		if labelled == 0 {
			t.Errorf("no JUnit failure names the model change")
		}
	})

	t.Run("an edited prompt is compared and labelled", func(t *testing.T) {
		writeConfig(t, dir, strings.Replace(gateConfig, "Say hello in five words.", "Say hello in six words.", 1))
		defer writeConfig(t, dir, gateConfig)
		md, res := filepath.Join(dir, "report.md"), filepath.Join(dir, "edited.json")
		code, out, errs := run(t, nil, "check", "--config", cfg, "--quiet", "--markdown", md, "--out", res)
		if code != ExitPass {
			t.Fatalf("check exit %d, want 0 (the simulator's latency did not change)\nstdout:\n%s\nstderr:\n%s", code, out, errs)
		}
		// compare, offline on the saved run, pairs and labels the same way.
		ccode, cout, cerrs := run(t, nil, "compare", "--config", cfg, basePath, res)
		if ccode != ExitPass || !strings.Contains(cout, "prompt greeting of target sim: edited since the baseline") {
			t.Errorf("compare exit %d, want 0 with the edit labelled\nstdout:\n%s\nstderr:\n%s", ccode, cout, cerrs)
		}
		if ccode, _, cerrs := run(t, nil, "compare", "--config", cfg, "--strict-baseline", basePath, res); ccode != ExitUsage || !strings.Contains(cerrs, "--strict-baseline") {
			t.Errorf("compare --strict-baseline exit %d, want 2\nstderr:\n%s", ccode, cerrs)
		}
		var rows int
		for line := range strings.Lines(out) {
			if strings.HasPrefix(line, "greeting ") { // one target: no target column
				rows++
				if !strings.HasSuffix(strings.TrimSpace(line), "edited") {
					t.Errorf("greeting's row is not labelled edited: %q\n%s", line, out)
				}
			}
		}
		if rows != 2 {
			t.Errorf("%d verdict rows for greeting, want 2 (ttft and itl p50):\n%s", rows, out)
		}
		contains(t, "stdout", out, "prompt greeting of target sim: edited since the baseline")
		contains(t, "Markdown", read(t, md), "| edited |", "edited: greeting")
	})

	t.Run("a new prompt is reported and passes", func(t *testing.T) {
		writeConfig(t, dir, strings.Replace(gateConfig, "run:", "  - id: brand-new\n    messages:\n      - {role: user, content: \"A new prompt.\"}\nrun:", 1))
		defer writeConfig(t, dir, gateConfig)
		junit := filepath.Join(dir, "junit.xml")
		code, out, errs := run(t, nil, "check", "--config", cfg, "--quiet", "--junit", junit)
		if code != ExitPass {
			t.Fatalf("check exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errs)
		}
		contains(t, "stdout", out, "brand-new", "new (not gated)", "new: no baseline", "new: brand-new")
		contains(t, "JUnit", read(t, junit), `name="brand-new ttft p50"`, "new (not gated)")
	})

	t.Run("a removed prompt is reported", func(t *testing.T) {
		i := strings.Index(gateConfig, "  - id: summarize")
		j := strings.Index(gateConfig, "run:")
		if i < 0 || j < i {
			t.Fatal("gateConfig changed shape")
		}
		writeConfig(t, dir, gateConfig[:i]+gateConfig[j:])
		defer writeConfig(t, dir, gateConfig)
		code, out, errs := run(t, nil, "check", "--config", cfg, "--quiet")
		if code != ExitPass {
			t.Fatalf("check exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errs)
		}
		contains(t, "stdout", out, "prompt summarize of target sim: removed", "removed: summarize")
	})

	t.Run("blessing the change names it for the reviewer", func(t *testing.T) {
		writeConfig(t, dir, slower)
		defer writeConfig(t, dir, gateConfig)
		code, out, errs := run(t, nil, "bless", "--config", cfg, "--quiet", "--force")
		if code != ExitPass {
			t.Fatalf("bless exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
		}
		contains(t, "stdout", out, "this baseline changes what is measured", "target sim: model sim → sim-slow")
		code, out, errs = run(t, nil, "check", "--config", cfg, "--quiet")
		if code == ExitRegression || code == ExitUsage {
			t.Fatalf("check after blessing the change: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
		}
		if strings.Contains(out, "changed since") {
			t.Errorf("after blessing, check still reports changes:\n%s", out)
		}
	})
}

// TestSuggestedBlessRuns: the bless command a check without a baseline
// prints runs as printed. It repeats the run's overrides: a run measured
// with --concurrency 2 was refused by the `bless --from` it suggested
// ("run.concurrency is 2 in the file, 1 in the config").
func TestSuggestedBlessRuns(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures the simulator")
	}
	dir := t.TempDir()
	cfg := writeConfig(t, dir, `targets: [{name: t, base_url: "sim:fast", model: sim, max_tokens: 16}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {requests: 40, warmup: 0, concurrency: 1}
gate: {checks: [{metric: ttft, stat: p50, tolerance: 50%, floor: 30ms}]}
`)
	code, out, errs := run(t, nil, "check", "--config", cfg, "--quiet", "--concurrency", "2", "--warmup", "1", "--base-url", "sim:fast?ttft=20ms")
	if code != ExitPass {
		t.Fatalf("check: exit %d\n%s\n%s", code, out, errs)
	}
	flat := strings.Join(strings.Fields(out), " ") // the prose wraps at 100 columns
	_, rest, ok := strings.Cut(flat, "make them the baseline with `")
	cmd, _, ok2 := strings.Cut(rest, "`")
	if !ok || !ok2 {
		t.Fatalf("no bless command in:\n%s", out)
	}
	for _, want := range []string{"--concurrency 2", "--warmup 1", "--base-url 'sim:fast?ttft=20ms'"} {
		if !strings.Contains(cmd, want) {
			t.Errorf("the suggested %q lacks %q", cmd, want)
		}
	}
	args := strings.Fields(strings.ReplaceAll(cmd, "'", "")) // the quoted URL holds no space
	if args[0] != "latgate" {
		t.Fatalf("the suggestion %q is no latgate command", cmd)
	}
	if code, out, errs := run(t, nil, append(args[1:], "--quiet")...); code != ExitPass {
		t.Errorf("%s: exit %d\n%s\n%s", cmd, code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "latgate.baseline.json")); err != nil {
		t.Errorf("the suggested bless wrote no baseline: %v", err)
	}
}
