package trend

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/latgate/latgate/internal/history"
	"github.com/latgate/latgate/pkg/stats"
)

// TuneOptions tune Tune. Zero values take the defaults.
type TuneOptions struct {
	// Window is how many of the newest runs of each series to learn from
	// (default 60).
	Window int
	// FalseAlarm is the false-alarm rate per run to propose tolerances for:
	// the chance that a run of an unchanged endpoint fails any of the
	// series (default 0.01).
	FalseAlarm float64
	// Confidence of the upper bounds on each series' noise (default 0.9).
	Confidence float64
}

// Defaults of TuneOptions.
const (
	DefaultTuneFalseAlarm = 0.01
	DefaultTuneConfidence = 0.9
)

// MinTolerance is the smallest tolerance Tune proposes.
const MinTolerance = 0.01

// MaxTolerance is the largest tolerance Tune proposes: beyond +100% a
// check gates little, and a proposal above it says the history cannot
// support one (Proposal.Refused).
const MaxTolerance = 1.0

// MinTuneRuns is the fewest runs a series needs for a proposal.
const MinTuneRuns = 8

// tuneDraws is the number of simulated (baseline, current) pairs behind
// every per-run rate Tune computes.
const tuneDraws = 20000

// Proposal is one series' run-to-run variation and the tolerance it implies.
type Proposal struct {
	SeriesSpec
	Runs int
	// Noise is the estimate of the series' run-to-run noise (σ of ln value
	// around its level, and its autocorrelation); Upper is the upper
	// confidence bound on σ the proposal uses (it allows for σ being
	// estimated from Runs runs, fewer in effect when they are
	// autocorrelated: ρ at its upper bound).
	Noise Noise
	Upper float64
	// Level is the geometric mean of the newest runs after the last change
	// point (ms).
	Level float64
	// NowRate is the false-alarm rate per run of the configured tolerance
	// for this series alone, at the upper bound: the chance that a run of an
	// unchanged endpoint lands beyond it against a baseline run that was
	// itself one draw of the same variation.
	NowRate float64
	// Tolerance and FloorMS are the proposal: the relative change that an
	// unchanged endpoint exceeds at the series' share of the per-run rate,
	// and the same margin in milliseconds at today's level (so a faster
	// endpoint later does not make the gate twitchy). Rate is this series'
	// own false-alarm rate with it.
	Tolerance, FloorMS float64
	Rate               float64
	// Twice is the tolerance the same noise estimate would give from twice
	// as many runs (a tighter upper bound), and ForTighter how many runs make
	// the upper bound within 25% of the estimate.
	Twice      float64
	ForTighter int
	// Refused: the proposal would be above MaxTolerance, so none is made;
	// Tolerance and FloorMS are the series' configured ones, kept.
	// NeedRuns is how many runs would bring the proposal to MaxTolerance
	// (the upper bound on σ narrowing as the newest segment grows), 0 when
	// none would: the series varies beyond any tolerance even at its
	// estimate.
	Refused  bool
	NeedRuns int
}

// TuneReport is Tune's result.
type TuneReport struct {
	Proposals []Proposal
	// Skipped are the series with fewer than MinTuneRuns runs.
	Skipped []SeriesSpec
	// NowPerRun and PerRun are the false-alarm rates per run (any series) of
	// the configured tolerances and of the proposal (the checks' and
	// overrides' tolerances, as ByCheck makes them; a refused series is not
	// the proposal's and is left out of PerRun), at the noise's upper
	// bounds, with the series' correlation as the history shows it (one
	// endpoint's slow night slows every prompt).
	NowPerRun, PerRun float64
	Options           TuneOptions
}

// Tune estimates each series' run-to-run noise from the history and
// proposes tolerances and floors that an unchanged endpoint crosses in
// FalseAlarm of runs — per run, across every series, not per check.
//
// A gate run compares one run with one baseline run; with run-to-run noise
// σ (of ln) on both sides, ln(current/baseline) has standard deviation σ·√2.
// Tune uses an upper confidence bound on each σ (the estimate is from a few
// dozen autocorrelated runs at best: a point estimate would give tolerances
// that hold on average and fail often), and finds the common multiple k
// such that tolerances exp(k·σ·√2) − 1 are crossed by some series in
// FalseAlarm of simulated (baseline, current) pairs whose series are
// correlated as the history's residuals are. The gate also needs its
// bootstrap interval to clear the tolerance, so real false alarms are
// rarer still: the rates are upper bounds.
func Tune(records []history.Record, spec Spec, opts TuneOptions) TuneReport {
	if opts.Window <= 0 {
		opts.Window = DefaultWindow
	}
	if !(opts.FalseAlarm > 0 && opts.FalseAlarm < 0.5) {
		opts.FalseAlarm = DefaultTuneFalseAlarm
	}
	if !(opts.Confidence > 0 && opts.Confidence < 1) {
		opts.Confidence = DefaultTuneConfidence
	}
	records, _ = inTimeOrder(records)
	rep := TuneReport{Options: opts}
	aopts := Options{Window: opts.Window}.withDefaults()
	sp := &splitter{}
	var resid []map[int]float64          // per proposal: run index → standardised residual
	var growth []func(extra int) float64 // per proposal: the upper σ with extra runs in its newest segment
	for _, ss := range spec.Series {
		s, _ := analyse(records, ss, spec.BlessedAt, aopts, sp)
		n := len(s.Points)
		if n < MinTuneRuns || !(s.Noise.Sigma >= 0) {
			rep.Skipped = append(rep.Skipped, ss)
			continue
		}
		x := make([]float64, n)
		for i, pt := range s.Points {
			x[i] = ss.worse(pt.Value)
		}
		bounds := []int{0}
		for _, c := range s.Changes {
			bounds = append(bounds, c.Index)
		}
		bounds = append(bounds, n)
		from := bounds[len(bounds)-2]
		nz := estimateNoiseFit(x, bounds, fitMean)
		p := Proposal{SeriesSpec: ss, Runs: n, Noise: nz, Level: ss.natural(stats.Mean(x[from:]))}
		p.Upper, p.ForTighter = upperSigma(x, bounds, nz, opts.Confidence)
		twice := nz
		twice.DF += n
		sizes := make([]int, 0, len(bounds)-1)
		for b := 0; b+1 < len(bounds); b++ {
			sizes = append(sizes, bounds[b+1]-bounds[b])
		}
		sizes[len(sizes)-1] += n
		p.Twice = upperFactor(twice, sizes, opts.Confidence) * nz.Sigma // a σ for now; a tolerance below
		base := sizes[:len(sizes):len(sizes)]
		base = slices.Clone(base)
		base[len(base)-1] -= n // sizes as measured
		growth = append(growth, func(extra int) float64 {
			more := slices.Clone(base)
			more[len(more)-1] += extra
			t := nz
			t.DF += extra
			return upperFactor(t, more, opts.Confidence) * nz.Sigma
		})
		r := residuals(x, bounds)
		m := map[int]float64{}
		sd := math.Sqrt(dot(r, r) / float64(len(r)))
		for i, pt := range s.Points {
			if sd > 0 {
				m[pt.Run] = r[i] / sd
			}
		}
		resid = append(resid, m)
		rep.Proposals = append(rep.Proposals, p)
	}
	if len(rep.Proposals) == 0 {
		return rep
	}
	sim := newPairSim(resid, tuneDraws)
	k := sim.quantileMax(1 - opts.FalseAlarm)
	needRuns := make([]int, len(rep.Proposals))
	for i, p := range rep.Proposals {
		tolAt := func(sigma float64) float64 { return math.Exp(k*sigma*math.Sqrt2) - 1 }
		if tolAt(p.Upper) <= MaxTolerance || tolAt(p.Noise.Sigma) > MaxTolerance {
			continue // supported, or never: 0
		}
		for extra := 1; extra <= 1<<16; extra = extra*5/4 + 1 {
			if tolAt(growth[i](extra)) <= MaxTolerance {
				needRuns[i] = p.Runs + extra
				break
			}
		}
	}
	for i := range rep.Proposals {
		p := &rep.Proposals[i]
		sd := p.Upper * math.Sqrt2
		p.NowRate = exceed(math.Log(p.Limit(p.Level)), sd)
		// Round the tolerance up to a whole percent, the floor up to a
		// readable number of ms; report the rate the rounded values give.
		// At least 1%: an endpoint that repeated itself exactly in the history
		// would otherwise get a tolerance of 0.
		p.Tolerance = max(MinTolerance, math.Ceil(100*(math.Exp(k*sd)-1)-1e-9)/100)
		p.FloorMS = niceUp(p.Level * p.Tolerance)
		if p.higherIsBetter() {
			// tokens/s: the drop the tolerance allows at today's rate
			p.FloorMS = niceUp(p.Level * p.Tolerance / (1 + p.Tolerance))
		}
		p.Twice = max(MinTolerance, math.Ceil(100*(math.Exp(k*p.Twice*math.Sqrt2)-1)-1e-9)/100)
		if p.Tolerance > MaxTolerance {
			p.Refused, p.NeedRuns = true, needRuns[i]
			p.Tolerance, p.FloorMS = p.SeriesSpec.Tolerance, p.SeriesSpec.FloorMS
		}
		p.Rate = exceed(math.Log(p.proposed(p.Tolerance, p.FloorMS)), sd)
	}
	limits := func(f func(p Proposal) float64) []float64 {
		out := make([]float64, len(rep.Proposals))
		for i, p := range rep.Proposals {
			out[i] = math.Log(f(p)) / (p.Upper * math.Sqrt2)
		}
		return out
	}
	rep.NowPerRun = sim.rate(limits(func(p Proposal) float64 { return p.Limit(p.Level) }))
	eff := rep.effective()
	rep.PerRun = sim.rate(limits(func(p Proposal) float64 {
		t, ok := eff[key(p.SeriesSpec)]
		if !ok {
			return math.Inf(1) // refused: no proposal to count
		}
		return p.proposed(t[0], t[1])
	}))
	return rep
}

// proposed is the limit a tolerance and floor give at the series' level.
func (p Proposal) proposed(tol, floor float64) float64 {
	return SeriesSpec{Metric: p.Metric, Tolerance: tol, FloorMS: floor}.Limit(p.Level)
}

// upperSigma is the upper confidence bound on σ of a series cut by bounds:
// see upperFactor. It also returns how many runs (the newest segment
// growing) would bring the bound within 25% of the estimate.
func upperSigma(x []float64, bounds []int, nz Noise, conf float64) (float64, int) {
	sizes := make([]int, 0, len(bounds)-1)
	for s := 0; s+1 < len(bounds); s++ {
		sizes = append(sizes, bounds[s+1]-bounds[s])
	}
	up := nz.Sigma * upperFactor(nz, sizes, conf)
	need := 0
	for n := len(x); n <= 1<<20; n = n*5/4 + 1 {
		more := slices.Clone(sizes)
		more[len(more)-1] += n - len(x)
		t := nz
		t.DF = nz.DF + n - len(x)
		if upperFactor(t, more, conf) <= 1.25 {
			need = n
			break
		}
	}
	return up, need
}

// upperFactor is σ_upper/σ̂ for a noise estimate (around segment means)
// from segments of the given sizes: ρ at its upper bound, ρ̂ +
// z·√((1 − ρ̂²)/DF); σ̂ re-estimated at that ρ (a segment's mean absorbs more
// of a more autocorrelated noise, so the same residuals mean a larger σ);
// and the χ² bound for a variance estimated from DF·(1 − ρ²)/(1 + ρ²)
// effective degrees of freedom (autocorrelated residuals carry less).
func upperFactor(nz Noise, sizes []int, conf float64) float64 {
	if nz.DF <= 0 {
		return math.Inf(1)
	}
	df := float64(nz.DF)
	z := stats.NormalQuantile(conf)
	rho := min(maxTuneRho, nz.Rho+z*math.Sqrt(max(1-nz.Rho*nz.Rho, 0.05)/df))
	eff := max(1, df*(1-rho*rho)/(1+rho*rho))
	var at, up float64
	mo := &moments{}
	for _, m := range sizes {
		a, _ := mo.residual(m, nz.Rho, fitMean)
		u, _ := mo.residual(m, rho, fitMean)
		at += a
		up += u
	}
	rescale := 1.0
	if up > 0 {
		rescale = math.Sqrt(at / up)
	}
	return rescale * math.Sqrt(eff/stats.Chi2Quantile(1-conf, eff))
}

// maxTuneRho bounds the autocorrelation's upper bound in Tune: beyond it a
// history is a random walk, and no tolerance learnt from it holds.
const maxTuneRho = 0.9

// residuals returns x less its fitted level in each segment of bounds.
func residuals(x []float64, bounds []int) []float64 {
	out := make([]float64, 0, len(x))
	var basis [2][]float64
	for s := 0; s+1 < len(bounds); s++ {
		lo, hi := bounds[s], bounds[s+1]
		seg := x[lo:hi]
		r := slices.Clone(seg)
		for _, b := range fitBasis(hi-lo, fitMean, &basis) {
			c := dot(b, seg)
			for i := range r {
				r[i] -= c * b[i]
			}
		}
		out = append(out, r...)
	}
	return out
}

// pairSim draws the standardised differences z_s = (e1_s − e2_s)/√2 of a
// (baseline, current) pair of runs, correlated across series as the
// history's residuals are: e = Σ_t w_t·r(t)/√T over the T runs all series
// share, w standard normal (so e has the residuals' sample correlation);
// with fewer than MinTuneRuns shared runs, the series are drawn independent
// (which gives the higher rate of any series failing).
type pairSim struct {
	maxZ []float64 // per draw, max over series of z_s (sorted)
	draw [][]float64
}

func newPairSim(resid []map[int]float64, draws int) *pairSim {
	var shared []int
	for run := range resid[0] {
		if !slices.ContainsFunc(resid[1:], func(m map[int]float64) bool { _, ok := m[run]; return !ok }) {
			shared = append(shared, run)
		}
	}
	slices.Sort(shared)
	S, T := len(resid), len(shared)
	rng := rand.New(rand.NewPCG(0x7e, uint64(S)<<32|uint64(T)))
	ps := &pairSim{}
	mat := make([][]float64, T) // mat[t][s]: run t's residual of series s, /√T
	for t, run := range shared {
		mat[t] = make([]float64, S)
		for s := range S {
			mat[t][s] = resid[s][run] / math.Sqrt(float64(T))
		}
	}
	e := func() []float64 {
		out := make([]float64, S)
		if T < MinTuneRuns {
			for s := range out {
				out[s] = rng.NormFloat64()
			}
			return out
		}
		for _, row := range mat {
			w := rng.NormFloat64()
			for s, v := range row {
				out[s] += w * v
			}
		}
		return out
	}
	for range draws {
		a, b := e(), e()
		z := make([]float64, S)
		mx := math.Inf(-1)
		for s := range z {
			z[s] = (a[s] - b[s]) / math.Sqrt2
			mx = max(mx, z[s])
		}
		ps.draw = append(ps.draw, z)
		ps.maxZ = append(ps.maxZ, mx)
	}
	slices.Sort(ps.maxZ)
	return ps
}

// quantileMax is the q quantile of max_s z_s.
func (ps *pairSim) quantileMax(q float64) float64 {
	i := min(len(ps.maxZ)-1, int(math.Ceil(q*float64(len(ps.maxZ))))-1)
	return ps.maxZ[max(i, 0)]
}

// rate is the share of draws in which some series' z_s exceeds its limit
// (in standard deviations of the pair's difference).
func (ps *pairSim) rate(limits []float64) float64 {
	over := 0
	for _, z := range ps.draw {
		for s, v := range z {
			if v > limits[s] {
				over++
				break
			}
		}
	}
	return float64(over) / float64(len(ps.draw))
}

// exceed is P(N(0, sd) > x).
func exceed(x, sd float64) float64 {
	if sd <= 0 {
		if x > 0 {
			return 0
		}
		return 1
	}
	return 0.5 * math.Erfc(x/(sd*math.Sqrt2))
}

// niceUp rounds ms up to 2 significant digits (1.25 → 1.3, 23.1 → 24).
func niceUp(ms float64) float64 {
	if ms <= 0 {
		return 0
	}
	p := math.Pow(10, math.Floor(math.Log10(ms))-1)
	return math.Ceil(ms/p-1e-9) * p
}

// CheckProposal is the proposal for one gated check across its prompts:
// the check's tolerance and floor, and the prompts that need more (overrides).
type CheckProposal struct {
	Metric    string
	Stat      stats.Stat
	Proposal  Proposal // the typical prompt's (median noise) among those with a proposal
	Overrides []Proposal
	// Refused are the series the history cannot support a tolerance for
	// (Proposal.Refused): each keeps its configured tolerance.
	Refused []Proposal
	All     []Proposal
}

type seriesKey struct {
	target, region, prompt, metric string
	stat                           stats.Stat
}

func key(s SeriesSpec) seriesKey {
	return seriesKey{s.Target, s.Region, s.Prompt, s.Metric, s.Stat}
}

// effective is each series' tolerance and floor under the proposal as
// ByCheck writes it: its override's, else its check's.
func (r TuneReport) effective() map[seriesKey][2]float64 {
	out := map[seriesKey][2]float64{}
	for _, c := range r.ByCheck() {
		for _, p := range c.All {
			out[key(p.SeriesSpec)] = [2]float64{c.Proposal.Tolerance, c.Proposal.FloorMS}
		}
		for _, p := range c.Overrides {
			out[key(p.SeriesSpec)] = [2]float64{p.Tolerance, p.FloorMS}
		}
		for _, p := range c.Refused {
			delete(out, key(p.SeriesSpec)) // no proposal: not the proposal's to count
		}
	}
	return out
}

// ByCheck groups proposals by check, in first-seen order: the check takes
// the proposal of its median-noise series, and each series that needs a
// larger tolerance or floor becomes an override.
func (r TuneReport) ByCheck() []CheckProposal {
	var out []CheckProposal
	type ck struct {
		metric string
		stat   stats.Stat
	}
	idx := map[ck]int{}
	for _, p := range r.Proposals {
		k := ck{p.Metric, p.Stat}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, CheckProposal{Metric: p.Metric, Stat: p.Stat})
		}
		out[i].All = append(out[i].All, p)
	}
	for i := range out {
		all := slices.DeleteFunc(slices.Clone(out[i].All), func(p Proposal) bool { return p.Refused })
		if len(all) == 0 {
			all = slices.Clone(out[i].All) // none supported: the check keeps its configured values
		}
		slices.SortStableFunc(all, func(a, b Proposal) int { return cmp.Compare(a.Upper, b.Upper) })
		typical := all[(len(all)-1)/2]
		out[i].Proposal = typical
		for _, p := range out[i].All {
			switch {
			case p.Refused:
				out[i].Refused = append(out[i].Refused, p)
			case p.Tolerance > typical.Tolerance || p.FloorMS > typical.FloorMS:
				out[i].Overrides = append(out[i].Overrides, p)
			}
		}
	}
	return out
}
