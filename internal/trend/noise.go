package trend

import (
	"math"
	"sync"
)

// Noise is a series' run-to-run variation on the log scale: the residuals
// around its level have standard deviation Sigma and lag-one
// autocorrelation Rho (an AR(1) model: a slow endpoint tonight makes a slow
// endpoint tomorrow likelier). The level is each segment's (between change
// points) least-squares line: a slow drift that no change point has cut yet
// is level, not noise (around a segment's mean it would read as a large,
// strongly autocorrelated noise, and hide itself behind the intervals it
// widens). Both are estimated by the method of moments with the fit's bias
// removed: residuals around a fitted line are smaller than the noise, and
// less autocorrelated, by amounts that depend on the segment's length and
// on ρ; the estimator solves for the ρ whose expected residual
// autocorrelation is the one observed, then scales σ accordingly. DF is the
// residuals' degrees of freedom (runs − fitted parameters).
type Noise struct {
	Sigma, Rho float64
	DF         int
}

// Bounds of the autocorrelation used: a negative estimate is taken as 0
// (independent runs: the intervals do not get narrower than that), and
// one near 1 (a random walk) is held below it.
const (
	minRho = 0.0
	maxRho = 0.95
)

// lineFrom is the shortest segment whose level is a line (shorter ones: a
// mean), so that every segment keeps residual degrees of freedom.
const lineFrom = 5

// fit is the level fitted to each segment for the noise around it.
type fit int

const (
	fitLine fit = iota // a line (from lineFrom points; a mean below)
	fitMean            // the mean
)

// estimateNoise estimates the noise of x (log values) around the level of
// the segments [bounds[i], bounds[i+1]): their lines.
func estimateNoise(x []float64, bounds []int) Noise { return estimateNoiseFit(x, bounds, fitLine) }

// estimateNoiseFit is estimateNoise around the level f fits.
func estimateNoiseFit(x []float64, bounds []int, f fit) Noise {
	var ss, cross float64
	var sizes []int
	df := 0
	var basis [2][]float64
	r := make([]float64, 0, len(x))
	for s := 0; s+1 < len(bounds); s++ {
		lo, hi := bounds[s], bounds[s+1]
		m := hi - lo
		q := fitBasis(m, f, &basis)
		if m <= len(q) {
			continue
		}
		seg := x[lo:hi]
		r = append(r[:0], seg...)
		for _, b := range q { // r = (I − QQ')·seg
			c := 0.0
			for i, v := range seg {
				c += b[i] * v
			}
			for i := range r {
				r[i] -= c * b[i]
			}
		}
		for i, v := range r {
			ss += v * v
			if i+1 < m {
				cross += v * r[i+1]
			}
		}
		sizes = append(sizes, m)
		df += m - len(q)
	}
	if df <= 0 {
		return Noise{Sigma: math.NaN(), DF: df}
	}
	if ss == 0 {
		return Noise{Sigma: 0, DF: df}
	}
	obs := cross / ss
	// f(ρ) = E[Σ r_i r_{i+1}] / E[Σ r_i²] rises with ρ; solve f(ρ) = obs on
	// the grid of ρ, interpolating between its points.
	tabs := make([]*momentTable, len(sizes))
	for i, m := range sizes {
		tabs[i] = momentsOf(m, f)
	}
	fg := func(g int) (e1, e2 float64) {
		for _, t := range tabs {
			e1 += t.lag1[g]
			e2 += t.sq[g]
		}
		return e1, e2
	}
	// pos is ρ's place on the grid: between points g and g+1, w of the way.
	g, w := rhoSteps, 0.0
	prevF := math.Inf(-1)
	for i := range rhoSteps + 1 {
		e1, e2 := fg(i)
		fi := e1 / e2
		if fi >= obs {
			switch {
			case i == 0:
				g, w = 0, 0
			case fi > prevF:
				g, w = i-1, (obs-prevF)/(fi-prevF)
			default:
				g, w = i, 0
			}
			break
		}
		prevF = fi
	}
	rho := rhoGrid(g)
	if g < rhoSteps {
		rho += w * (rhoGrid(g+1) - rhoGrid(g))
	}
	if rho < minRho { // use ρ = 0: the grid point nearest above it
		g, w = int(math.Ceil((minRho-gridLo)/(maxRho-gridLo)*rhoSteps-1e-9)), 0
		rho = minRho
	}
	var expSS float64
	for _, t := range tabs {
		e2 := t.sq[g]
		if g < rhoSteps {
			e2 += w * (t.sq[g+1] - t.sq[g])
		}
		expSS += e2
	}
	return Noise{Sigma: math.Sqrt(ss / expSS), Rho: rho, DF: df}
}

// The grid of ρ on which the expected residual moments are tabulated.
const (
	gridLo   = -0.9
	rhoSteps = 185 // steps of 0.01 up to maxRho: ρ = 0 is a grid point
)

func rhoGrid(g int) float64 { return gridLo + float64(g)*(maxRho-gridLo)/rhoSteps }

// momentTable holds moments.residual(m, ρ) at every ρ of the grid.
type momentTable struct {
	sq, lag1 [rhoSteps + 1]float64
}

type momentKey struct {
	m int
	f fit
}

var (
	momentMu    sync.Mutex
	momentCache = map[momentKey]*momentTable{}
)

// momentsOf returns the table of segments of m points (computed once).
func momentsOf(m int, f fit) *momentTable {
	momentMu.Lock()
	defer momentMu.Unlock()
	if t, ok := momentCache[momentKey{m, f}]; ok {
		return t
	}
	t := &momentTable{}
	mo := &moments{}
	for g := range rhoSteps + 1 {
		t.sq[g], t.lag1[g] = mo.residual(m, rhoGrid(g), f)
	}
	momentCache[momentKey{m, f}] = t
	return t
}

// fitBasis returns an orthonormal basis of the level fitted to a segment of
// m points: the constant, and for a line of m ≥ lineFrom points the centred
// time as well.
func fitBasis(m int, f fit, buf *[2][]float64) [][]float64 {
	if m <= 0 {
		return nil
	}
	c := grow(buf[0], m)
	for i := range c {
		c[i] = 1 / math.Sqrt(float64(m))
	}
	buf[0] = c
	if f == fitMean || m < lineFrom {
		return [][]float64{c}
	}
	t := grow(buf[1], m)
	mid, norm := float64(m-1)/2, 0.0
	for i := range t {
		t[i] = float64(i) - mid
		norm += t[i] * t[i]
	}
	norm = math.Sqrt(norm)
	for i := range t {
		t[i] /= norm
	}
	buf[1] = t
	return [][]float64{c, t}
}

// moments computes expected residual moments, with scratch space.
type moments struct {
	basis [2][]float64
	g     [2][]float64
	f, b  []float64
}

// residual returns, for a segment of m values of a unit-variance AR(1)
// series with autocorrelation rho, E[Σ r_i²] and E[Σ r_i r_{i+1}] of the
// residuals r = M·u around the fitted level (M = I − QQ', Q = fitBasis):
// tr(MΓ) and Σ_i (MΓM)_{i,i+1} with Γ_ij = ρ^|i−j|, in O(m) through
// G = ΓQ.
func (mo *moments) residual(m int, rho float64, f fit) (sq, lag1 float64) {
	q := fitBasis(m, f, &mo.basis)
	if m <= len(q) {
		return 0, 0
	}
	k := len(q)
	g := mo.g[:k]
	for a := range k {
		g[a] = mo.gamma(q[a], grow(mo.g[a], m), rho)
		mo.g[a] = g[a]
	}
	// tr(MΓ) = m − Σ_a q_a'Γq_a
	sq = float64(m)
	var qg [2][2]float64 // Q'ΓQ
	for a := range k {
		for b := range k {
			for i := range m {
				qg[a][b] += q[a][i] * g[b][i]
			}
		}
		sq -= qg[a][a]
	}
	// Σ_i (Γ − QG' − GQ' + Q(Q'ΓQ)Q')_{i,i+1}
	lag1 = float64(m-1) * rho
	for i := 0; i+1 < m; i++ {
		for a := range k {
			lag1 -= q[a][i]*g[a][i+1] + g[a][i]*q[a][i+1]
			for b := range k {
				lag1 += q[a][i] * qg[a][b] * q[b][i+1]
			}
		}
	}
	return sq, lag1
}

// gamma sets out = Γ·v for Γ_ij = ρ^|i−j|, by a forward and a backward
// recursion.
func (mo *moments) gamma(v, out []float64, rho float64) []float64 {
	m := len(v)
	mo.f, mo.b = grow(mo.f, m), grow(mo.b, m)
	f, b := mo.f, mo.b
	for i := range m {
		f[i] = v[i]
		if i > 0 {
			f[i] += rho * f[i-1]
		}
	}
	for i := m - 1; i >= 0; i-- {
		b[i] = v[i]
		if i < m-1 {
			b[i] += rho * b[i+1]
		}
	}
	for i := range m {
		out[i] = f[i] + b[i] - v[i]
	}
	return out
}

func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// geo is 1 + ρ + … + ρ^(n−1).
func geo(rho float64, n int) float64 {
	if rho == 1 {
		return float64(n)
	}
	return (1 - math.Pow(rho, float64(n))) / (1 - rho)
}

// blockSum is Σ_{i,j<m} ρ^|i−j|: m·Var(mean of m)/σ² times m.
func blockSum(m int, rho float64) float64 {
	if m <= 0 {
		return 0
	}
	if rho == 0 {
		return float64(m)
	}
	fm := float64(m)
	return fm*(1+rho)/(1-rho) - 2*rho*(1-math.Pow(rho, fm))/((1-rho)*(1-rho))
}

// crossSum is Σ ρ^(j−i) over i in a block of m and j in a block of k that
// starts gap values after the first block ends.
func crossSum(m, k, gap int, rho float64) float64 {
	if rho == 0 || m <= 0 || k <= 0 {
		return 0
	}
	return math.Pow(rho, float64(gap+1)) * geo(rho, m) * geo(rho, k)
}

// varMean is the variance of the mean of m consecutive values.
func (nz Noise) varMean(m int) float64 {
	return nz.Sigma * nz.Sigma * blockSum(m, nz.Rho) / float64(m*m)
}

// seDiff is the standard error of stats.Mean(B) − stats.Mean(A) for a block A of m
// values followed, gap values later, by a block B of k values.
func (nz Noise) seDiff(m, k, gap int) float64 {
	v := nz.varMean(m) + nz.varMean(k) - 2*nz.Sigma*nz.Sigma*crossSum(m, k, gap, nz.Rho)/float64(m*k)
	return math.Sqrt(max(v, 0))
}

// contrastVar is the variance of w·x for noise nz: σ²·w'Γw with
// Γ_ij = ρ^|i−j|.
func (nz Noise) contrastVar(w []float64) float64 {
	g := (&moments{}).gamma(w, make([]float64, len(w)), nz.Rho)
	return nz.Sigma * nz.Sigma * dot(w, g)
}
