package stats

import (
	"math"
	"slices"
)

// Quantile returns the p-quantile (0 ≤ p ≤ 1) of sorted, ascending data with
// the Hyndman–Fan type 7 estimator: h = (n−1)·p, linear interpolation between
// the order statistics around h. It returns NaN for empty data.
func Quantile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 || math.IsNaN(p) {
		return math.NaN()
	}
	if p <= 0 {
		return sorted[0]
	}
	if p >= 1 {
		return sorted[n-1]
	}
	h := float64(n-1) * p
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= n {
		return sorted[n-1]
	}
	return sorted[i] + (h-lo)*(sorted[i+1]-sorted[i])
}

// Summary holds the descriptive statistics latgate reports for one metric.
type Summary struct {
	N              int
	P50, P95, P99  float64
	Mean, Min, Max float64
}

// Summarize sorts xs in place and returns its summary. N is zero for empty xs.
func Summarize(xs []float64) Summary {
	if len(xs) == 0 {
		return Summary{}
	}
	slices.Sort(xs)
	return Summary{
		N:    len(xs),
		P50:  Quantile(xs, 0.50),
		P95:  Quantile(xs, 0.95),
		P99:  Quantile(xs, 0.99),
		Mean: Mean(xs),
		Min:  xs[0],
		Max:  xs[len(xs)-1],
	}
}

// Mean returns the arithmetic mean, NaN for empty xs.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// MinSamples returns the smallest sample count for which the p-quantile can be
// told apart from the sample maximum (or minimum) with confidence conf: the
// distribution-free rule n ≥ log(1−conf)/log(max(p, 1−p)). P95 at 95% needs 59,
// P99 needs 299, P50 needs 5.
func MinSamples(p, conf float64) int {
	q := math.Max(p, 1-p)
	if q >= 1 || conf <= 0 || conf >= 1 {
		return math.MaxInt32
	}
	return int(math.Ceil(math.Log(1-conf) / math.Log(q)))
}
