package stats

import (
	"math"
	"testing"
)

// TestKneeOf: the knee is the goal's crossing, interpolated between the
// last step meeting it and the first below it; its interval runs from the
// last rate surely above the goal to the first surely below it; a sweep
// that never meets the goal, or never falls below it, says so.
func TestKneeOf(t *testing.T) {
	steps := []Step{{10, 400, 400}, {20, 398, 400}, {30, 390, 400}, {40, 300, 400}, {50, 40, 400}}
	k := KneeOf(steps, 0.95, 0.95)
	// 97.5% at 30/s, 75% at 40/s: the goal 95% a tenth of the way.
	if math.Abs(k.Rate-31.111) > 0.01 || k.Below || k.Above {
		t.Errorf("knee %+v, want 31.1 requests/s, inside the sweep", k)
	}
	// 390 of 400 is surely above 95% (Wilson lower bound 95.5%), 300 of
	// 400 surely below.
	if k.Lo != 30 || k.Hi != 40 {
		t.Errorf("interval [%v, %v], want [30, 40]", k.Lo, k.Hi)
	}
	// 380 of 400 (95%) is not surely above: the interval starts a step lower.
	if got := KneeOf([]Step{{10, 400, 400}, {20, 380, 400}, {30, 300, 400}}, 0.95, 0.95); got.Lo != 10 || got.Hi != 30 {
		t.Errorf("a step at the goal: interval [%v, %v], want [10, 30]", got.Lo, got.Hi)
	}
	// A step back above the goal past the knee does not move it.
	noisy := append(append([]Step{}, steps...), Step{60, 399, 400})
	if got := KneeOf(noisy, 0.95, 0.95); got.Rate != k.Rate {
		t.Errorf("a step above the goal after the crossing moved the knee: %v, want %v", got.Rate, k.Rate)
	}
	if got := KneeOf([]Step{{10, 50, 100}, {20, 10, 100}}, 0.95, 0.95); !got.Below || got.Rate != 0 {
		t.Errorf("no step meets the goal: %+v, want Below", got)
	}
	if got := KneeOf([]Step{{10, 100, 100}, {20, 100, 100}}, 0.95, 0.95); !got.Above || !math.IsInf(got.Rate, 1) {
		t.Errorf("every step meets the goal: %+v, want Above", got)
	}
	// Too few requests a step to be sure of either side: the interval is
	// the whole sweep, open above.
	if got := KneeOf([]Step{{30, 39, 40}, {40, 36, 40}}, 0.95, 0.95); got.Lo != 0 || !math.IsInf(got.Hi, 1) || math.Abs(got.Rate-100.0/3) > 1e-9 {
		t.Errorf("40 requests a step: %+v, want the knee 33.3 in [0, +Inf)", got)
	}
}

func TestWilson(t *testing.T) {
	if lo, hi := Wilson(0.5, 0, 1.96); lo != 0 || hi != 1 {
		t.Errorf("no requests: [%v, %v], want [0, 1]", lo, hi)
	}
	// Agresti & Coull's example: 0 of 10 at 95% gives [0, 0.278].
	if lo, hi := Wilson(0, 10, 1.959964); lo != 0 || math.Abs(hi-0.2775) > 0.0005 {
		t.Errorf("0 of 10: [%v, %v], want [0, 0.2775]", lo, hi)
	}
}
