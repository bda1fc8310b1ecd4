package compare

import (
	"math"
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

// asDataset is the side as the gate's intervals read a side: its blocks
// as the clusters (a block's values are one request's, its gaps for itl).
func (b *blockSide) asDataset() *dataset {
	return &dataset{vals: b.vals, owner: b.owner, per: b.per, sums: b.sums}
}

// pairedInterval is the interval of ln(stat(candidate)/stat(base)) from
// the blocks, as ratios, its low end at normal critical value zl and its
// high end at zh: each side's distribution-free interval (Woodruff's for a
// quantile, the cluster variance for the mean: the gate's, spreadOf, with
// blocks as the clusters), combined by the MOVER for correlated estimates
// (Zou & Donner 2008): below √(a_c² + b_b² − 2r·a_c·b_b), above
// √(b_c² + a_b² − 2r·b_c·a_b), r the correlation of the two sides'
// estimating equations over the blocks — what a block's two requests
// shared (the endpoint's level at that moment) counted once, as it
// cancels in the ratio. ok is false when a side's interval reaches 0 or
// runs past its data (unbounded).
func pairedInterval(d *blockData, s stats.Stat, zl, zh float64) (lo, hi float64, ok bool) {
	db, dc := d.side[0].asDataset(), d.side[1].asDataset()
	sb, sc := spreadOf(db, s), spreadOf(dc, s)
	if !(sb.est > 0 && sc.est > 0) {
		return 0, 0, false
	}
	ac, _ := sc.logWidths(dc, zl)
	_, bb := sb.logWidths(db, zl)
	ab, _ := sb.logWidths(db, zh)
	_, bc := sc.logWidths(dc, zh)
	if math.IsInf(ac, 1) || math.IsInf(bb, 1) || math.IsInf(ab, 1) || math.IsInf(bc, 1) {
		return 0, 0, false
	}
	r := blockCorrelation(db, dc, sb, sc)
	theta := math.Log(sc.est / sb.est)
	below := math.Sqrt(max(ac*ac+bb*bb-2*r*ac*bb, 0))
	above := math.Sqrt(max(bc*bc+ab*ab-2*r*bc*ab, 0))
	return math.Exp(theta - below), math.Exp(theta + above), true
}

// blockCorrelation is the correlation over blocks of the two sides'
// estimating-equation terms at their estimates (spread.terms: both sides'
// terms move the same way when their estimates do). Clamped to
// [−0.95, 0.95]: a correlation estimated at ±1 from a few blocks would
// claim a width of 0.
func blockCorrelation(db, dc *dataset, sb, sc spread) float64 {
	xb, xc := sb.terms(db), sc.terms(dc)
	var sbc, sbb, scc float64
	for i := range xb {
		sbc += xb[i] * xc[i]
		sbb += xb[i] * xb[i]
		scc += xc[i] * xc[i]
	}
	if !(sbb > 0 && scc > 0) {
		return 0
	}
	return min(max(sbc/math.Sqrt(sbb*scc), -0.95), 0.95)
}
