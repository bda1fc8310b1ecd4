package compare

import (
	"flag"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

var abCoverageRuns = flag.Int("ab-coverage-runs", 0, "run TestABIntervalCoverage with N seeded A/B runs per statistic (0: skipped unless -ab-calibrate)")

// abCoverageRun is one identical-config A/B run of n blocks: a block's two
// requests share the endpoint's level at that moment (×1 or ×1.3, jumping
// every 10 blocks on average), on the reference noise (TTFT σ 0.3, ITL
// σ 0.26 a gap and 0.15 a request, 2% spikes ×4 on both).
func abCoverageRun(seed uint64, n int) *[2][]results.Sample {
	rng := rand.New(rand.NewPCG(seed, 77))
	p := profile{TTFTMedian: 200, TTFTSigma: 0.3, ITLMedian: 8, ITLReqSigma: 0.15, ITLGapSigma: 0.26, Gaps: 32}
	var out [2][]results.Sample
	level := 1.0
	for i := range n {
		if rng.Float64() < 0.1 {
			level = 2.3 - level // ×1 ↔ ×1.3
		}
		for k := range out {
			s := simSamples(rng, p, 1)[0]
			s.Seq = i
			s.TTFT *= level
			if rng.Float64() < 0.02 {
				s.TTFT *= 4
			}
			for g := range s.ITL {
				s.ITL[g] *= level
				if rng.Float64() < 0.02 {
					s.ITL[g] *= 4
				}
			}
			out[k] = append(out[k], s)
		}
	}
	return &out
}

// TestABIntervalCoverage: ab's intervals of the tail statistics and itl
// hold their level on each side (#29: the percentile bootstrap ab used
// missed in 5–6% where 2.5% was stated at 60 requests). Over seeded
// identical-config runs of 60 blocks with a level jumping ×1/×1.3, the
// interval's low end above 1 (a false "slower") and its high end below 1
// (a false "faster") are each counted for the paired interval ab decides
// with; each end is at 97.5% (ab's both ends at 95% confidence). Printed
// with run counts; the misses of the quantiles are held to 2.5% plus two
// standard errors, the mean's printed (a skewed mean on the log scale:
// about 3.2% each side at 60 blocks, as the block bootstrap's 3.7–3.9%).
func TestABIntervalCoverage(t *testing.T) {
	runs := *abCoverageRuns
	if runs == 0 && *abCalibrate {
		runs = 2000
	}
	if runs == 0 {
		t.Skip("a seeded calibration: -args -ab-coverage-runs N (CI runs it in its ab calibration step)")
	}
	z := critical(0.95)
	limit := 100 * (0.025 + 2*math.Sqrt(0.025*0.975/float64(runs)))
	t.Logf("identical configs, 60 blocks a run (90 for ttft p95, which needs 72), level ×1/×1.3 shared within a block, %d seeded runs per statistic; one-sided misses at 97.5%% each (want ≤ 2.5%%, held to %.2f%%; the mean printed)", runs, limit)
	for _, c := range []struct {
		metric, stat string
		n            int
	}{
		{results.TTFT, "p90", 60}, {results.TTFT, "p95", 90}, {results.TTFT, "mean", 60}, {results.ITL, "p50", 60}, {results.ITL, "p95", 60},
	} {
		n := c.n
		s, err := stats.ParseStat(c.stat)
		if err != nil {
			t.Fatal(err)
		}
		var miss [2]int // low end above 1, high end below 1
		var unbounded int
		for r := range runs {
			sides := abCoverageRun(uint64(r), n)
			bd := newBlockData(sides[0], sides[1], c.metric)
			lo, hi, ok := pairedInterval(bd, s, z, z)
			switch {
			case !ok:
				unbounded++
			case lo > 1:
				miss[0]++
			case hi < 1:
				miss[1]++
			}
		}
		pct := func(k int) float64 { return 100 * float64(k) / float64(runs) }
		t.Logf("  %s %-4s (%d blocks): slower %.2f%%, faster %.2f%%, unbounded %.1f%%", c.metric, c.stat, n, pct(miss[0]), pct(miss[1]), pct(unbounded))
		if unbounded > runs/100 {
			t.Errorf("%s %s: the paired interval unbounded in %.1f%% of runs of %d blocks", c.metric, c.stat, pct(unbounded), n)
		}
		for end, what := range []string{"a false slower", "a false faster"} {
			if got := pct(miss[end]); got > limit && c.stat != "mean" {
				t.Errorf("%s %s: the paired interval gave %s in %.2f%% of %d runs, want ≤ %.2f%%", c.metric, c.stat, what, got, runs, limit)
			}
		}
	}
}
