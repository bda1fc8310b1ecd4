package cli

import (
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/results"
)

// abConfig is a config on the simulator with its level jumping ×1.3 every
// 300 ms of wall time (several jumps within the run); extra is added to the
// spec of its one target.
func abConfig(model, extra string) string {
	return `targets:
  - name: sim
    base_url: "sim:default?tokens=6&level_jump=1.3&level_period=300ms` + extra + `"
    model: ` + model + `
    max_tokens: 8
` + twoPrompts + `run:
  requests: 30
  max_requests: 30
  warmup: 1
  concurrency: 4
gate:
  checks:
    - {metric: ttft, stat: p50, tolerance: 20%, floor: 20ms}
    - {metric: itl, stat: p50, tolerance: 15%, floor: 2ms}
`
}

// TestABOnTheWire runs `latgate ab` through the real HTTP/SSE path on the
// simulator with its level jumping: identical configs pass; a candidate
// whose model is twice as slow to the first token fails with exit 1, every
// report naming both configs, and --out holds both sides.
func TestABOnTheWire(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("streams for a few seconds")
	}
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := write("base.yaml", abConfig("small", ""))
	same := write("same.yaml", abConfig("small", ""))
	slow := write("slow.yaml", abConfig("large", "&ttft_factor=2"))

	code, stdout, stderr := run(t, nil, "ab", "--quiet", "--if-changed", base, same)
	if code != ExitPass || !strings.Contains(stdout, "measure the same targets and prompts, so ab was not run") {
		t.Fatalf("--if-changed on identical configs: exit %d, want 0 without measuring\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = run(t, nil, "ab", "--quiet", base, same)
	if code != ExitPass {
		t.Fatalf("identical configs: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	md, junit, out := filepath.Join(dir, "ab.md"), filepath.Join(dir, "ab.xml"), filepath.Join(dir, "ab.json")
	code, stdout, stderr = run(t, nil, "ab", "--quiet", "--if-changed", "--markdown", md, "--junit", junit, "--out", out, base, slow)
	if code != ExitRegression {
		t.Fatalf("a slower candidate: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	report, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"stdout": stdout, "Markdown": string(report)} {
		for _, want := range []string{base, slow, "model small → large", "base faster: ttft p50"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, text)
			}
		}
	}
	if !strings.Contains(stderr, "measure different targets or prompts, so ab measures both: target sim: model small → large") {
		t.Errorf("stderr does not say why ab ran:\n%s", stderr)
	}
	if _, err := os.Stat(junit); err != nil {
		t.Errorf("no JUnit report: %v", err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := compare.DecodeRecordedAB(data, out)
	if err != nil {
		t.Fatal(err)
	}
	bs, cs := rec.Base.Targets[0].Prompts[0].Samples, rec.Candidate.Targets[0].Prompts[0].Samples
	if len(bs) != 30 || len(cs) != 30 || rec.Comparison == nil || rec.Comparison.Verdict != compare.Regressed {
		t.Errorf("--out: %d base and %d candidate samples of greeting, comparison %v; want 30 each and regressed", len(bs), len(cs), rec.Comparison)
	}
}

// TestABUsage: ab needs two configs, or one with --targets; flags go
// first; check's flags about a baseline are not ab's.
func TestABUsage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"ab", "one.yaml"}, "ab takes two configs"},
		{[]string{"ab", "a.yaml", "b.yaml", "c.yaml"}, "ab takes two configs"},
		{[]string{"ab", "a.yaml", "b.yaml", "--junit", "x"}, "flags go before the configs"},
		{[]string{"ab", "--targets", "a", "x.yaml"}, "--targets takes two target names"},
		{[]string{"ab", "missing-a.yaml", "missing-b.yaml"}, "no config at missing-a.yaml"},
		{[]string{"ab", "--strict-baseline", "a.yaml", "b.yaml"}, "flag provided but not defined: --strict-baseline"}, // ab has no baseline
	} {
		code, _, stderr := run(t, nil, tt.args...)
		if code != ExitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
}

// TestABHelpExamplesFirst: `latgate ab --help` leads with examples.
func TestABHelpExamplesFirst(t *testing.T) {
	t.Parallel()
	code, stdout, _ := run(t, nil, "ab", "--help")
	if code != ExitPass {
		t.Fatalf("exit %d", code)
	}
	_, desc, ok := strings.Cut(stdout, "DESCRIPTION:\n")
	if !ok || !strings.HasPrefix(strings.TrimSpace(desc), "EXAMPLES:") {
		t.Errorf("the description does not start with EXAMPLES:\n%s", stdout)
	}
}

// abSmallConfig is a config of one target at baseURL with the prompts ids,
// few requests, one look, and floors far above a loaded machine's jitter
// (these tests are about what ab reports, not about latency).
func abSmallConfig(baseURL string, ids ...string) string {
	s := "targets:\n  - {name: t, base_url: \"" + baseURL + "\", model: sim, max_tokens: 8}\nprompts:\n"
	for _, id := range ids {
		s += "  - {id: " + id + ", messages: [{role: user, content: \"Say " + id + ".\"}]}\n"
	}
	return s + `run: {requests: 20, max_requests: 20, warmup: 0, concurrency: 2, timeout: 5s}
gate:
  checks:
    - {metric: ttft, stat: p50, tolerance: 20%, floor: 200ms}
    - {metric: itl, stat: p50, tolerance: 15%, floor: 200ms}
`
}

// TestABOneSidedPrompts: a prompt only one side has is named in every
// report — stdout, the job summary, a ::warning annotation — and not
// measured; the run still decides the prompts both have, and writes its
// verdict to $GITHUB_OUTPUT.
func TestABOneSidedPrompts(t *testing.T) {
	if testing.Short() {
		t.Skip("streams for a second")
	}
	t.Parallel()
	dir := t.TempDir()
	base := filepath.Join(dir, "base.yaml")
	cand := filepath.Join(dir, "cand.yaml")
	for p, body := range map[string]string{base: abSmallConfig("sim:fast", "shared", "old"), cand: abSmallConfig("sim:fast", "shared", "new")} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	summary, output, res := filepath.Join(dir, "summary.md"), filepath.Join(dir, "output.txt"), filepath.Join(dir, "ab.json")
	env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary, "GITHUB_OUTPUT": output}
	code, stdout, stderr := run(t, env, "ab", "--quiet", "--out", res, base, cand)
	if code != ExitPass {
		t.Fatalf("exit %d, want 0: a one-sided prompt is not fatal\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	sum, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") } // the text wraps
	for _, id := range []struct{ id, in string }{{"old", base}, {"new", cand}} {
		note := "prompt " + id.id + " is only in " + id.in + ": not measured, not compared"
		for name, text := range map[string]string{"stdout": stdout, "stderr": stderr, "the job summary": string(sum)} {
			if !strings.Contains(flat(text), note) {
				t.Errorf("%s lacks %q:\n%s", name, note, text)
			}
		}
		if !strings.Contains(stdout, "::warning title=latgate::"+note) {
			t.Errorf("no ::warning annotation %q:\n%s", note, stdout)
		}
	}
	// The shared prompt's verdict is the measurement's (on a loaded machine
	// a check can stay undecided); what the one-sided prompts must not do
	// is fail the run or leave it without a verdict.
	if out, err := os.ReadFile(output); err != nil || !strings.Contains(string(out), "verdict=ok\n") && !strings.Contains(string(out), "verdict=inconclusive\n") {
		t.Errorf("$GITHUB_OUTPUT %q (err %v), want verdict=ok (or inconclusive)", out, err)
	}
	data, err := os.ReadFile(res)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := compare.DecodeRecordedAB(data, res)
	if err != nil {
		t.Fatal(err)
	}
	for k, f := range []*results.File{rec.Base, rec.Candidate} {
		var ids []string
		for _, p := range f.Targets[0].Prompts {
			ids = append(ids, p.ID)
		}
		if diff := cmp.Diff([]string{"shared"}, ids); diff != "" {
			t.Errorf("side %d measured (-want +got):\n%s", k, diff)
		}
	}
}

// TestABMeasurementFailure: an endpoint that refuses connections ends ab
// as it ends check: exit 3, verdict=error in $GITHUB_OUTPUT, an ::error
// annotation saying nothing was gated.
func TestABMeasurementFailure(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	dir := t.TempDir()
	base, cand := filepath.Join(dir, "base.yaml"), filepath.Join(dir, "cand.yaml")
	for p, body := range map[string]string{base: abSmallConfig("sim:fast", "p"), cand: abSmallConfig(refused, "p")} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	output := filepath.Join(dir, "output.txt")
	env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md"), "GITHUB_OUTPUT": output}
	code, stdout, stderr := run(t, env, "ab", "--quiet", base, cand)
	if code != ExitMeasurement {
		t.Fatalf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !regexp.MustCompile(`(?m)^::error title=latgate%3A measurement failed::`).MatchString(stdout) {
		t.Errorf("no ::error annotation of the measurement failure on stdout:\n%s", stdout)
	}
	if data, _ := os.ReadFile(output); string(data) != "verdict=error\n" {
		t.Errorf("step output %q, want verdict=error", data)
	}
}

// TestABRounds: sequential rounds apply to ab as to check — a gated check
// that 10 blocks cannot resolve (a TTFT p90 needs more requests for a
// distribution-free bound) gets more rounds, up to run.max_requests (60), both
// sides growing together, every block's two samples sharing their seq.
func TestABRounds(t *testing.T) {
	if testing.Short() {
		t.Skip("streams for a second")
	}
	t.Parallel()
	dir := t.TempDir()
	cfg := func(model string) string {
		return "targets:\n  - {name: t, base_url: \"sim:fast\", model: " + model + ", max_tokens: 4}\n" +
			"prompts:\n  - {id: p, messages: [{role: user, content: hi}]}\n" +
			"run: {requests: 10, max_requests: 60, warmup: 0, concurrency: 2, timeout: 5s}\n" +
			"gate:\n  checks:\n    - {metric: ttft, stat: p90, tolerance: 35%, floor: 500ms}\n"
	}
	base, cand, res := filepath.Join(dir, "base.yaml"), filepath.Join(dir, "cand.yaml"), filepath.Join(dir, "ab.json")
	for p, body := range map[string]string{base: cfg("a"), cand: cfg("b")} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := run(t, nil, "ab", "--out", res, base, cand)
	if code != ExitPass {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "round") {
		t.Errorf("stderr does not announce a round:\n%s", stderr)
	}
	data, err := os.ReadFile(res)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := compare.DecodeRecordedAB(data, res)
	if err != nil {
		t.Fatal(err)
	}
	bp, cp := rec.Base.Targets[0].Prompts[0], rec.Candidate.Targets[0].Prompts[0]
	if bp.Requests <= 10 || bp.Requests > 60 || bp.Requests != cp.Requests || len(bp.Samples) != len(cp.Samples) {
		t.Fatalf("base %d requests (%d samples), candidate %d (%d): want equal, more than the first look's 10, at most 60",
			bp.Requests, len(bp.Samples), cp.Requests, len(cp.Samples))
	}
	seqs := map[int]bool{}
	for i := range bp.Samples {
		if bp.Samples[i].Seq != cp.Samples[i].Seq || seqs[bp.Samples[i].Seq] {
			t.Fatalf("sample %d: seq %d on the base side, %d on the candidate's (or seen before): the rounds' blocks do not pair", i, bp.Samples[i].Seq, cp.Samples[i].Seq)
		}
		seqs[bp.Samples[i].Seq] = true
	}
	if rec.Comparison == nil || rec.Comparison.Verdict != compare.OK {
		t.Errorf("comparison %v, want ok once resolved", rec.Comparison)
	}
}

// TestABTwoTargetsOfOneConfig: `ab --targets a,b` compares two targets of
// one config on the wire — "which is faster for our prompts?" — and names
// the faster side; the slower candidate fails.
func TestABTwoTargetsOfOneConfig(t *testing.T) {
	if testing.Short() {
		t.Skip("streams for a second")
	}
	t.Parallel()
	cfg := writeConfig(t, t.TempDir(), `targets:
  - {name: quick, base_url: "sim:fast?ttft=20ms", model: m, max_tokens: 4}
  - {name: slow, base_url: "sim:fast?ttft=20ms&ttft_factor=3", model: m, max_tokens: 4}
prompts:
  - {id: p, messages: [{role: user, content: hi}]}
run: {requests: 20, max_requests: 20, warmup: 0, concurrency: 2, timeout: 5s}
gate:
  checks:
    - {metric: ttft, stat: p50, tolerance: 20%, floor: 5ms}
`)
	code, stdout, stderr := run(t, nil, "ab", "--quiet", "--targets", "quick,slow", cfg)
	if code != ExitRegression {
		t.Fatalf("exit %d, want 1: the slow target is 3× slower to the first token\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	flat := strings.Join(strings.Fields(stdout), " ")
	for _, want := range []string{"target quick → slow", "base faster: ttft p50"} {
		if !strings.Contains(flat, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	code, stdout, stderr = run(t, nil, "ab", "--quiet", "--targets", "slow,quick", cfg)
	if code != ExitPass || !strings.Contains(strings.Join(strings.Fields(stdout), " "), "candidate faster: ttft p50") {
		t.Errorf("--targets slow,quick: exit %d, want 0 with the candidate faster\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
