package trend

import (
	"math/rand/v2"
	"slices"
)

// eDivisive finds change points in x with E-divisive means (Matteson & James,
// JASA 2014) by binary segmentation, α = 1: the split τ of a segment that
// maximises the scaled energy distance between its left and right parts
//
//	Q(τ) = (m·n/(m+n)) · (2/(m·n)·Σ|Xi−Yj| − 1/C(m,2)·Σ|Xi−Xk| − 1/C(n,2)·Σ|Yj−Yk|)
//
// (the right end fixed at the segment's end, as Apache Otava does) is a
// change point when a permutation test finds it significant: p = (1 + #{Q of
// a shuffled segment ≥ Q}) / (perms + 1) ≤ alpha. Each accepted split's two
// sides are searched again. Segments are at least minSeg points long. It
// returns the indices of the first point after each change, ascending.
func eDivisive(x []float64, minSeg, perms int, alpha float64, rng *rand.Rand) []Split {
	var out []Split
	buf := &ebuf{}
	var walk func(lo, hi int)
	walk = func(lo, hi int) {
		seg := x[lo:hi]
		if len(seg) < 2*minSeg {
			return
		}
		tau, q := buf.best(seg, minSeg)
		if tau < 0 || q <= 0 {
			return
		}
		p := permutationP(seg, q, minSeg, perms, alpha, rng, buf)
		if p > alpha {
			return
		}
		out = append(out, Split{Index: lo + tau, P: p})
		walk(lo, lo+tau)
		walk(lo+tau, hi)
	}
	walk(0, len(x))
	slices.SortFunc(out, func(a, b Split) int { return a.Index - b.Index })
	return out
}

// Split is one change point found: Index is the first point after it.
type Split struct {
	Index int
	P     float64 // permutation p-value
}

// ebuf holds scratch space so a permutation test allocates once.
type ebuf struct {
	a, r, perm []float64
}

// best returns the split of seg maximising Q, and Q. O(len(seg)²).
func (b *ebuf) best(seg []float64, minSeg int) (int, float64) {
	L := len(seg)
	b.a = grow(b.a, L)
	b.r = grow(b.r, L)
	clear(b.a)
	clear(b.r)
	total := 0.0
	for t := range L {
		for j := t + 1; j < L; j++ {
			d := seg[t] - seg[j]
			if d < 0 {
				d = -d
			}
			b.r[t] += d // distance from t to the points after it
			b.a[j] += d // distance from j to the points before it
			total += d
		}
	}
	// withinR(τ) = Σ_{t≥τ} r[t]; build it from the end.
	withinR := 0.0
	for t := minSeg; t < L; t++ {
		withinR += b.r[t]
	}
	withinL := 0.0
	for t := range minSeg {
		withinL += b.a[t]
	}
	bestTau, bestQ := -1, 0.0
	for tau := minSeg; tau <= L-minSeg; tau++ {
		if tau > minSeg {
			withinL += b.a[tau-1]
			withinR -= b.r[tau-1]
		}
		m, n := float64(tau), float64(L-tau)
		between := total - withinL - withinR
		q := (m * n / (m + n)) * (2*between/(m*n) - 2*withinL/(m*(m-1)) - 2*withinR/(n*(n-1)))
		if bestTau < 0 || q > bestQ {
			bestTau, bestQ = tau, q
		}
	}
	return bestTau, bestQ
}

// permutationP estimates the p-value of the best split's Q by shuffling the
// segment perms times; it stops early once p cannot come under alpha.
func permutationP(seg []float64, q float64, minSeg, perms int, alpha float64, rng *rand.Rand, b *ebuf) float64 {
	b.perm = append(b.perm[:0], seg...)
	limit := int(alpha*float64(perms+1)) + 1 // this many exceedances mean p > alpha
	over := 0
	for i := 0; i < perms; i++ {
		rng.Shuffle(len(b.perm), func(i, j int) { b.perm[i], b.perm[j] = b.perm[j], b.perm[i] })
		if _, qp := b.best(b.perm, minSeg); qp >= q {
			over++
			if over >= limit {
				return float64(over+1) / float64(i+2)
			}
		}
	}
	return float64(over+1) / float64(perms+1)
}

func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}
