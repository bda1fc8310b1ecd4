package compare

import (
	"math"
	"slices"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
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
	// Lag is, when the history's levels are autocorrelated (a level that
	// wanders over days), the baseline's age in runs Sigma was read at
	// (the variogram's lag, at most half the history); 0 when the levels
	// are independent from run to run and one lag is every lag.
	Lag int `json:"lag,omitempty"`
	// DF is the degrees of freedom of Sigma as an estimate: the interval's
	// day-to-day part then takes Student's t at DF, not the normal, so that
	// σ learned from 20 runs is not used as if it were known (#29). 0 when
	// Sigma is assumed, or read at the baseline's age (the largest of the
	// variogram's values, which errs wide already).
	DF int `json:"df,omitempty"`
	// From is the statistic Sigma was learned from when it is not the
	// check's own (Noise.For's fallback to the metric's p50); empty when
	// it is, or when Sigma is assumed.
	From string `json:"from,omitempty"`
}

// dayCrit is the critical value of the day-to-day part of an interval
// whose sampling part has critical value z: z when σ is taken as known (df
// 0), else Student's t with df degrees of freedom at the same one-sided
// tail.
func dayCrit(z float64, df int) float64 {
	if df <= 0 || !(z > 0) {
		return z
	}
	return stats.TQuantile(1-stats.NormalCDF(z), df)
}

// mssdDF is the degrees of freedom a variance estimated from k successive
// differences of independent normal values is worth: the mean square
// successive difference has about 2/3 the efficiency of the sample
// variance (von Neumann, 1941).
func mssdDF(k int) int { return max(1, int(math.Round(2*float64(k)/3))) }

// NoiseKey names a target's statistic of a metric: Stat as
// stats.Stat.String spells it ("p50", "p90", "mean"); a key with no Stat
// is the metric's noise for every statistic that has none of its own.
type NoiseKey struct{ Target, Region, Metric, Stat string }

// Noise is the day-to-day noise learned per target × metric × statistic.
type Noise map[NoiseKey]DayNoise

// For returns the noise learned for a target's statistic of a metric,
// else its metric's p50 noise (a history whose records predate the
// statistic; From says "p50"), else the metric's noise for every statistic
// (a key with no Stat), else the assumed default (Runs 0). A tail moves
// from day to day by more than the median when load shapes it (queueing,
// batching): its own history says so, the median's would not (#29).
func (n Noise) For(target, region, metric, stat string, assumed float64) DayNoise {
	stat = canonStat(stat)
	if v, ok := n[NoiseKey{target, region, metric, stat}]; ok {
		return v
	}
	if v, ok := n[NoiseKey{target, region, metric, "p50"}]; ok {
		v.From = "p50"
		return v
	}
	if v, ok := n[NoiseKey{target, region, metric, ""}]; ok {
		return v
	}
	return DayNoise{Sigma: assumed}
}

// canonStat is stat as stats.Stat.String spells it ("p95.0" → "p95"), stat
// itself when it does not parse.
func canonStat(stat string) string {
	if s, err := stats.ParseStat(stat); err == nil {
		return s.String()
	}
	return stat
}

// MinDayRuns is the fewest history runs LearnDayNoise learns from: with
// fewer, the σ it would estimate is too often far below the truth (about
// ±16% at 20 runs, one standard error).
const MinDayRuns = 20

// DayLevels is one target's statistic of a metric (Key) over the runs of a
// history, oldest first: Runs[r][prompt] is the run's statistic for that
// prompt (a missing prompt is absent from the map). The application reads
// them from the history file (history.Series, for the statistics
// GatedStats names).
// After is how many of the runs were measured after the baseline (the
// newest After of Runs), −1 when that is not known (the baseline is then
// taken as older than the whole history).
type DayLevels struct {
	Key   NoiseKey
	Runs  []map[string]float64
	After int
}

// Statistic is one gated statistic of a metric, Stat as stats.Stat.String
// spells it.
type Statistic struct{ Metric, Stat string }

// GatedStats are the statistics of gate's checks whose day-to-day noise the
// gate uses: each gated metric's statistics its checks name, each once, in
// order, and the metric's p50 (the fallback of Noise.For).
func GatedStats(gate config.Gate) []Statistic {
	var out []Statistic
	add := func(s Statistic) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, c := range gate.Checks {
		if sp, err := stats.ParseStat(c.Stat); err == nil && slices.Contains(results.GatedMetrics(), c.Metric) {
			add(Statistic{c.Metric, sp.String()})
			add(Statistic{c.Metric, "p50"})
		}
	}
	return out
}

// LearnDayNoise estimates the day-to-day noise of each series: a run's
// level is the mean over its prompts of ln(the statistic) less that
// prompt's mean over the runs (so prompts of different lengths share one
// level). A tail statistic's levels carry more of each run's own sampling
// noise than the median's, so its σ errs wider still. What the gate
// needs is the variance of (the level on the baseline's day − the level
// today), 2σ²:
//
//   - levels independent from run to run (their lag-1 autocorrelation not
//     above what independent levels give, one-sided at dayAlpha): σ is the
//     root mean square of consecutive runs' level differences over √2,
//     after dropping differences beyond 4 robust standard deviations (a
//     step change in the history is not noise);
//   - levels that wander (autocorrelated: a level that drifts over days and
//     comes back), for which consecutive runs are alike and a baseline
//     blessed weeks ago is not: σ² is the semivariogram at the baseline's
//     age, ½·mean (L[i+h] − L[i])², the largest of its values at lags
//     1 … min(age, n/2) (beyond half the history too few pairs remain: an
//     older baseline is read at n/2, which errs on the narrow side for a
//     level that wanders slower than that), and never below the
//     independent estimate. Lag says which.
//
// Series with fewer than MinDayRuns runs are left out. Each run's level
// includes its own sampling noise, so σ errs on the wide side.
func LearnDayNoise(series []DayLevels) Noise {
	out := Noise{}
	for _, s := range series {
		if n, ok := dayNoise(s.Runs, s.After); ok {
			out[s.Key] = n
		}
	}
	return out
}

// dayAlpha is the one-sided level of the test that a history's levels are
// autocorrelated.
const dayAlpha = 0.05

func dayNoise(runs []map[string]float64, after int) (DayNoise, bool) {
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
	n := len(levels)
	if n < MinDayRuns {
		return DayNoise{Runs: n}, false
	}
	diffs := make([]float64, n-1)
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
	out := DayNoise{Sigma: math.Sqrt(ss/float64(max(kept, 1))) / math.Sqrt2, Runs: n, DF: mssdDF(kept)}
	if !autocorrelated(levels, dayAlpha) {
		return out, true
	}
	if rest := withoutStep(levels); !autocorrelated(rest, dayAlpha) {
		// One step in the history (a change, not noise: the nightly
		// trend's to find) and independent levels about it: their
		// variance about the two means, which for a level that wanders
		// and only looks like a step is more than its consecutive
		// differences say.
		var ss float64
		for _, x := range rest {
			ss += x * x
		}
		if v := ss / float64(n-2); v > out.Sigma*out.Sigma {
			out.Sigma, out.DF = math.Sqrt(v), n-2
		}
		return out, true
	}
	age := n + 1 // the baseline older than the history
	if after >= 0 && after < n {
		age = after + 1
	}
	lag := min(age, n/2)
	g := 0.0
	for h := 1; h <= lag; h++ {
		g = max(g, semivariogram(levels, h))
	}
	if g > out.Sigma*out.Sigma {
		out.Sigma, out.DF = math.Sqrt(g), 0
	}
	out.Lag = lag
	return out, true
}

// autocorrelated reports whether xs's lag-1 autocorrelation is above what
// independent values give at one-sided level alpha: r₁ against
// −1/n + z_α/√n.
func autocorrelated(xs []float64, alpha float64) bool {
	n := float64(len(xs))
	if n < 3 {
		return false
	}
	m := stats.Mean(xs)
	var num, den float64
	for i, x := range xs {
		den += (x - m) * (x - m)
		if i > 0 {
			num += (x - m) * (xs[i-1] - m)
		}
	}
	if !(den > 0) {
		return false
	}
	return num/den > -1/n+stats.NormalQuantile(1-alpha)/math.Sqrt(n)
}

// withoutStep returns xs less its best single step: each side of the split
// that leaves the least squared error (at least 3 values a side) centred on
// its own mean.
func withoutStep(xs []float64) []float64 {
	sse := func(part []float64) float64 {
		m, e := stats.Mean(part), 0.0
		for _, x := range part {
			e += (x - m) * (x - m)
		}
		return e
	}
	best, at := math.Inf(1), -1
	for k := 3; k <= len(xs)-3; k++ {
		if e := sse(xs[:k]) + sse(xs[k:]); e < best {
			best, at = e, k
		}
	}
	out := slices.Clone(xs)
	if at < 0 {
		return out
	}
	for _, part := range [][]float64{out[:at], out[at:]} {
		m := stats.Mean(part)
		for i := range part {
			part[i] -= m
		}
	}
	return out
}

// semivariogram is ½ of the mean squared difference of xs's values h
// apart.
func semivariogram(xs []float64, h int) float64 {
	var s float64
	for i := h; i < len(xs); i++ {
		d := xs[i] - xs[i-h]
		s += d * d
	}
	return s / float64(2*(len(xs)-h))
}
