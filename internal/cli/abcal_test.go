package cli

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latgate/latgate/pkg/compare"
)

// The on-the-wire calibration of `latgate ab`: the real command, in
// process, through HTTP/SSE against the built-in simulator (default
// profile: TTFT 120 ms σ0.25, ITL 4 ms σ0.2), its level jumping ×1/×1.3
// every 1.5 s of wall time, the default gate's tolerances with the example's floors and
// the default looks (60 → 150 requests per prompt and side), 2 prompts,
// concurrency 4. Run i seeds the simulator, the schedule and the gate with
// i. Slow (a run takes 10–30 s), so only on request:
//
//	go test ./internal/cli/ -run ABWireCalibration -v -timeout 0 -args -ab-wire-runs 20
//
// It fails when the targets are missed by more than n runs can
// resolve. pkg/compare's TestABCalibration has the many-run figures on the
// model.

var abWireRuns = flag.Int("ab-wire-runs", 0, "runs per scenario of TestABWireCalibration (0: skip)")

func abWireConfig(spec string, seed int) string {
	return fmt.Sprintf(`targets:
  - name: sim
    base_url: "sim:default?level_jump=1.3&level_period=1.5s%s"
    model: sim
    max_tokens: 64
prompts:
  - id: greeting
    messages:
      - {role: user, content: "Say hello in five words."}
  - id: summarize
    messages:
      - {role: user, content: "Summarize in one sentence: latency regressions hide in averages."}
run:
  requests: 60
  warmup: 2
  concurrency: 4
  seed: %[2]d
gate:
  seed: %[2]d
  checks:
    - {metric: ttft, stat: p50, tolerance: 15%%, floor: 20ms}
    - {metric: ttft, stat: p90, tolerance: 50%%, floor: 40ms}
    - {metric: itl, stat: p50, tolerance: 15%%, floor: 2ms}
    - {metric: itl, stat: p95, tolerance: 25%%, floor: 5ms}
`, spec, seed)
}

func TestABWireCalibration(t *testing.T) {
	if *abWireRuns <= 0 {
		t.Skip("on-the-wire calibration: run with -args -ab-wire-runs N (minutes)")
	}
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Logf("on the wire: latgate ab in process against the simulator (default profile), level ×1/×1.3 every 1.5 s, default gate's tolerances (example's floors) and looks, 2 prompts, concurrency 4, seeds 1…%d", *abWireRuns)
	t.Log("| candidate | runs | exit 1 (regressed) | exit 0 | other exits | pooled ttft p50 reported candidate-faster | mean requests/prompt/side |")
	t.Log("|---|--:|--:|--:|--:|--:|--:|")
	for _, sc := range []struct{ name, spec string }{
		{"identical config", ""},
		{"TTFT +30% (ttft_factor=1.3)", "&ttft_factor=1.3"},
		{"30% faster (slowdown=0.7)", "&slowdown=0.7"},
	} {
		var fail, pass, other, faster, requests, prompts int
		for i := 1; i <= *abWireRuns; i++ {
			base := write("base.yaml", abWireConfig(fmt.Sprintf("&seed=%d", 2*i), i))
			// Identical configs name one simulator, which serves both sides.
			cspec := fmt.Sprintf("&seed=%d", 2*i)
			if sc.spec != "" {
				cspec = fmt.Sprintf("&seed=%d%s", 2*i+1, sc.spec)
			}
			cand := write("cand.yaml", abWireConfig(cspec, i))
			out := filepath.Join(dir, "ab.json")
			code, _, stderr := run(t, nil, "ab", "--quiet", "--out", out, base, cand)
			switch code {
			case ExitRegression:
				fail++
			case ExitPass:
				pass++
			default:
				other++
				t.Logf("run %d: exit %d: %s", i, code, strings.TrimSpace(stderr))
				continue
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := compare.DecodeRecordedAB(data, out)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range rec.Comparison.Aggregates {
				if a.Metric == "ttft" && a.Stat == "p50" && a.Faster() == "candidate" {
					faster++
				}
			}
			for _, p := range rec.Candidate.Targets[0].Prompts {
				requests += p.Requests
				prompts++
			}
		}
		n := *abWireRuns
		t.Logf("| %s | %d | %d (%.0f%%) | %d | %d | %d | %.1f |", sc.name, n, fail, 100*float64(fail)/float64(n), pass, other, faster,
			float64(requests)/float64(max(prompts, 1)))
		// The targets, as far as n runs resolve them (two standard
		// errors, as pkg/compare's TestABCalibration): identical configs
		// fail ≤ 1% of runs, TTFT +30% fails ≥ 95%, 30% faster is reported
		// faster in ≥ 95% and never fails; no run ends in another exit.
		pct := func(k int) float64 { return 100 * float64(k) / float64(n) }
		se := func(p float64) float64 { return 100 * math.Sqrt(p*(1-p)/float64(n)) }
		if other > 0 {
			t.Errorf("%s: %d runs ended with neither exit 0 nor 1", sc.name, other)
		}
		switch {
		case sc.spec == "":
			if limit := 1 + 2*se(0.01); pct(fail) > limit {
				t.Errorf("%s: failed %.0f%% of runs, want ≤ 1%% (%.1f%% with two standard errors)", sc.name, pct(fail), limit)
			}
		case strings.Contains(sc.spec, "ttft_factor"):
			if limit := 95 - 2*se(0.95); pct(fail) < limit {
				t.Errorf("%s: failed %.0f%% of runs, want ≥ 95%% (%.1f%% with two standard errors)", sc.name, pct(fail), limit)
			}
		default:
			if limit := 95 - 2*se(0.95); pct(faster) < limit || fail > 0 {
				t.Errorf("%s: reported faster in %.0f%% of runs (want ≥ 95%%, %.1f%% with two standard errors), failed %d", sc.name, pct(faster), limit, fail)
			}
		}
	}
}
