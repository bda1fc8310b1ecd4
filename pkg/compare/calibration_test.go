package compare

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

var calibrate = flag.Bool("calibrate", false, "run the long calibration sweep (many runs, several sample sizes and noise levels) and log its table")

// scenario is one simulated endpoint and gate setting.
type scenario struct {
	TTFTSigma   float64 // sd of log TTFT
	ITLSigma    float64 // total sd of log ITL gap (split 1:√3 between request and gap effects)
	Requests    int     // per prompt and side
	Prompts     int
	Confidence  float64
	Resamples   int
	ShiftedTTFT float64 // TTFT multiplier of the current run (1: unchanged)
}

// outcome counts, over simulated runs, how often the gate said what.
type outcome struct {
	Runs         int
	Regressed    int // runs whose report verdict is regressed
	Inconclusive int // runs whose report verdict is inconclusive
	// Suspect counts inconclusive runs in which some inconclusive check's
	// point estimate is beyond its threshold: what a rule that called only
	// those inconclusive (and the rest ok) would report.
	Suspect   int
	ByCheck   map[string]int // regressed checks by "prompt|aggregate metric stat"
	OKByCheck map[string]int // ok (or improved) checks by the same key
	Checks    map[string]int // checks evaluated by the same key
	// Naive counts prompt-level ttft p95 checks that the naive rule
	// "current p95 > 1.1 × baseline p95" would flag, for comparison.
	Naive, NaiveOf int
}

func (o outcome) pct(n int) float64 { return 100 * float64(n) / float64(o.Runs) }

// rate returns the share of checks of key whose verdict was regressed, in %.
func (o outcome) rate(key string) float64 {
	return 100 * float64(o.ByCheck[key]) / float64(max(1, o.Checks[key]))
}

func (o outcome) okRate(key string) float64 {
	return 100 * float64(o.OKByCheck[key]) / float64(max(1, o.Checks[key]))
}

// simulate runs the gate on runs independent baseline/current pairs drawn
// from sc, with fixed seeds, and counts the verdicts.
func simulate(sc scenario, runs int) outcome {
	itlReq := sc.ITLSigma / 2
	itlGap := sc.ITLSigma * 0.8660254037844386 // √3/2: req² + gap² = sigma²
	p := profile{TTFTMedian: 400, TTFTSigma: sc.TTFTSigma, ITLMedian: 20, ITLReqSigma: itlReq, ITLGapSigma: itlGap, Gaps: 32}
	shifted := p
	shifted.TTFTScale = sc.ShiftedTTFT
	gate := config.Gate{Confidence: sc.Confidence, Resamples: sc.Resamples, Checks: defaultChecks(), Aggregate: true}
	o := outcome{Runs: runs, ByCheck: map[string]int{}, OKByCheck: map[string]int{}, Checks: map[string]int{}}
	for run := range runs {
		rng := rand.New(rand.NewPCG(uint64(run), uint64(sc.Requests)<<8|uint64(sc.Prompts)))
		var bp, cp []results.Prompt
		for i := range sc.Prompts {
			id := fmt.Sprintf("p%d", i)
			bp = append(bp, prompt(id, simSamples(rng, p, sc.Requests)))
			cp = append(cp, prompt(id, simSamples(rng, shifted, sc.Requests)))
		}
		gate.Seed = int64(run)
		r := Compare(side(bp...), side(cp...), gate)
		switch r.Verdict {
		case Regressed:
			o.Regressed++
		case Inconclusive:
			o.Inconclusive++
			if slices.ContainsFunc(slices.Concat(r.Checks, r.Aggregates), func(c Check) bool {
				return c.Verdict == Inconclusive && c.Ratio > c.Threshold
			}) {
				o.Suspect++
			}
		}
		count := func(kind string, cs []Check) {
			for _, c := range cs {
				k := kind + " " + c.Metric + " " + c.Stat
				o.Checks[k]++
				if kind == "prompt" && c.Metric == results.TTFT && c.Stat == "p95" {
					o.NaiveOf++
					if c.Current > 1.1*c.Baseline {
						o.Naive++
					}
				}
				switch c.Verdict {
				case Regressed:
					o.ByCheck[k]++
				case OK, Improved:
					o.OKByCheck[k]++
				}
			}
		}
		count("prompt", r.Checks)
		count("aggregate", r.Aggregates)
	}
	return o
}

// describe formats an outcome for the log.
func describe(sc scenario, o outcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "ttft σ=%.1f itl σ=%.1f, %d prompts × %d requests, %.0f%% CI, %d resamples, TTFT ×%.2f: %d runs\n",
		sc.TTFTSigma, sc.ITLSigma, sc.Prompts, sc.Requests, 100*sc.Confidence, sc.Resamples, sc.ShiftedTTFT, o.Runs)
	fmt.Fprintf(&b, "  run verdict regressed %.1f%%, inconclusive %.1f%% (estimate beyond tolerance in %.1f%%); naive rule (ttft p95 > 1.1× baseline) flags %.1f%% of prompt checks\n",
		o.pct(o.Regressed), o.pct(o.Inconclusive), o.pct(o.Suspect), 100*float64(o.Naive)/float64(max(1, o.NaiveOf)))
	keys := make([]string, 0, len(o.Checks))
	for k := range o.Checks {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "  %-22s regressed %5.1f%%  ok %5.1f%%  (%d checks)\n", k, o.rate(k), o.okRate(k), o.Checks[k])
	}
	return b.String()
}

// TestFalseAlarmAndPower runs the default gate on simulated runs: unchanged
// (baseline and current from the same lognormal TTFT, median 400 ms, and ITL,
// median 20 ms with stream-correlated gaps), and with TTFT ×1.5 and ×1.3. Its
// bounds are loose, to catch a broken gate, not to pin figures; the seeds are
// fixed, so it does not flake. It runs at the defaults (60 requests per
// prompt, 95% confidence, 2000 resamples); -calibrate runs the full sweep.
func TestFalseAlarmAndPower(t *testing.T) {
	if testing.Short() {
		t.Skip("calibration is slow; skipped with -short")
	}
	if raceEnabled {
		t.Skip("calibration is slow under the race detector; the unit tests cover the same code")
	}
	const runs = 200
	for _, sigma := range []float64{0.3, 0.6} {
		t.Run(fmt.Sprintf("sigma=%.1f", sigma), func(t *testing.T) {
			// The defaults a user gets: run.requests, gate confidence and
			// resamples as config.Parse fills them in.
			def := defaultRun()
			sc := scenario{TTFTSigma: sigma, ITLSigma: 0.4, Requests: def.Requests, Prompts: 2, Confidence: DefaultConfidence, Resamples: DefaultResamples, ShiftedTTFT: 1}
			if sigma > 0.3 {
				sc.ITLSigma = sigma
			}
			same := simulate(sc, runs)
			t.Log(describe(sc, same))
			sc.ShiftedTTFT = 1.5
			up50 := simulate(sc, runs)
			t.Log(describe(sc, up50))
			sc.ShiftedTTFT = 1.3
			up30 := simulate(sc, runs)
			t.Log(describe(sc, up30))
			t.Logf("false_alarm=%.1f%% detect50=%.1f%% detect30=%.1f%%", same.pct(same.Regressed), up50.pct(up50.Regressed), up30.pct(up30.Regressed))

			// A gate that cries wolf fails the first; a gate that never fails the
			// second. 3% of 200 runs is 6 false alarms, where the rule's design
			// rate is far under 1%.
			if fa := same.pct(same.Regressed); fa >= 3 {
				t.Errorf("false alarms on unchanged runs = %.1f%%, want < 3%%", fa)
			}
			// ITL is unchanged in every scenario: an ITL regression is a false alarm.
			for _, o := range []outcome{up50, up30} {
				for k, n := range o.ByCheck {
					if strings.Contains(k, results.ITL) && o.pct(n) >= 3 {
						t.Errorf("unchanged ITL flagged regressed in %.1f%% of runs (%s)", o.pct(n), k)
					}
				}
			}
			if sigma == 0.3 {
				if d := up50.pct(up50.Regressed); d <= 80 {
					t.Errorf("+50%% TTFT caught in %.1f%% of runs, want > 80%%", d)
				}
				if up30.Regressed > up50.Regressed {
					t.Errorf("+30%% caught more often (%d) than +50%% (%d)", up30.Regressed, up50.Regressed)
				}
			}
		})
	}
}

// TestCalibrationSweep logs false alarms and power over sample sizes, noise
// levels and confidence levels, for choosing the defaults. Run with
//
//	go test ./pkg/compare/ -run CalibrationSweep -v -args -calibrate
func TestCalibrationSweep(t *testing.T) {
	if !*calibrate {
		t.Skip("run with -calibrate")
	}
	for _, sigma := range []float64{0.3, 0.6} {
		for _, n := range []int{30, 60, 100} {
			for _, conf := range []float64{0.95, 0.90} {
				var line []string
				for _, shift := range []float64{1, 1.3, 1.5} {
					runs := 300 // power
					if shift == 1 {
						runs = 1000 // false alarms: 1000 runs resolve a rate of 0.5% to ±0.2%
					}
					sc := scenario{TTFTSigma: sigma, ITLSigma: max(0.4, sigma), Requests: n, Prompts: 2, Confidence: conf, Resamples: 2000, ShiftedTTFT: shift}
					o := simulate(sc, runs)
					t.Log(describe(sc, o))
					line = append(line, fmt.Sprintf("×%.1f regressed %5.1f%% inconclusive %5.1f%%", shift, o.pct(o.Regressed), o.pct(o.Inconclusive)))
				}
				t.Logf("SUMMARY σ=%.1f n=%3d conf=%.2f | %s", sigma, n, conf, strings.Join(line, " | "))
			}
		}
	}
}

// defaultRun is the run section a config without one gets.
func defaultRun() config.Run {
	c, err := config.Parse([]byte("targets: [{name: t, base_url: sim, model: m}]\nprompts: [{id: p, messages: [{role: user, content: hi}]}]\n"), "defaults.yaml", config.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		panic(err)
	}
	return c.Run
}
