package diagnose

import (
	"fmt"

	"github.com/latgate/latgate/internal/numfmt"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

// stepCause names the step of a chain whose own total moved most with a
// chain metric, when that step moved beyond noise and by at least half of
// the metric's own shift (QueueShare, as the wait before the first byte):
// "step 2 of 3 got slower: 151 ms → 452 ms (its first token 124 ms →
// 426 ms)". Baseline and Current are that step's median totals.
func stepCause(base, cur []results.Sample, own float64) (results.Cause, bool) {
	n := min(results.ChainSteps(base), results.ChainSteps(cur))
	var best shift
	bestK := -1
	for k := range n {
		s := shiftOf(results.StepValues(base, k, results.Total), results.StepValues(cur, k, results.Total))
		if s.moved() && (bestK < 0 || abs(s.est) > abs(best.est)) {
			best, bestK = s, k
		}
	}
	if bestK < 0 || own == 0 || abs(best.est) < QueueShare*abs(own) || abs(best.est) < MinPhaseMS || (best.est > 0) != (own > 0) {
		return results.Cause{}, false
	}
	tb, tc := stats.Median(results.StepValues(base, bestK, results.Total)), stats.Median(results.StepValues(cur, bestK, results.Total))
	fb, fc := stats.Median(results.StepValues(base, bestK, results.TTFT)), stats.Median(results.StepValues(cur, bestK, results.TTFT))
	word := "slower"
	if best.est < 0 {
		word = "faster"
	}
	return results.Cause{Kind: results.KindStep, Baseline: tb, Current: tc,
		Text: fmt.Sprintf("step %d of %d got %s: %s → %s (its first token %s → %s)",
			bestK+1, n, word, numfmt.Millis(tb), numfmt.Millis(tc), numfmt.Millis(fb), numfmt.Millis(fc))}, true
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
