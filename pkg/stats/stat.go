package stats

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Stat is a statistic latgate gates on: a quantile P (0 < P < 1) or the mean.
// It is the one vocabulary of statistic names: config validates them, compare
// decides with them, bless and selftest size runs with them.
//
// It lives here rather than in compare because config (which compare
// imports) must validate the names too.
type Stat struct {
	Mean bool
	P    float64
}

// Named lists the statistics a latgate.yaml may gate on, in the order the
// documentation gives them. ParseStat accepts any pNN; the config keeps to
// these.
func Named() []string { return []string{"p50", "p90", "p95", "p99", "mean"} }

// ParseStat parses "mean" or "pNN" (p50, p95, p99, p99.9).
func ParseStat(name string) (Stat, error) {
	if name == "mean" {
		return Stat{Mean: true}, nil
	}
	num, ok := strings.CutPrefix(name, "p")
	if !ok {
		return Stat{}, fmt.Errorf("statistic %q is not mean or pNN", name)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v <= 0 || v >= 100 || math.IsNaN(v) {
		return Stat{}, fmt.Errorf("statistic %q is not mean or pNN with 0 < NN < 100", name)
	}
	return Stat{P: v / 100}, nil
}

// String returns the statistic's name: "mean", "p95", "p99.9".
func (s Stat) String() string {
	if s.Mean {
		return "mean"
	}
	return "p" + strconv.FormatFloat(100*s.P, 'g', -1, 64)
}

// Of returns the statistic of sorted, ascending data (the type-7 quantile of
// Quantile, or the mean); NaN for empty data.
func (s Stat) Of(sorted []float64) float64 {
	if s.Mean {
		return Mean(sorted)
	}
	return Quantile(sorted, s.P)
}

// Need returns the fewest values a side needs for s to be resolved by a
// two-sided interval at level conf: the distribution-free rule that the
// sample's extreme bounds the quantile on its far side with probability
// (1−conf)/2, MinSamples(P, 1 − (1−conf)/2); the mean is held to the
// median's rule. At 95%: 6 for p50 and the mean, 36 for p90, 72 for p95,
// 368 for p99; a sequential look at a higher level needs more (p95 at
// 98.4%: 94).
func (s Stat) Need(conf float64) int {
	tail := 1 - (1-conf)/2
	if s.Mean {
		return MinSamples(0.5, tail)
	}
	return MinSamples(s.P, tail)
}
