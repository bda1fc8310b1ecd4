package trend

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/latgate/latgate/pkg/stats"
)

// cut is a change point found by segment: Index is the first point after
// it, Z how many standard errors its two sides' means differ by.
type cut struct {
	Index int
	Z     float64
}

// segment finds the change points of x (log values) by binary
// segmentation: in each segment between the change points found so far,
// the E-divisive candidate (τ, κ) (both ends searched); the candidates are
// tested in the order of their Q, and the first significant one is
// accepted; it stops when none is. A candidate is significant when its
// sides X = [lo, τ) and Y = [τ, κ) differ in mean by at least crit(len)
// standard errors, the standard error counting the noise's autocorrelation
// (Noise.seDiff, the noise estimated around the segment means with the
// candidate in place). crit is the (1 − alpha) quantile of that statistic
// for a segment of independent normal noise without a change
// (criticalZ: it allows for the search having picked the best split of
// all), so a series without a change shows one in about alpha of
// analyses (per segment tested). Ascending order.
func segment(x []float64, minSeg int, alpha float64, sp *splitter) []cut {
	var cuts []cut
	n := len(x)
	type span struct{ lo, hi int }
	type found struct {
		tau, kappa int
		q          float64
	}
	memo := map[span]found{} // a segment's candidate does not change until it is cut
	for {
		bounds := boundsOf(cuts, n)
		type cand struct {
			lo, hi, tau, kappa int
			q                  float64
		}
		var cands []cand
		for s := 0; s+1 < len(bounds); s++ {
			lo, hi := bounds[s], bounds[s+1]
			f, ok := memo[span{lo, hi}]
			if !ok {
				f.tau, f.kappa, f.q = sp.best(x[lo:hi], minSeg)
				memo[span{lo, hi}] = f
			}
			tau, kappa, q := f.tau, f.kappa, f.q
			if tau > 0 && q > 0 {
				cands = append(cands, cand{lo, hi, lo + tau, lo + kappa, q})
			}
		}
		slices.SortStableFunc(cands, func(a, b cand) int {
			switch {
			case a.q > b.q:
				return -1
			case a.q < b.q:
				return 1
			}
			return 0
		})
		found := false
		for _, c := range cands {
			z := splitZ(x, bounds, c.lo, c.tau, c.kappa, c.hi)
			if z >= criticalZ(c.hi-c.lo, minSeg, alpha) {
				cuts = append(cuts, cut{Index: c.tau, Z: z})
				slices.SortFunc(cuts, func(a, b cut) int { return a.Index - b.Index })
				found = true
				break
			}
		}
		if !found {
			return cuts
		}
	}
}

// splitZ is the significance statistic of the candidate (tau, kappa) in the
// segment [lo, hi) of x whose change points so far make bounds.
func splitZ(x []float64, bounds []int, lo, tau, kappa, hi int) float64 {
	rb := append(slices.Clone(bounds), tau)
	if kappa < hi {
		rb = append(rb, kappa)
	}
	slices.Sort(rb)
	nz := estimateNoise(x, rb)
	d := math.Abs(stats.Mean(x[tau:kappa]) - stats.Mean(x[lo:tau]))
	if d == 0 {
		return 0
	}
	se := nz.seDiff(tau-lo, kappa-tau, 0)
	if !(se > 0) {
		return math.Inf(1)
	}
	return d / se
}

// boundsOf is 0, the cuts' indices, n.
func boundsOf(cuts []cut, n int) []int {
	b := make([]int, 0, len(cuts)+2)
	b = append(b, 0)
	for _, c := range cuts {
		b = append(b, c.Index)
	}
	return append(b, n)
}

// criticalZ is the (1 − alpha) quantile of splitZ for the best candidate of
// a segment of L independent standard normal values, by a seeded Monte
// Carlo simulation of the search itself: at the default alpha and minimum
// segment from criticalTable (interpolated between its lengths, its last
// value beyond them: the quantile falls slowly with L, as the noise is
// better estimated), otherwise simulated once per L and kept.
func criticalZ(L, minSeg int, alpha float64) float64 {
	if minSeg == DefaultMinSegment && alpha == DefaultAlpha && len(criticalTable) > 0 {
		return tableZ(L)
	}
	k := critKey{L, minSeg, alpha}
	critMu.Lock()
	defer critMu.Unlock()
	if v, ok := critCache[k]; ok {
		return v
	}
	v := simulateCritical(L, minSeg, alpha, critSims)
	critCache[k] = v
	return v
}

// critPoint is one entry of criticalTable.
type critPoint struct {
	L    int
	Z    float64
	Sims int
}

func tableZ(L int) float64 {
	t := criticalTable
	i, found := slices.BinarySearchFunc(t, L, func(p critPoint, L int) int { return p.L - L })
	switch {
	case found:
		return t[i].Z
	case i == 0:
		return t[0].Z
	case i == len(t):
		return t[len(t)-1].Z
	}
	a, b := t[i-1], t[i]
	return a.Z + (b.Z-a.Z)*float64(L-a.L)/float64(b.L-a.L)
}

type critKey struct {
	L, minSeg int
	alpha     float64
}

var (
	critMu    sync.Mutex
	critCache = map[critKey]float64{}
)

// critSims is the number of simulated segments per critical value.
const critSims = 4000

func simulateCritical(L, minSeg int, alpha float64, sims int) float64 {
	rng := rand.New(rand.NewPCG(uint64(L), uint64(minSeg)<<32|0xc417))
	sp := &splitter{}
	x := make([]float64, L)
	zs := make([]float64, 0, sims)
	for range sims {
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		tau, kappa, q := sp.best(x, minSeg)
		if tau <= 0 || q <= 0 {
			zs = append(zs, 0)
			continue
		}
		zs = append(zs, splitZ(x, []int{0, L}, 0, tau, kappa, L))
	}
	slices.Sort(zs)
	return zs[min(len(zs)-1, int(math.Ceil((1-alpha)*float64(len(zs))))-1)]
}
