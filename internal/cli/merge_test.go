package cli

import (
	"bytes"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/baseline"
	"github.com/latgate/latgate/pkg/results"
)

// writeRunnerResults writes a small results file of target "api" as one
// runner measured it: each file's timings differ a little (by its name), as
// two runners' do.
func writeRunnerResults(t *testing.T, path string, edit func(*results.File)) {
	t.Helper()
	start := time.Date(2025, 6, 1, 3, 0, 0, 0, time.UTC)
	jitter := float64(crc32.ChecksumIEEE([]byte(filepath.Base(path)))%1000) / 1000
	f := &results.File{
		Schema: results.Schema, Version: "v1.0.0", StartedAt: start, FinishedAt: start.Add(time.Minute),
		ConfigPath: "latgate.yaml", ConfigHash: "c0ffee",
		Run: results.Run{Requests: 2, Warmup: 0, Concurrency: 1, TimeoutMS: 60000, Order: "interleave", Seed: 1},
		Targets: []results.Target{{
			Name: "api", BaseURL: "https://api.example.com/v1", Model: "m",
			Params: results.Params{MaxTokens: 16, Stream: true},
			Prompts: []results.Prompt{{ID: "hello", Hash: "1a2b", Requests: 2,
				Samples: []results.Sample{{Seq: 0, TTFT: 40 + jitter, Total: 90}, {Seq: 1, TTFT: 42, Total: 95}}}},
			Requests: 2,
		}},
	}
	if edit != nil {
		edit(f)
	}
	if err := results.Write(path, f); err != nil {
		t.Fatal(err)
	}
}

func regionsOf(t *testing.T, data []byte) []string {
	t.Helper()
	f, err := results.Decode(data, "merged")
	if err != nil {
		t.Fatalf("merged output: %v\n%s", err, data)
	}
	var regions []string
	for _, tg := range f.Targets {
		regions = append(regions, tg.Name+"@"+tg.Region)
	}
	return regions
}

func TestMergeCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	us, eu := filepath.Join(dir, "results-us.json"), filepath.Join(dir, "results-eu.json")
	writeRunnerResults(t, us, nil)
	writeRunnerResults(t, eu, nil)
	slow := filepath.Join(dir, "results-ap.json")
	writeRunnerResults(t, slow, func(f *results.File) { f.Run.Requests = 30 })
	usCopy := filepath.Join(dir, "copy-of-us.json")
	if data, err := os.ReadFile(us); err != nil || os.WriteFile(usCopy, data, 0o644) != nil {
		t.Fatal("copy", err)
	}

	tests := []struct {
		name        string
		args        []string
		code        int
		regions     []string // of the merged file on stdout
		stderrFrags []string
	}{
		{name: "FILE=LABEL", args: []string{us + "=us-east", eu + "=eu-west"},
			regions: []string{"api@us-east", "api@eu-west"}, stderrFrags: []string{"merged 2 files: targets api@us-east, api@eu-west"}},
		{name: "labels from file names", args: []string{"--label-from-filename", us, eu},
			regions: []string{"api@us", "api@eu"}},
		{name: "both kinds of labels", args: []string{"-L", us + "=x", eu}, code: ExitUsage,
			stderrFrags: []string{"not both"}},
		{name: "no labels", args: []string{us, eu}, code: ExitUsage,
			stderrFrags: []string{`target "api" (no region) is in both ` + us + " and " + eu, "label each file with its runner or region (FILE=LABEL, e.g. " + us + "=us-east " + eu + "=eu-west)"}},
		{name: "different settings", args: []string{us + "=us", slow + "=ap"}, code: ExitUsage,
			stderrFrags: []string{"run.requests: " + us + " has 2, " + slow + " has 30", "--force merges anyway"}},
		{name: "different settings, forced", args: []string{"--force", us + "=us", slow + "=ap"},
			regions: []string{"api@us", "api@ap"}, stderrFrags: []string{"warning: merged despite a difference: run.requests"}},
		{name: "one file twice", args: []string{us + "=us", us + "=eu"}, code: ExitUsage,
			stderrFrags: []string{us + " is given twice: merging it with itself would count its requests twice"}},
		{name: "a copy of one file", args: []string{us + "=us", usCopy + "=eu"}, code: ExitUsage,
			stderrFrags: []string{us + " and " + usCopy + ` hold the same measurements of target "api"`}},
		{name: "missing file", args: []string{us + "=us", filepath.Join(dir, "nope.json") + "=eu"}, code: ExitUsage,
			stderrFrags: []string{"no results file at " + filepath.Join(dir, "nope.json")}},
		{name: "bad label", args: []string{us + "=us east"}, code: ExitUsage, stderrFrags: []string{"want FILE=LABEL"}},
		{name: "no files", code: ExitUsage, stderrFrags: []string{"merge takes the results files"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, nil, append([]string{"merge"}, tt.args...)...)
			t.Logf("stderr:\n%s", stderr)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstderr:\n%s", code, tt.code, stderr)
			}
			for _, frag := range tt.stderrFrags {
				if !strings.Contains(stderr, frag) {
					t.Errorf("stderr does not contain %q:\n%s", frag, stderr)
				}
			}
			if tt.code != ExitPass {
				if stdout != "" {
					t.Errorf("stdout on failure:\n%s", stdout)
				}
				return
			}
			if diff := cmp.Diff(tt.regions, regionsOf(t, []byte(stdout))); diff != "" {
				t.Errorf("merged targets (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMergeOutMatchesStdout: --out writes the same bytes as stdout, which are
// results.Write's encoding.
func TestMergeOutMatchesStdout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	us, eu := filepath.Join(dir, "us.json"), filepath.Join(dir, "eu.json")
	writeRunnerResults(t, us, func(f *results.File) { f.Targets[0].Prompts[0].ID = "<html> & co" })
	writeRunnerResults(t, eu, nil)
	code, stdout, stderr := run(t, nil, "merge", us+"=us", eu+"=eu")
	if code != ExitPass {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	out := filepath.Join(dir, "merged.json")
	if code, _, stderr := run(t, nil, "merge", "--out", out, us+"=us", eu+"=eu"); code != ExitPass {
		t.Fatalf("merge --out: exit %d\n%s", code, stderr)
	}
	written, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(written), stdout); diff != "" {
		t.Errorf("stdout differs from the --out file (-file +stdout):\n%s", diff)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	again := filepath.Join(dir, "again.json")
	if err := results.Write(again, f); err != nil {
		t.Fatal(err)
	}
	if rewritten, _ := os.ReadFile(again); !bytes.Equal(rewritten, written) {
		t.Errorf("merge output is not results.Write's encoding:\n%s\nvs\n%s", written, rewritten)
	}
}

// runnerConfig measures a quick simulator: 20 ms fixed TTFT, gated on TTFT
// P50 with a 5 ms floor.
const runnerConfig = `targets:
  - name: sim
    base_url: "sim:fast?ttft=20ms"
    model: sim
    max_tokens: 16
prompts:
  - id: hello
    messages:
      - {role: user, content: "Say hello."}
run:
  requests: 30
  warmup: 1
  concurrency: 2
gate:
  checks:
    - {metric: ttft, stat: p50, tolerance: 25%, floor: 5ms}
`

// TestMergeRunnersOneComparison is the matrix use: two runners measure the
// same config, their files are merged, blessed, and a later pair of runs,
// merged the same way, gets one comparison covering both regions.
func TestMergeRunnersOneComparison(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures the simulator")
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "latgate.yaml")
	if err := os.WriteFile(cfg, []byte(runnerConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	// measureRunners measures as two runners would and merges their files.
	measureRunners := func(round string) string {
		t.Helper()
		var args []string
		for _, region := range []string{"us-east", "eu-west"} {
			out := filepath.Join(dir, round, "results-"+region+".json")
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				t.Fatal(err)
			}
			if code, _, stderr := run(t, nil, "measure", "--config", cfg, "--quiet", "--out", out); code != ExitPass {
				t.Fatalf("measure: exit %d\n%s", code, stderr)
			}
			args = append(args, out)
		}
		merged := filepath.Join(dir, round+".json")
		code, _, stderr := run(t, nil, append([]string{"merge", "--label-from-filename", "--out", merged}, args...)...)
		if code != ExitPass {
			t.Fatalf("merge: exit %d\n%s", code, stderr)
		}
		return merged
	}

	blessed, err := results.Read(measureRunners("bless"))
	if err != nil {
		t.Fatal(err)
	}
	basePath := filepath.Join(dir, "latgate.baseline.json")
	if err := baseline.Write(basePath, baseline.FromResults(blessed, time.Now(), "")); err != nil {
		t.Fatal(err)
	}
	current := measureRunners("check")
	junit := filepath.Join(dir, "junit.xml")
	code, stdout, stderr := run(t, nil, "compare", "--config", cfg, "--junit", junit, basePath, current)
	t.Logf("compare:\n%s", stdout)
	// The same simulator: a pass; a noisy machine may make a check
	// inconclusive (still 0). Refusals (2) would mean the merged files do not
	// match each other.
	if code != ExitPass {
		t.Fatalf("compare: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	report, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	for _, region := range []string{"us-east", "eu-west"} {
		if !strings.Contains(stdout, region) || !bytes.Contains(report, []byte(region)) {
			t.Errorf("the comparison does not cover region %s\nstdout:\n%s\njunit:\n%s", region, stdout, report)
		}
	}
}
