package compare

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

// # Intervals
//
// Each side of a check is one sample of requests; a request gives one value
// of a per-request metric (ttft, total, …) or all of its token gaps (itl).
// Its statistic is the type-7 quantile (or the mean) of the pooled values,
// and its interval at a normal critical value z is distribution-free:
//
//   - a quantile p: Woodruff's interval, the sample quantiles at p ± z·se,
//     where se is the standard error of the sample distribution function at
//     the estimate with requests as clusters, se² = Σᵢ(cᵢ − p·mᵢ)²/M²
//     (cᵢ of request i's mᵢ values at or below the estimate, M values in
//     all), never below the rate of independent values p(1−p)/M. The gaps of
//     one stream are correlated, so whole requests are the unit, as the
//     bootstrap of whole requests was; the interval is asymmetric where the
//     distribution is (the long side of a tail quantile stays long, which is
//     what "ok, rules out > +X%" needs);
//   - the mean: the ratio estimator's cluster variance, on the log scale.
//
// The two sides combine into the interval of the log ratio by the MOVER
// (method of variance estimates recovery, Zou & Donner 2008): the estimate
// ln(cur/base), its lower half-width √(a_cur² + b_base²) and upper
// √(b_cur² + a_base²), a and b being each side's lower and upper half-widths
// in log units. A side whose interval reaches 0 or runs past its data has
// no log interval: the check is then decided on the difference (when the
// lower end reaches 0) or is unresolved.

// Metrics compare knows how to gate: durations in milliseconds, for which
// larger is worse, and tokens_per_s, for which larger is better.
var gatedMetrics = results.GatedMetrics()

// minITLRequests is the fewest requests a side needs for a pooled itl
// statistic: gaps within one stream are correlated, so many gaps from a few
// requests are not many independent observations.
const minITLRequests = 10

// dataset is one side's values of one metric for one prompt, pooled and
// sorted once, with the request each value came from.
type dataset struct {
	vals  []float64 // every value, ascending
	owner []int32   // request index of vals[k]
	per   []int32   // number of values per request
	sums  []float64 // sum of values per request
}

func (d *dataset) requests() int { return len(d.per) }

// newDataset extracts one metric from successful samples. Per-request metrics
// give one value per request that has it (results.Has: ttfct only with a
// content token, tpot only with two tokens and a decode time); itl gives
// every gap of every request that has one.
func newDataset(samples []results.Sample, metric string) *dataset {
	var ps []owned
	d := &dataset{}
	add := func(vs ...float64) {
		o := int32(len(d.per))
		var sum float64
		for _, v := range vs {
			ps = append(ps, owned{v, o})
			sum += v
		}
		d.per = append(d.per, int32(len(vs)))
		d.sums = append(d.sums, sum)
	}
	for i := range samples {
		s := &samples[i]
		switch {
		case metric == results.ITL:
			if len(s.ITL) > 0 {
				add(s.ITL...)
			}
		case results.Has(s, metric): // the same rule as the reported summaries
			add(results.Value(s, metric))
		}
	}
	d.vals, d.owner = sortOwned(ps)
	return d
}

// stat returns the statistic over all values: type-7 quantile or mean.
func (d *dataset) stat(s stats.Stat) float64 { return statOf(d.vals, d.sums, s) }

// statOf is statistic s of sorted values vals, whose sums per request (or
// block) are sums: a type-7 quantile, or the mean; NaN without values.
func statOf(vals, sums []float64, s stats.Stat) float64 {
	if len(vals) == 0 {
		return math.NaN()
	}
	if s.Mean {
		var sum float64
		for _, x := range sums {
			sum += x
		}
		return sum / float64(len(vals))
	}
	return stats.Quantile(vals, s.P)
}

// owned is a value and the request (or block) it came from.
type owned struct {
	v float64
	o int32
}

// sortOwned sorts ps by value (then owner, so ties are deterministic) and
// returns the values and their owners in that order.
func sortOwned(ps []owned) (vals []float64, owner []int32) {
	slices.SortFunc(ps, func(a, b owned) int { return cmp.Or(cmp.Compare(a.v, b.v), cmp.Compare(a.o, b.o)) })
	vals, owner = make([]float64, len(ps)), make([]int32, len(ps))
	for k, p := range ps {
		vals[k], owner[k] = p.v, p.o
	}
	return vals, owner
}

// spread is what a side's interval needs beyond its values: the standard
// error of the distribution function at a quantile estimate, or of the mean.
type spread struct {
	s   stats.Stat
	est float64
	se  float64
}

// spreadOf computes the statistic of d and its standard error (see the
// section comment). d must have values.
func spreadOf(d *dataset, s stats.Stat) spread {
	sp := spread{s: s, est: d.stat(s)}
	m, n := float64(len(d.vals)), float64(d.requests())
	corr := n / max(n-1, 1) // the between-request variance's small-sample factor
	var v float64
	for _, x := range sp.terms(d) {
		v += x * x
	}
	if s.Mean {
		sp.se = math.Sqrt(v*corr) / m
		return sp
	}
	sp.se = math.Sqrt(max(v*corr/(m*m), s.P*(1-s.P)/m))
	return sp
}

// terms are each request's (cluster's) term of the statistic's estimating
// equation at the estimate: of a quantile, its values at or below the
// estimate less p per value, cᵢ − p·mᵢ; of the mean, its sum less the
// estimate per value. Their sum of squares is the cluster variance.
func (sp spread) terms(d *dataset) []float64 {
	out := make([]float64, d.requests())
	if sp.s.Mean {
		for i, sum := range d.sums {
			out[i] = sum - sp.est*float64(d.per[i])
		}
		return out
	}
	k := sort.Search(len(d.vals), func(i int) bool { return d.vals[i] > sp.est })
	for _, o := range d.owner[:k] {
		out[o]++
	}
	for i := range out {
		out[i] -= sp.s.P * float64(d.per[i])
	}
	return out
}

// bounds returns the side's interval at normal critical value z: lo is 0
// when it reaches 0 or below the data, hi +Inf when it runs past the data.
func (sp spread) bounds(d *dataset, z float64) (lo, hi float64) {
	if sp.s.Mean {
		if sp.est <= 0 {
			return 0, math.Inf(1)
		}
		h := z * sp.se / sp.est
		return sp.est * math.Exp(-h), sp.est * math.Exp(h)
	}
	pl, ph := sp.s.P-z*sp.se, sp.s.P+z*sp.se
	lo, hi = 0, math.Inf(1)
	if pl >= 0 {
		lo = stats.Quantile(d.vals, pl)
	}
	if ph <= 1 {
		hi = stats.Quantile(d.vals, ph)
	}
	return max(lo, 0), hi
}

// logWidths returns a side's lower and upper half-widths in log units at z:
// +Inf where the interval reaches 0 or runs past the data.
func (sp spread) logWidths(d *dataset, z float64) (a, b float64) {
	lo, hi := sp.bounds(d, z)
	a, b = math.Inf(1), math.Inf(1)
	if sp.est > 0 && lo > 0 {
		a = math.Log(sp.est) - math.Log(lo)
	}
	if sp.est > 0 && !math.IsInf(hi, 1) {
		b = math.Log(hi) - math.Log(sp.est)
	}
	return a, b
}

// mover combines two sides' half-widths (log units, or ms on the difference
// scale) into those of cur − base: below √(a_c² + b_b²), above √(b_c² + a_b²).
func mover(ac, bc, ab, bb float64) (below, above float64) {
	return math.Hypot(ac, bb), math.Hypot(bc, ab)
}

// logs returns the natural logs of the positive values of d, ascending
// (d.vals is sorted); ok is false when a value is not positive.
func (d *dataset) logs() ([]float64, bool) {
	out := make([]float64, len(d.vals))
	for i, v := range d.vals {
		if v <= 0 {
			return nil, false
		}
		out[i] = math.Log(v)
	}
	return out, true
}
