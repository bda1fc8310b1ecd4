package stats

import "math"

// The Hodges–Lehmann estimators and their distribution-free intervals are
// order statistics of sets too large to list: the n·m differences of two
// samples, the n(n+1)/2 Walsh averages of one. They are found by bisection on
// the value with a linear-time count of the members at or below it.

// HodgesLehmann returns the two-sample Hodges–Lehmann shift of x − y (the
// median of all n·m differences xᵢ − yⱼ) and Moses' distribution-free
// interval, its low end at normal critical value zl and its high end at zh.
// x and y must be ascending. ok is false when a sample is empty or the
// interval is unbounded (too few values for a z).
func HodgesLehmann(x, y []float64, zl, zh float64) (shift, lo, hi float64, ok bool) {
	n, m := len(x), len(y)
	if n == 0 || m == 0 {
		return 0, 0, 0, false
	}
	// count returns #{(i, j): xᵢ − yⱼ ≤ t}: for increasing xᵢ, the yⱼ ≥
	// xᵢ − t start later.
	count := func(t float64) int {
		c, j := 0, 0
		for _, v := range x {
			for j < m && y[j] < v-t {
				j++
			}
			c += m - j
		}
		return c
	}
	sd := math.Sqrt(float64(n*m) * float64(n+m+1) / 12)
	return centred(n*m, sd, zl, zh, x[0]-y[m-1], x[n-1]-y[0], count)
}

// SignedRankHL returns the one-sample Hodges–Lehmann estimate of the centre
// of x (the median of its Walsh averages (xᵢ + xⱼ)/2, i ≤ j) and the
// distribution-free interval of the Wilcoxon signed-rank test at normal
// critical values zl (low end) and zh (high end). It holds when x is
// symmetric about its centre (paired differences whose pairs were sent in a
// random order are). x must be ascending; ok is false when it is empty or
// the interval is unbounded.
func SignedRankHL(x []float64, zl, zh float64) (centre, lo, hi float64, ok bool) {
	n := len(x)
	if n == 0 {
		return 0, 0, 0, false
	}
	// count returns #{i ≤ j: xᵢ + xⱼ ≤ 2t}.
	count := func(t float64) int {
		c, j := 0, n-1
		for i := range n {
			for j >= i && x[i]+x[j] > 2*t {
				j--
			}
			if j < i {
				break
			}
			c += j - i + 1
		}
		return c
	}
	sd := math.Sqrt(float64(n) * float64(n+1) * float64(2*n+1) / 24)
	return centred(n*(n+1)/2, sd, zl, zh, x[0], x[n-1], count)
}

// centred returns the median of a set of N members between least and
// greatest, given count(t) = #{members ≤ t}, and the interval between the
// members of ranks ⌊N/2 − zl·sd⌋ and N − ⌊N/2 − zh·sd⌋ + 1 (sd: the
// standard deviation of the rank statistic under the null); ok is false
// when either rank falls below 1.
func centred(N int, sd, zl, zh, least, greatest float64, count func(float64) int) (centre, lo, hi float64, ok bool) {
	kth := func(k int) float64 { return kthOf(k, least, greatest, count) }
	if N%2 == 1 {
		centre = kth((N + 1) / 2)
	} else {
		centre = (kth(N/2) + kth(N/2+1)) / 2
	}
	kl, kh := int(math.Floor(float64(N)/2-zl*sd)), int(math.Floor(float64(N)/2-zh*sd))
	if kl < 1 || kh < 1 {
		return centre, 0, 0, false
	}
	return centre, kth(kl), kth(N - kh + 1), true
}

// kthOf returns the k-th smallest (1-based) member of a set whose least
// member is lo and greatest hi, given count(t) = #{members ≤ t}: bisection
// on the value, to the resolution of a float64.
func kthOf(k int, lo, hi float64, count func(float64) int) float64 {
	if count(lo) >= k {
		return lo
	}
	for range 64 {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		if count(mid) >= k {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}
