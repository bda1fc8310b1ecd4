package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latgate/latgate/internal/testkit"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/sim"
)

// loadConfig is a server of four batch slots answering in about 30 ms,
// gated at 80 requests/s: about 60% busy. Halving its capacity leaves a lone
// request as fast as before and overloads it at that rate.
func loadConfig(run string) string {
	return `targets:
  - name: vllm
    base_url: "sim:fixed?capacity=4&ttft=20ms&ttft_sigma=0.1&itl=1ms&tokens=8&spin=0s"
    model: sim
    max_tokens: 16
    slo: {ttft: 80ms}
prompts:
  - {id: chat, messages: [{role: user, content: "Say hello."}]}
run:
  requests: 100
  warmup: 1
` + run + `gate:
  checks:
    - {metric: ttft, stat: p50, tolerance: 20%, floor: 10ms}
    - {metric: ttft, stat: p95, tolerance: 35%, floor: 20ms}
    - {metric: slo_attainment, tolerance: 10%}
`
}

const halved = "sim:fixed?capacity=2&ttft=20ms&ttft_sigma=0.1&itl=1ms&tokens=8&spin=0s"

// TestRateGate is #31's acceptance scenario: at a rate below the server's
// capacity an unchanged server passes; with its capacity halved the run at
// that rate fails, naming TTFT P95 and the SLO's attainment (the goodput);
// the same change measured in a closed loop at concurrency 1, where a lone
// request never waits for a slot, passes.
func TestRateGate(t *testing.T) {
	testkit.Timing(t) // queueing at 60% busy: a loaded runner stretches the in-process server's answers toward its knee
	t.Parallel()
	if testing.Short() {
		t.Skip("measures for about 20 seconds")
	}
	regressed := func(out, check string) bool {
		return regexp.MustCompile(`(?m)^chat\s+` + regexp.QuoteMeta(check) + `\s.*REGRESSED$`).MatchString(out)
	}
	t.Run("at a rate", func(t *testing.T) {
		t.Parallel()
		cfg := writeConfig(t, t.TempDir(), loadConfig("  rate: 80\n"))
		if code, out, errs := run(t, nil, "bless", "--config", cfg, "--quiet"); code != ExitPass {
			t.Fatalf("bless exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
		}
		code, out, errs := run(t, nil, "check", "--config", cfg, "--quiet")
		if code != ExitPass {
			t.Fatalf("unchanged: check exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errs)
		}
		if !strings.Contains(out, "at 80 requests/s, poisson") || !strings.Contains(out, "times from each scheduled send") {
			t.Errorf("the report does not say the run was at a rate:\n%s", out)
		}
		code, out, errs = run(t, nil, "check", "--config", cfg, "--quiet", "--base-url", halved)
		if code != ExitRegression {
			t.Fatalf("capacity halved: check exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errs)
		}
		for _, c := range []string{"ttft p95", "slo_attainment"} {
			if !regressed(out, c) {
				t.Errorf("capacity halved: %s is not REGRESSED:\n%s", c, out)
			}
		}
	})
	t.Run("closed loop", func(t *testing.T) {
		t.Parallel()
		cfg := writeConfig(t, t.TempDir(), loadConfig(""))
		if code, out, errs := run(t, nil, "bless", "--config", cfg, "--quiet"); code != ExitPass {
			t.Fatalf("bless exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
		}
		code, out, errs := run(t, nil, "check", "--config", cfg, "--quiet", "--base-url", halved)
		if code != ExitPass {
			t.Fatalf("capacity halved at concurrency 1: check exit %d, want 0 (a lone request never waits)\nstdout:\n%s\nstderr:\n%s", code, out, errs)
		}
	})
}

// TestRateBaselineIdentity: a baseline blessed at one rate refuses a check
// at another (or in a closed loop), naming both loads and the fix.
func TestRateBaselineIdentity(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures for a few seconds")
	}
	dir := t.TempDir()
	cfg := writeConfig(t, dir, loadConfig("  rate: 80\n"))
	if code, out, errs := run(t, nil, "bless", "--config", cfg, "--quiet", "--requests", "80"); code != ExitPass {
		t.Fatalf("bless exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	other := writeConfig(t, filepath.Join(dir, ".."), loadConfig("  rate: 40\n"))
	code, out, errs := run(t, nil, "check", "--config", other, "--quiet", "--baseline", filepath.Join(dir, "latgate.baseline.json"))
	if code != ExitUsage || !strings.Contains(errs+out, "the load changed from 80 requests/s (poisson) to 40 requests/s (poisson)") {
		t.Errorf("check at another rate: exit %d, want %d naming both loads\nstdout:\n%s\nstderr:\n%s", code, ExitUsage, out, errs)
	}
}

// TestSweepKnee: sweep finds the simulator's knee within ±10% of its
// capacity: four batch slots of a 95 ms answer (60 ms to the first token,
// seven 5 ms gaps), 4 / 0.095 s ≈ 42 requests/s on a quiet machine. The
// capacity is taken from the simulator's own record of how long it served
// each request (a loaded runner stretches its answers, and so its
// capacity); the sweep file holds every rate measured and the knee, and the
// sweep stops past it.
func TestSweepKnee(t *testing.T) {
	testkit.Timing(t) // a capacity in wall-clock requests/s: .ci/run measures it on a quiet machine
	t.Parallel()
	if testing.Short() {
		t.Skip("measures for about 20 seconds")
	}
	p, err := sim.ParseSpec("fixed?capacity=4&ttft=60ms&itl=5ms&tokens=8&spin=0s")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sim.Start(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	srv.Server().Record(true)
	dir := t.TempDir()
	cfg := writeConfig(t, dir, `targets:
  - name: vllm
    base_url: "`+srv.URL()+`"
    model: sim
    max_tokens: 16
    slo: {ttft: 300ms}
prompts:
  - {id: chat, messages: [{role: user, content: "Say hello."}]}
run: {warmup: 1}
`)
	out := filepath.Join(dir, "sweep.json")
	code, stdout, errs := run(t, nil, "sweep", "--config", cfg, "--quiet", "--rates", "16,20,24,28,32,36,40,44,48,56,64,80", "--duration", "3s", "--out", out)
	if code != ExitPass {
		t.Fatalf("sweep exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, errs)
	}
	var served []float64
	for _, r := range srv.Server().Records() {
		if n := len(r.Tokens); n > 0 {
			served = append(served, r.Tokens[n-1].Sub(r.Start).Seconds())
		}
	}
	slices.Sort(served)
	capacity := 4 / served[len(served)/2]
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var sw results.Sweep
	if err := json.Unmarshal(data, &sw); err != nil {
		t.Fatalf("sweep file: %v", err)
	}
	if sw.Schema != results.SweepSchema || len(sw.Targets) != 1 || sw.Targets[0].Knee == nil {
		t.Fatalf("sweep file %s: want one target with a knee", data)
	}
	k, steps := sw.Targets[0].Knee, sw.Targets[0].Steps
	if k.Below || k.Above || k.Rate < 0.9*capacity || k.Rate > 1.1*capacity || k.Lo > k.Rate || k.Hi < k.Rate {
		t.Errorf("knee %+v, want %.1f ± 10%% (4 slots / a median answer of %.0f ms) inside its interval\n%s", *k, capacity, 1000*served[len(served)/2], stdout)
	}
	if n := len(steps); n == len(sw.Rates) || steps[n-1].Goodput >= sw.Goal-0.1 {
		t.Errorf("%d of %d rates measured, the last at goodput %.2f: the sweep should stop past the knee\n%s", n, len(sw.Rates), steps[n-1].Goodput, stdout)
	}
	if !strings.Contains(stdout, "knee: ") {
		t.Errorf("no knee line:\n%s", stdout)
	}
}

// TestSweepUsage: bad rates and goals are refused before anything is
// measured, naming the flag and the fix.
func TestSweepUsage(t *testing.T) {
	t.Parallel()
	cfg := writeConfig(t, t.TempDir(), loadConfig(""))
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "--rates is required"},
		{[]string{"--rates", "4,2"}, "--rates: 2 after 4: give the rates ascending"},
		{[]string{"--rates", "4,x"}, `--rates: "x" is not a number`},
		{[]string{"--rates", "0"}, "--rates: 0 is not a rate between 0.01 and 10000"},
		{[]string{"--rates", "4", "--goal", "150%"}, "--goal: 150% must be above 0% and at most 100%"},
		{[]string{"--rates", "4", "--goal", "95"}, "--goal: 95 must be above 0% and at most 100% (written 95% or 0.95)"},
		{[]string{"--rates", "4", "--concurrency", "2"}, "--concurrency does not apply to a sweep"},
	} {
		code, out, errs := run(t, nil, append([]string{"sweep", "--config", cfg, "--quiet"}, tt.args...)...)
		if code != ExitUsage || !strings.Contains(errs, tt.want) {
			t.Errorf("sweep %v: exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", tt.args, code, ExitUsage, tt.want, out, errs)
		}
	}
}

// TestSweepTrend is the knee in the nightly: three sweeps of a server of
// two batch slots answering in about 50 ms (a knee near 40 requests/s),
// each adding its knee to the history, then two of the same server with
// one slot (a knee near 20/s, half: a loaded runner stretches both alike):
// trend passes on the first sweeps and fails on the knee once it stayed
// down for two, naming it.
func TestSweepTrend(t *testing.T) {
	testkit.Timing(t) // a capacity in wall-clock requests/s: .ci/run measures it on a quiet machine
	t.Parallel()
	if testing.Short() {
		t.Skip("sweeps five times, about 30 seconds")
	}
	dir := t.TempDir()
	hist := filepath.Join(dir, "history.jsonl")
	spec := func(slots string) string {
		return "sim:fixed?capacity=" + slots + "&ttft=40ms&itl=2ms&tokens=6&spin=0s"
	}
	cfg := writeConfig(t, dir, `targets:
  - name: vllm
    base_url: "`+spec("2")+`"
    model: sim
    max_tokens: 16
    slo: {ttft: 250ms}
prompts:
  - {id: chat, messages: [{role: user, content: "Say hello."}]}
run: {warmup: 1}
knee: {tolerance: 15%}
`)
	sweep := func(slots string) {
		t.Helper()
		code, out, errs := run(t, nil, "sweep", "--config", cfg, "--quiet", "--rates", "12,20,28,36,44,52", "--duration", "1500ms",
			"--history", hist, "--base-url", spec(slots))
		if code != ExitPass {
			t.Fatalf("sweep exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
		}
	}
	trend := func() (int, string) {
		t.Helper()
		code, out, errs := run(t, nil, "trend", "--config", cfg, "--history", hist)
		return code, out + errs
	}
	for range 3 {
		sweep("2")
	}
	if code, out := trend(); code != ExitPass || !strings.Contains(out, "knee of target vllm") {
		t.Fatalf("after three sweeps at the same capacity: trend exit %d, want 0 with the knee\n%s", code, out)
	}
	sweep("1") // one sweep down: not yet
	if code, out := trend(); code != ExitPass {
		t.Fatalf("after one slower sweep: trend exit %d, want 0 (two in a row fail)\n%s", code, out)
	}
	sweep("1")
	code, out := trend()
	if code != ExitRegression || !strings.Contains(out, "FAIL: the knee of target vllm fell") || !strings.Contains(out, "REGRESSED (the capacity fell)") {
		t.Errorf("after two slower sweeps: trend exit %d, want 1 naming the knee\n%s", code, out)
	}
	t.Logf("trend after two slower sweeps:\n%s", out)
}

// TestABAtARate: ab of two deployments under one arrival stream, each side
// at 36 requests/s: one server of eight batch slots against one of two
// (95 ms answers: knees near 84 and 21 per second, the second overloaded)
// fails naming TTFT P95 and the goodput (an SLO of 120 ms to the first
// token); the report says the load.
func TestABAtARate(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures for a few seconds")
	}
	dir := t.TempDir()
	conf := func(name string, slots string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(`targets:
  - name: vllm
    base_url: "sim:fixed?capacity=`+slots+`&ttft=60ms&itl=5ms&tokens=8&spin=0s"
    model: sim
    max_tokens: 16
    slo: {ttft: 120ms}
prompts:
  - {id: chat, messages: [{role: user, content: "Say hello."}]}
run: {rate: 36, requests: 120, warmup: 1}
gate:
  checks:
    - {metric: ttft, stat: p95, tolerance: 35%, floor: 20ms}
    - {metric: slo_attainment, tolerance: 5%}
`), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	eight, two := conf("eight.yaml", "8"), conf("two.yaml", "2")
	code, out, errs := run(t, nil, "ab", "--quiet", eight, two)
	if code != ExitRegression {
		t.Fatalf("ab 8 slots → 2 at 36/s: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	for _, c := range []string{"ttft p95", "slo_attainment"} {
		if !regexp.MustCompile(`(?m)^vllm\s+chat\s+` + c + `\s.*REGRESSED$`).MatchString(out) {
			t.Errorf("%s is not REGRESSED:\n%s", c, out)
		}
	}
	if !strings.Contains(out, "at 36 requests/s") {
		t.Errorf("the report does not say the load:\n%s", out)
	}
}

// TestStallReported: the simulator stalls for a second half a second into
// the run. In a closed loop the stall is one request in a hundred, and the
// report says why that undercounts it (coordinated omission) and what a
// rate would measure; at a rate every request that arrived during it
// waited, so the TTFT P95 holds it, and the report says the load instead.
func TestStallReported(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures for a few seconds")
	}
	dir := t.TempDir()
	conf := func(name, run string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(`targets:
  - {name: api, base_url: "sim:fixed?ttft=10ms&itl=1ms&tokens=4&stall=1s&stall_at=500ms&spin=0s", model: sim, max_tokens: 8}
prompts:
  - {id: p, messages: [{role: user, content: "Say hi."}]}
run: {requests: 100, warmup: 0`+run+`}
`), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	code, closed, errs := run(t, nil, "measure", "--config", conf("closed.yaml", ""), "--quiet")
	flat := strings.Join(strings.Fields(closed), " ") // the note wraps at 100 columns
	if code != ExitPass || !strings.Contains(flat, "a closed loop sends nothing while its streams wait") || !strings.Contains(flat, "(coordinated omission)") {
		t.Errorf("closed loop: exit %d, want 0 with the coordinated-omission note\nstdout:\n%s\nstderr:\n%s", code, closed, errs)
	}
	var f results.File
	out := filepath.Join(dir, "open.json")
	code, open, errs := run(t, nil, "measure", "--config", conf("open.yaml", ", rate: 50"), "--quiet", "--out", out)
	if code != ExitPass || strings.Contains(open, "coordinated omission") || !strings.Contains(open, "times from each scheduled send") {
		t.Fatalf("at a rate: exit %d, want 0 with the sends' note and no stall note\nstdout:\n%s\nstderr:\n%s", code, open, errs)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if p95 := f.Targets[0].Overall.Metrics.TTFT.P95; p95 < 500 {
		t.Errorf("at a rate the TTFT P95 is %.0f ms: the stall should hold it (≥ 500 ms)\n%s", p95, open)
	}
}

// TestSweepInterrupted: a sweep stopped in its second rate (the context
// cancelled, as Ctrl-C does) exits 3 and still writes what it measured,
// marked partial.
func TestSweepInterrupted(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures for a few seconds")
	}
	dir := t.TempDir()
	// An SLO no busy runner misses: at 80 ms a loaded machine failed the
	// first rate, and the sweep stopped at its knee (exit 0) before the
	// interruption this test is about.
	cfg := writeConfig(t, dir, strings.Replace(loadConfig(""), "slo: {ttft: 80ms}", "slo: {ttft: 30s}", 1))
	out := filepath.Join(dir, "sweep.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		time.Sleep(2500 * time.Millisecond) // the first rate takes 2 s
		cancel()
	}()
	code, stdout, errs := runIn(ctx, Env{Getenv: func(string) string { return "" }}, "sweep", "--config", cfg, "--quiet",
		"--rates", "20,40", "--duration", "2s", "--out", out)
	if code != ExitMeasurement {
		t.Fatalf("interrupted sweep: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitMeasurement, stdout, errs)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("no sweep file: %v", err)
	}
	var sw results.Sweep
	if err := json.Unmarshal(data, &sw); err != nil {
		t.Fatal(err)
	}
	if !sw.Partial || len(sw.Targets) != 1 || len(sw.Targets[0].Steps) == 0 || sw.Targets[0].Steps[0].Rate != 20 {
		t.Errorf("sweep file %s: want partial, with the first rate measured", data)
	}
	if !strings.Contains(stdout, "the sweep was interrupted") {
		t.Errorf("the report does not say the sweep was interrupted:\n%s", stdout)
	}
}
