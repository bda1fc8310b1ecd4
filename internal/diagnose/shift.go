package diagnose

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"github.com/latgate/latgate/pkg/stats"
)

// z is the two-sided normal quantile of the level every test uses, 99.5%:
// ten quantities per regression at 0.5% each keep the chance that noise
// names any at 5% (Bonferroni).
const z = 2.807

// MinRequests is the fewest requests each side needs before any quantity
// is tested: fewer cannot tell a movement from noise.
const MinRequests = 10

// shift is the Hodges–Lehmann estimate of the shift current − baseline and
// its distribution-free interval: the median and the order statistics of
// the pairwise differences that the Mann–Whitney rank bound at level z
// gives (normal approximation, no tie correction, which widens the
// interval). ok is false when a side is too small for any interval.
type shift struct {
	est, lo, hi float64
	ok          bool
}

// moved reports whether the interval excludes 0.
func (s shift) moved() bool { return s.ok && (s.lo > 0 || s.hi < 0) }

func shiftOf(base, cur []float64) shift {
	if len(base) < MinRequests || len(cur) < MinRequests {
		return shift{}
	}
	x, y := slices.Clone(base), slices.Clone(cur)
	slices.Sort(x)
	slices.Sort(y)
	n, m := len(x), len(y)
	k := int(math.Floor(float64(n*m)/2 - z*math.Sqrt(float64(n*m)*float64(n+m+1)/12)))
	if k < 0 {
		return shift{}
	}
	nm := n * m
	est := kth(x, y, nm/2)
	if nm%2 == 0 {
		est = (kth(x, y, nm/2-1) + est) / 2
	}
	return shift{est: est, lo: kth(x, y, k), hi: kth(x, y, nm-1-k), ok: true}
}

// kth returns the k-th smallest (0-based) of the n·m differences y[j] −
// x[i] of sorted x and y without forming them (a selection in a sorted
// matrix): each row i keeps a range of candidate columns; a pivot, the
// weighted median of the rows' middle candidates, splits every row by
// binary search into below, equal to and above it, and the part holding
// rank k stays. Each step drops at least a quarter of the candidates, so
// it takes O(log(n·m)) steps of O(n log m); the last few hundred
// candidates are sorted. Memory O(n), ties welcome.
func kth(x, y []float64, k int) float64 {
	n, m := len(x), len(y)
	if n > m { // rows over the smaller side: y − x ranks as −(x − y) does
		return -kth(y, x, n*m-1-k)
	}
	lo, hi := make([]int, n), make([]int, n) // row i's candidates: y[lo[i]:hi[i]]
	for i := range hi {
		hi[i] = m
	}
	below := 0 // differences known to rank below every candidate
	lt, le := make([]int, n), make([]int, n)
	type mid struct {
		v float64
		w int
	}
	mids := make([]mid, 0, n)
	for {
		left := 0
		for i := range x {
			left += hi[i] - lo[i]
		}
		if left <= 256 {
			d := make([]float64, 0, left)
			for i, xi := range x {
				for j := lo[i]; j < hi[i]; j++ {
					d = append(d, y[j]-xi)
				}
			}
			slices.Sort(d)
			return d[k-below]
		}
		mids = mids[:0]
		for i, xi := range x {
			if w := hi[i] - lo[i]; w > 0 {
				mids = append(mids, mid{y[lo[i]+w/2] - xi, w})
			}
		}
		slices.SortFunc(mids, func(a, b mid) int { return cmp.Compare(a.v, b.v) })
		pivot, acc := mids[len(mids)-1].v, 0
		for _, md := range mids {
			if acc += md.w; 2*acc >= left {
				pivot = md.v
				break
			}
		}
		less, lessEq := below, below
		for i, xi := range x {
			ys := y[lo[i]:hi[i]]
			lt[i] = lo[i] + sort.Search(len(ys), func(j int) bool { return ys[j]-xi >= pivot })
			le[i] = lo[i] + sort.Search(len(ys), func(j int) bool { return ys[j]-xi > pivot })
			less += lt[i] - lo[i]
			lessEq += le[i] - lo[i]
		}
		switch {
		case k < less:
			copy(hi, lt)
		case k < lessEq:
			return pivot
		default:
			below = lessEq
			copy(lo, le)
		}
	}
}

// proportions tests whether the share of requests with some property
// differs between the sides: a two-proportion z-test (pooled variance) at
// level z. It needs MinRequests on each side.
func proportions(kb, nb, kc, nc int) (pb, pc float64, moved bool) {
	if nb < MinRequests || nc < MinRequests {
		return 0, 0, false
	}
	pb, pc = float64(kb)/float64(nb), float64(kc)/float64(nc)
	p := float64(kb+kc) / float64(nb+nc)
	se := math.Sqrt(p * (1 - p) * (1/float64(nb) + 1/float64(nc)))
	if se == 0 {
		return pb, pc, false
	}
	return pb, pc, math.Abs(pc-pb)/se >= z
}

// means tests whether the means of two sides differ (Welch's z at level
// z): for a bounded per-request quantity, such as the cached share, whose
// values are all-or-nothing. It needs MinRequests on each side; two
// constant sides differ when their values do.
func means(base, cur []float64) bool {
	if len(base) < MinRequests || len(cur) < MinRequests {
		return false
	}
	mb, mc := stats.Mean(base), stats.Mean(cur)
	se := math.Sqrt(variance(base, mb)/float64(len(base)) + variance(cur, mc)/float64(len(cur)))
	if se == 0 {
		return mb != mc
	}
	return math.Abs(mc-mb)/se >= z
}

func variance(xs []float64, m float64) float64 {
	var s float64
	for _, x := range xs {
		s += (x - m) * (x - m)
	}
	return s / float64(len(xs)-1)
}
