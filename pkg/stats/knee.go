package stats

import "math"

// Wilson is the Wilson score interval of a proportion p of n at the normal
// quantile z (1.96 for 95% two-sided); [0, 1] for n ≤ 0.
func Wilson(p float64, n int, z float64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	nf := float64(n)
	den := 1 + z*z/nf
	center := (p + z*z/(2*nf)) / den
	half := z / den * math.Sqrt(max(p*(1-p), 0)/nf+z*z/(4*nf*nf))
	return max(0, center-half), min(1, center+half)
}

// Step is one load of a sweep: at Rate (requests per second, ascending
// from step to step) Met of N requests met the objective.
type Step struct {
	Rate   float64
	Met, N int
}

// Knee is the capacity a sweep found: the highest rate at which the share
// of requests meeting the objective is still at least the goal.
type Knee struct {
	// Rate is where the share, interpolated linearly between the steps,
	// first falls below the goal. Lo is the highest rate swept before it
	// whose interval (Wilson, at the level asked) is all above the goal,
	// Hi the lowest whose interval is all below it: the knee's interval,
	// as sure as the steps are and no narrower than the rates swept (the
	// interpolation is only a line between two of them). Below: even the
	// first step is below the goal (Rate and Lo 0). Above: no step is
	// (Rate +Inf). Hi is +Inf when no step is surely below the goal.
	Rate, Lo, Hi float64
	Below, Above bool
}

// KneeOf returns the knee of steps (ascending rates, at least one with
// requests) for goal (a share in (0, 1]) at interval level (0.95). The
// share is read up to its first crossing of the goal: a later step back
// above it (noise past the knee) does not move the knee out.
func KneeOf(steps []Step, goal, level float64) Knee {
	z := NormalQuantile(1 - (1-level)/2)
	share := func(s Step) float64 { return float64(s.Met) / float64(max(s.N, 1)) }
	k := Knee{Rate: math.Inf(1), Hi: math.Inf(1)}
	prev, surely := -1, true // surely: every step so far is surely above the goal
	for i, s := range steps {
		if s.N <= 0 {
			continue
		}
		v := share(s)
		lo, hi := Wilson(v, s.N, z)
		if surely && lo >= goal {
			k.Lo = s.Rate
		} else {
			surely = false
		}
		if hi < goal && math.IsInf(k.Hi, 1) {
			k.Hi = s.Rate
		}
		if v < goal && math.IsInf(k.Rate, 1) {
			if prev < 0 {
				k.Rate = 0
			} else {
				p := steps[prev]
				pv := share(p)
				k.Rate = p.Rate + (pv-goal)/(pv-v)*(s.Rate-p.Rate)
			}
		}
		if math.IsInf(k.Rate, 1) {
			prev = i
		}
	}
	k.Below, k.Above = k.Rate == 0, math.IsInf(k.Rate, 1)
	k.Lo = min(k.Lo, k.Rate)
	if !k.Above {
		k.Hi = max(k.Hi, k.Rate)
	}
	return k
}
