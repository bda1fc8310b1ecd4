package compare

import (
	"cmp"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

// Metrics compare knows how to gate: durations in milliseconds, for which
// larger is worse, and tokens_per_s, for which larger is better.
var gatedMetrics = results.GatedMetrics()

// minITLRequests is the fewest requests a side needs for a pooled itl
// statistic: gaps within one stream are correlated, so many gaps from a few
// requests are not many independent observations.
const minITLRequests = 10

// dataset is one side's values of one metric for one prompt, pooled and
// sorted once, with the request each value came from. Resampling draws whole
// requests: a resample is a count per request, and its statistic is a
// weighted walk over the sorted values (no copying, no sorting).
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
	type pair struct {
		v float64
		o int32
	}
	var ps []pair
	d := &dataset{}
	add := func(vs ...float64) {
		o := int32(len(d.per))
		var sum float64
		for _, v := range vs {
			ps = append(ps, pair{v, o})
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
	slices.SortFunc(ps, func(a, b pair) int {
		return cmp.Or(cmp.Compare(a.v, b.v), cmp.Compare(a.o, b.o))
	})
	d.vals = make([]float64, len(ps))
	d.owner = make([]int32, len(ps))
	for k, p := range ps {
		d.vals[k], d.owner[k] = p.v, p.o
	}
	return d
}

// stat returns the statistic over all values: type-7 quantile or mean.
func (d *dataset) stat(s stats.Stat) float64 {
	if len(d.vals) == 0 {
		return math.NaN()
	}
	if s.Mean {
		var sum float64
		for _, x := range d.sums {
			sum += x
		}
		return sum / float64(len(d.vals))
	}
	return stats.Quantile(d.vals, s.P)
}

// resampler draws bootstrap resamples of whole requests from a dataset and
// returns their statistic. Its buffers are reused across draws.
type resampler struct {
	d      *dataset
	s      stats.Stat
	j0     int     // pivot: the position of the full sample's quantile
	below  []int32 // per request, values at positions < j0
	counts []int32 // per request, times drawn in the current resample
}

func newResampler(d *dataset, s stats.Stat) *resampler {
	r := &resampler{d: d, s: s, counts: make([]int32, d.requests())}
	if !s.Mean && len(d.vals) > 0 {
		// A resample's quantile lies near the full sample's, so the walk
		// starts there: the weight below the pivot is a sum over requests,
		// and only the few positions between pivot and answer are visited.
		r.j0 = int(float64(len(d.vals)-1) * s.P)
		r.below = make([]int32, d.requests())
		for _, o := range d.owner[:r.j0] {
			r.below[o]++
		}
	}
	return r
}

// draw resamples the requests with replacement and returns the statistic.
// The weights the statistic needs are summed while drawing, so the only pass
// over the data is the short walk from the pivot.
func (r *resampler) draw(src *rand.PCG) float64 {
	c, per := r.counts, r.d.per
	clear(c)
	// Two indices per 64-bit draw by multiply-shift (bias below n/2³², far
	// under the bootstrap's own error for any realistic request count). An
	// odd count draws one index too many; it is dropped.
	n := uint64(len(c))
	half := (len(c) + 1) / 2
	odd := len(c)%2 == 1
	var m int
	if r.s.Mean {
		sums := r.d.sums
		var sum float64
		for k := range half {
			x := src.Uint64()
			i := (x & math.MaxUint32) * n >> 32
			c[i]++
			m += int(per[i])
			sum += sums[i]
			if odd && k == half-1 {
				break
			}
			i = (x >> 32) * n >> 32
			c[i]++
			m += int(per[i])
			sum += sums[i]
		}
		return sum / float64(m)
	}
	below := r.below
	var w int
	for k := range half {
		x := src.Uint64()
		i := (x & math.MaxUint32) * n >> 32
		c[i]++
		m += int(per[i])
		w += int(below[i])
		if odd && k == half-1 {
			break
		}
		i = (x >> 32) * n >> 32
		c[i]++
		m += int(per[i])
		w += int(below[i])
	}
	return r.walk(m, w)
}

// weighted returns the statistic of the resample in which request i appears
// counts[i] times (draw's result, computed from the counts alone).
func (r *resampler) weighted() float64 {
	var m, w int
	var sum float64
	for i, k := range r.counts {
		m += int(k) * int(r.d.per[i])
		if r.s.Mean {
			sum += float64(k) * r.d.sums[i]
		} else {
			w += int(k) * int(r.below[i])
		}
	}
	if r.s.Mean {
		return sum / float64(m)
	}
	return r.walk(m, w)
}

// walk returns the type-7 quantile of the resample given its total weight m
// and the weight w of the positions before the pivot.
func (r *resampler) walk(m, w int) float64 {
	c, d := r.counts, r.d
	// Type 7: h = (m−1)p, interpolate between order statistics lo and lo+1
	// (0-based) of the resample.
	h := float64(m-1) * r.s.P
	lo := int(h)
	frac := h - float64(lo)
	j := r.j0
	for w > lo {
		j--
		w -= int(c[d.owner[j]])
	}
	for {
		k := int(c[d.owner[j]])
		if w+k > lo {
			if frac == 0 || w+k > lo+1 {
				return d.vals[j] // lo and lo+1 are copies of the same value
			}
			break
		}
		w += k
		j++
	}
	a := d.vals[j]
	for j++; c[d.owner[j]] == 0; j++ {
	}
	return a + frac*(d.vals[j]-a)
}

// ratio is cur/base, with 0/0 = 1 and x/0 = +Inf.
func ratio(cur, base float64) float64 {
	if base == 0 {
		if cur == 0 {
			return 1
		}
		return math.Inf(1)
	}
	return cur / base
}

// bootstrapRatios returns n replicate ratios stat(cur*)/stat(base*), each side
// resampled independently by whole requests from a PCG stream seeded by seed
// and key.
func bootstrapRatios(base, cur *dataset, s stats.Stat, n int, seed int64, key string) []float64 {
	src := rand.NewPCG(uint64(seed), keyHash(key))
	rb, rc := newResampler(base, s), newResampler(cur, s)
	out := make([]float64, n)
	for i := range out {
		b := rb.draw(src)
		out[i] = ratio(rc.draw(src), b)
	}
	return out
}

// keyHash is a stable 64-bit FNV-1a hash, so that a check's random stream
// depends only on its own identity, never on what else is compared.
func keyHash(key string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(key))
	return h.Sum64()
}

// percentileInterval returns the equal-tailed conf interval of the replicate
// ratios (type-7 quantiles at (1−conf)/2 and (1+conf)/2). It sorts scratch,
// a copy of reps.
func percentileInterval(reps, scratch []float64, conf float64) (lo, hi float64) {
	scratch = append(scratch[:0], reps...)
	slices.Sort(scratch)
	if len(scratch) > 0 && math.IsNaN(scratch[0]) {
		return math.NaN(), math.NaN()
	}
	a := (1 - conf) / 2
	return stats.Quantile(scratch, a), stats.Quantile(scratch, 1-a)
}
