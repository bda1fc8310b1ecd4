package compare

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latgate/latgate/pkg/results"
)

// wanderRun is one run of the reference endpoint (prompts × n requests,
// interleaved, Seq in arrival order), its level AR(1) from request to
// request with correlation rho and stationary σ sigma (0: independent).
func wanderRun(seed uint64, prompts, n int, rho, sigma float64) results.Target {
	r := matrixRow{Noise: base("wander test"), Change: change{Name: "none", TTFT: 1, All: 1}, Prompts: prompts}
	r.Noise.AR.Rho, r.Noise.AR.Sigma = rho, sigma
	ps := newPrompts(prompts)
	newSimTarget(r, seed, 1, false).measure(ps, fill(prompts, n))
	return results.Target{Name: "t", Prompts: ps}
}

// TestWanderFound (#29, correlated requests): a level wandering within the
// run is found on TTFT and on ITL, and its excess is a fraction of the
// truth (batch means underestimate a long-lived level); independent requests get none in at most a few percent of runs
// (the test's level is 1%; seeded, the rates printed).
func TestWanderFound(t *testing.T) {
	const runs = 300
	both := []string{results.TTFT, results.ITL}
	found, foundITL, falseTTFT := 0, 0, 0
	var ratio float64
	for seed := range uint64(runs) {
		ws := wandersOf(wanderRun(seed, 2, 60, 0.95, 0.15), both)
		if w := ws[results.TTFT]; w.Excess > 0 {
			found++
			// The truth: the variance of the mean of 120 AR(1) values.
			n, rho := 120.0, 0.95
			truth := 0.15 * 0.15 / n * ((1+rho)/(1-rho) - 2*rho*(1-math.Pow(rho, n))/(n*(1-rho)*(1-rho)))
			ratio += w.Excess / truth
		}
		if ws[results.ITL].Excess > 0 {
			foundITL++
		}
		ws = wandersOf(wanderRun(1000+seed, 2, 60, 0, 0), both)
		if ws[results.TTFT].Excess > 0 || ws[results.ITL].Excess > 0 {
			falseTTFT++
		}
	}
	t.Logf("AR(1) ρ 0.95 σ 0.15, 2 prompts × 60: found on TTFT in %d of %d runs (excess %.2f× the truth on average where found), on ITL in %d of %d; independent requests: found in %d of %d",
		found, runs, ratio/float64(max(found, 1)), foundITL, runs, falseTTFT, runs)
	if found < runs*2/3 || foundITL < runs*2/3 {
		t.Errorf("a wandering level found in %d (TTFT) and %d (ITL) of %d runs, want at least two thirds", found, foundITL, runs)
	}
	// Batches of 15 requests against a level that persists for ~20: the
	// batch means underestimate the excess (about 0.3× here; the history's
	// day-to-day noise sees the rest), never overstate it.
	if r := ratio / float64(max(found, 1)); r < 0.15 || r > 1.5 {
		t.Errorf("the excess found is %.2f× the true variance of the run's mean on average, want 0.15–1.5×", r)
	}
	if falseTTFT > runs*4/100 {
		t.Errorf("independent requests read as wandering in %d of %d runs, want at most 4%% (the test is at 1%%)", falseTTFT, runs)
	}
}

// TestBatchExcess: the pure rule on its own — constant batches have no
// excess, batches apart have the excess of their means, too few values
// give none.
func TestBatchExcess(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, 80)
	for i := range xs {
		xs[i] = 0.1 * rng.NormFloat64()
		if i >= 40 {
			xs[i] += 1 // a step halfway: the batches differ far beyond their noise
		}
	}
	w := batchExcess(xs, 8)
	if w.Excess <= 0 || w.Inflation < 10 || w.Inflation < batchCritical(8, 0.01) {
		t.Errorf("a step of 10 σ halfway: %+v, want a large excess", w)
	}
	if w := batchExcess(xs[:15], 8); w.Excess != 0 {
		t.Errorf("15 values in 8 batches: %+v, want none (a batch needs 2)", w)
	}
	flat := make([]float64, 80)
	if w := batchExcess(flat, 8); w.Excess != 0 {
		t.Errorf("constant values: %+v, want none", w)
	}
}

// TestWanderWidens: through Compare, a run whose level wanders gets wider
// intervals than the same data read as independent requests, carries the
// run-level noise on its checks and says so, and no longer fails the
// unchanged endpoint where independent intervals did (the seed is one the
// independent reading calls regressed).
func TestWanderWidens(t *testing.T) {
	gate := defaultGate()
	gate.DayToDay = 0.01
	var wide, narrow Report
	seed := uint64(0)
	for ; seed < 400; seed++ {
		base := Side{Targets: []results.Target{wanderRun(2*seed, 2, 240, 0.95, 0.15)}}
		cur := Side{Targets: []results.Target{wanderRun(2*seed+1, 2, 60, 0.95, 0.15)}}
		narrow = CompareWith(base, cur, gate, Setup{est: estimators{independent: true}})
		if narrow.Verdict == Regressed {
			wide = CompareWith(base, cur, gate, Setup{})
			break
		}
	}
	if narrow.Verdict != Regressed {
		t.Fatal("no seed of 400 where independent intervals call the unchanged wandering endpoint regressed: the test's premise")
	}
	t.Logf("seed %d: independent intervals %s, with the run-level noise %s", seed, narrow.Verdict, wide.Verdict)
	if wide.Verdict == Regressed {
		t.Errorf("with the run-level noise the unchanged endpoint is still regressed")
	}
	warned := false
	for _, w := range wide.Found {
		warned = warned || w.Kind == WarnCorrelated && w.Ratio > 1
	}
	if !warned {
		t.Errorf("no correlated-requests warning in %+v", wide.Found)
	}
	for i, a := range wide.Aggregates {
		n := narrow.Aggregates[i]
		if a.RunNoise > 0 && !(a.Hi/a.Lo > n.Hi/n.Lo) {
			t.Errorf("%s %s: run noise %.3f but the interval [%.3f, %.3f] is not wider than [%.3f, %.3f]", a.Metric, a.Stat, a.RunNoise, a.Lo, a.Hi, n.Lo, n.Hi)
		}
	}
}
