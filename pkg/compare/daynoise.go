package compare

import (
	"math"
	"slices"

	"github.com/latgate/latgate/pkg/config"
)

// # Day-to-day noise
//
// An endpoint's level moves from day to day (load, deploys, the runner's
// neighbours), and a baseline was measured on another day than the run it
// gates: beside the requests' own noise, the change carries the difference
// of two days' levels, σ·√2 in log units for a day-to-day noise of σ. The
// gate adds it to every interval. It is learned from the history when that
// has at least MinDayRuns runs (LearnDayNoise), else the gate's day_to_day
// is assumed (by the endpoint unless set: Gate.DayToDayFor) and the report
// says so.

// DayNoise is the day-to-day noise of one target's metric: σ of ln(a run's
// level) from one run to the next, and the history runs it was learned from
// (0: assumed).
type DayNoise struct {
	Sigma float64 `json:"sigma"`
	Runs  int     `json:"runs,omitempty"`
}

// NoiseKey names a target's metric.
type NoiseKey struct{ Target, Region, Metric string }

// Noise is the day-to-day noise learned per target × metric.
type Noise map[NoiseKey]DayNoise

// For returns the noise learned for a target's metric, else the assumed
// default (Runs 0).
func (n Noise) For(target, region, metric string, assumed float64) DayNoise {
	if v, ok := n[NoiseKey{target, region, metric}]; ok {
		return v
	}
	return DayNoise{Sigma: assumed}
}

// MinDayRuns is the fewest history runs LearnDayNoise learns from: with
// fewer, the σ it would estimate is too often far below the truth (about
// ±16% at 20 runs, one standard error).
const MinDayRuns = 20

// DayLevels is one target's metric over the runs of a history, oldest
// first: Runs[r][prompt] is the run's p50 of the metric for that prompt (a
// missing prompt is absent from the map). The application reads them from
// the history file (history.Series, for the metrics GatedMetrics names).
type DayLevels struct {
	Key  NoiseKey
	Runs []map[string]float64
}

// GatedMetrics are the metrics gate checks whose day-to-day noise the gate
// uses: the gated ones it names, each once, in order.
func GatedMetrics(gate config.Gate) []string { return metricsOf(gate) }

// LearnDayNoise estimates the day-to-day noise of each series: a run's
// level is the mean over its prompts of ln p50 less that prompt's mean over
// the runs (so prompts of different lengths share one level), and σ is the
// root mean square of consecutive runs' level differences over √2, after
// dropping differences beyond 4 robust standard deviations (a step change in
// the history is not noise). Series with fewer than MinDayRuns runs are
// left out. Each run's level includes its own sampling noise, so σ errs on
// the wide side.
func LearnDayNoise(series []DayLevels) Noise {
	out := Noise{}
	for _, s := range series {
		if sigma, runs, ok := dayNoise(s.Runs); ok {
			out[s.Key] = DayNoise{Sigma: sigma, Runs: runs}
		}
	}
	return out
}

func dayNoise(runs []map[string]float64) (sigma float64, n int, ok bool) {
	sums, counts := map[string]float64{}, map[string]int{}
	for _, r := range runs {
		for p, v := range r {
			if v > 0 && !math.IsInf(v, 0) {
				sums[p] += math.Log(v)
				counts[p]++
			}
		}
	}
	var levels []float64
	for _, r := range runs {
		var s float64
		var k int
		for p, v := range r {
			if v > 0 && !math.IsInf(v, 0) {
				s += math.Log(v) - sums[p]/float64(counts[p])
				k++
			}
		}
		if k > 0 {
			levels = append(levels, s/float64(k))
		}
	}
	if len(levels) < MinDayRuns {
		return 0, len(levels), false
	}
	diffs := make([]float64, len(levels)-1)
	abs := make([]float64, len(diffs))
	for i := range diffs {
		diffs[i] = levels[i+1] - levels[i]
		abs[i] = math.Abs(diffs[i])
	}
	slices.Sort(abs)
	robust := abs[len(abs)/2] / 0.6745 // median |Δ| of a normal Δ
	var ss float64
	var kept int
	for _, x := range diffs {
		if robust == 0 || math.Abs(x) <= 4*robust {
			ss += x * x
			kept++
		}
	}
	return math.Sqrt(ss/float64(max(kept, 1))) / math.Sqrt2, len(levels), true
}
