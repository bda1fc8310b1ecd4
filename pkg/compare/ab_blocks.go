package compare

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

// blockData is one metric of one target pair × prompt of an interleaved run:
// each side's values, with the block each came from. Blocks are the seqs
// that have a value on either side, numbered 0…n−1 in seq order.
type blockData struct {
	n    int
	side [2]*blockSide // base, candidate
}

// blockSide is one side's values of a blockData, pooled and sorted once.
type blockSide struct {
	vals  []float64 // every value, ascending
	owner []int32   // block of vals[k]
	per   []int32   // values per block (0: none on this side)
	sums  []float64 // sum of values per block
	// blocks counts the blocks with at least one value on this side: the
	// side's requests (for itl, requests with a gap).
	blocks int
}

// newBlockData extracts one metric from both sides' samples (per-request
// metrics: one value per request that has it; itl: every gap) and pairs
// them by seq.
func newBlockData(base, cand []results.Sample, metric string) *blockData {
	values := func(s *results.Sample) []float64 {
		switch {
		case metric == results.ITL:
			return s.ITL
		case results.Has(s, metric):
			return []float64{results.Value(s, metric)}
		}
		return nil
	}
	var seqs []int
	for _, ss := range [][]results.Sample{base, cand} {
		for i := range ss {
			if len(values(&ss[i])) > 0 {
				seqs = append(seqs, ss[i].Seq)
			}
		}
	}
	slices.Sort(seqs)
	seqs = slices.Compact(seqs)
	index := make(map[int]int32, len(seqs))
	for i, s := range seqs {
		index[s] = int32(i)
	}
	d := &blockData{n: len(seqs)}
	for k, ss := range [][]results.Sample{base, cand} {
		var ps []owned
		bs := &blockSide{per: make([]int32, d.n), sums: make([]float64, d.n)}
		for i := range ss {
			vs := values(&ss[i])
			if len(vs) == 0 {
				continue
			}
			o := index[ss[i].Seq]
			if bs.per[o] == 0 {
				bs.blocks++
			}
			for _, v := range vs {
				ps = append(ps, owned{v, o})
				bs.sums[o] += v
			}
			bs.per[o] += int32(len(vs))
		}
		bs.vals, bs.owner = sortOwned(ps)
		d.side[k] = bs
	}
	return d
}

// stat is the statistic of all the side's values: type-7 quantile or mean.
func (b *blockSide) stat(s stats.Stat) float64 { return statOf(b.vals, b.sums, s) }

// blockResampler computes a side's statistic on resamples of blocks: the
// blocks drawn (with replacement) are the same for both sides, so whatever
// the two sides' requests of a block shared stays shared in every resample.
type blockResampler struct {
	b     *blockSide
	s     stats.Stat
	j0    int     // pivot: the position of the full sample's quantile
	below []int32 // per block, values at positions < j0
}

func newBlockResampler(b *blockSide, s stats.Stat) *blockResampler {
	r := &blockResampler{b: b, s: s}
	if !s.Mean && len(b.vals) > 0 {
		// A resample's quantile lies near the full sample's, so the walk
		// starts there and visits only the positions between.
		r.j0 = int(float64(len(b.vals)-1) * s.P)
		r.below = make([]int32, len(b.per))
		for _, o := range b.owner[:r.j0] {
			r.below[o]++
		}
	}
	return r
}

// weighted returns the statistic of the resample in which block i appears
// counts[i] times; NaN when the resample has no value on this side.
func (r *blockResampler) weighted(counts []int32) float64 {
	var m, w int
	var sum float64
	b := r.b
	for i, k := range counts {
		if k == 0 {
			continue
		}
		m += int(k) * int(b.per[i])
		if r.s.Mean {
			sum += float64(k) * b.sums[i]
		} else if len(r.below) > 0 {
			w += int(k) * int(r.below[i])
		}
	}
	if m == 0 {
		return math.NaN()
	}
	if r.s.Mean {
		return sum / float64(m)
	}
	// Type 7: h = (m−1)p, interpolate between order statistics lo and lo+1
	// (0-based) of the resample.
	h := float64(m-1) * r.s.P
	lo := int(h)
	frac := h - float64(lo)
	j := r.j0
	for w > lo {
		j--
		w -= int(counts[b.owner[j]])
	}
	for {
		k := int(counts[b.owner[j]])
		if w+k > lo {
			if frac == 0 || w+k > lo+1 {
				return b.vals[j] // lo and lo+1 are copies of the same value
			}
			break
		}
		w += k
		j++
	}
	a := b.vals[j]
	for j++; counts[b.owner[j]] == 0; j++ {
	}
	return a + frac*(b.vals[j]-a)
}

// blockBootstrap returns n replicates of ln(stat(candidate*)/stat(base*)),
// each a resample of the blocks with replacement, from a PCG stream seeded
// by seed and key (a check's identity, so that its stream never depends on
// what else is compared).
func blockBootstrap(d *blockData, s stats.Stat, n int, seed int64, key string) []float64 {
	src := rand.NewPCG(uint64(seed), abKeyHash(key))
	rb, rc := newBlockResampler(d.side[0], s), newBlockResampler(d.side[1], s)
	counts := make([]int32, d.n)
	out := make([]float64, n)
	nb := uint64(d.n)
	for i := range out {
		clear(counts)
		for range d.n {
			counts[(src.Uint64()>>32)*nb>>32]++ // multiply-shift: bias below n/2³²
		}
		out[i] = math.Log(rc.weighted(counts) / rb.weighted(counts))
	}
	return out
}

// abKeyHash is a stable 64-bit FNV-1a hash of a check's identity.
func abKeyHash(key string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(key))
	return h.Sum64()
}

// logInterval returns the percentile interval of log replicates (type-7
// quantiles), as ratios, its low end at normal critical value zl (the
// replicates' stats.NormalCDF(−zl) quantile) and its high end at zh; ok is false
// when a replicate is not finite (a side with no value in a resample, or a
// statistic of 0).
func logInterval(reps []float64, zl, zh float64) (lo, hi float64, ok bool) {
	sorted := slices.Clone(reps)
	slices.Sort(sorted)
	if len(sorted) == 0 || math.IsNaN(sorted[0]) || math.IsInf(sorted[0], 0) || math.IsInf(sorted[len(sorted)-1], 0) {
		return 0, 0, false
	}
	return math.Exp(stats.Quantile(sorted, stats.NormalCDF(-zl))), math.Exp(stats.Quantile(sorted, 1-stats.NormalCDF(-zh))), true
}

// logRatios returns ln(candidate/base) of every block with one value on
// each side (a per-request metric), ascending.
func (d *blockData) logRatios() []float64 {
	var val [2][]float64
	for k, s := range d.side {
		val[k] = make([]float64, d.n)
		for j, o := range s.owner {
			val[k][o] = s.vals[j]
		}
	}
	var out []float64
	for i := range d.n {
		b, c := val[0][i], val[1][i]
		if d.side[0].per[i] == 1 && d.side[1].per[i] == 1 && b > 0 && c > 0 {
			out = append(out, math.Log(c/b))
		}
	}
	slices.Sort(out)
	return out
}
