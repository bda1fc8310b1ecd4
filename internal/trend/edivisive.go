package trend

// The split search of E-divisive means (Matteson & James, JASA 2014), α = 1:
// for a segment Z of the series, the pair (τ, κ) maximising the scaled
// energy distance between X = Z[0:τ] and Y = Z[τ:κ],
//
//	Q(τ, κ) = (m·n/(m+n)) · (2/(m·n)·Σ|Xi−Yj| − 1/C(m,2)·Σ|Xi−Xk| − 1/C(n,2)·Σ|Yj−Yk|)
//
// with m = τ, n = κ − τ. Both ends move: the right end κ need not be the
// segment's end, so a change that reverts (a bump from τ to κ) is found as
// well as a step (as current Apache Otava does; an earlier version of this
// file fixed κ at the segment's end, which loses power on a bump). τ is
// the candidate change point: the first point after it.

// splitter holds scratch space: one O(L²) table per search, reused.
type splitter struct {
	p []float64 // p[j*L+t] = Σ_{i<t} |Z_i − Z_j|
}

// best returns the candidate (τ, κ) of seg and Q there; τ < 0 when seg is
// too short for two parts of minSeg points. O(len(seg)²).
func (sp *splitter) best(seg []float64, minSeg int) (tau, kappa int, q float64) {
	L := len(seg)
	tau, kappa = -1, -1
	if L < 2*minSeg {
		return tau, kappa, 0
	}
	if cap(sp.p) < L*L {
		sp.p = make([]float64, L*L)
	}
	p := sp.p[:L*L]
	for j := range L {
		row := p[j*L : (j+1)*L]
		acc := 0.0
		for t := range L {
			row[t] = acc
			d := seg[t] - seg[j]
			if d < 0 {
				d = -d
			}
			acc += d
		}
	}
	// within(t) = Σ_{i<k<t} D(i,k), from the columns' prefixes.
	withinL := 0.0
	for t := 1; t < minSeg; t++ {
		withinL += p[t*L+t]
	}
	for tt := minSeg; tt <= L-minSeg; tt++ {
		if tt > minSeg {
			withinL += p[(tt-1)*L+tt-1]
		}
		m := float64(tt)
		between, withinR := 0.0, 0.0
		for kk := tt + 1; kk <= L; kk++ {
			j := kk - 1 // the point added to Y
			between += p[j*L+tt]
			withinR += p[j*L+j] - p[j*L+tt]
			n := float64(kk - tt)
			if kk-tt < minSeg {
				continue
			}
			e := 2 * between / (m * n)
			if tt > 1 {
				e -= 2 * withinL / (m * (m - 1))
			}
			if kk-tt > 1 {
				e -= 2 * withinR / (n * (n - 1))
			}
			qq := m * n / (m + n) * e
			if tau < 0 || qq > q {
				tau, kappa, q = tt, kk, qq
			}
		}
	}
	return tau, kappa, q
}
