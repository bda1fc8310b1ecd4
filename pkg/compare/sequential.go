package compare

import (
	"math"
	"slices"
	"sync"

	"github.com/latgate/latgate/pkg/stats"
)

// # Sequential looks
//
// check measures run.requests per prompt, compares, and, while some check is
// undecided (inconclusive) and run.max_requests allows, measures another
// round for the prompts that hold undecided checks and compares again. Every
// look is a chance to cross the tolerance by luck, so the interval of a look
// is a repeated confidence interval (Jennison & Turnbull): its confidence is
// raised so that the intervals of all planned looks cover the true ratio at
// once with at least the gate's confidence, whatever the stopping rule. The
// per-look levels come from a Lan–DeMets alpha-spending function: each tail
// of the gate's two-sided level (α/2 = 2.5% at 95%) is spent over the looks
// as α/2 · ln(1 + (e−1)·t) (the Pocock-type function: nearly even, so the
// first look, where most checks are decided, pays little), t being the
// share of the final look's information a look has.
//
// Information. The baseline is measured once; only the current side grows.
// A look's estimate is then the truth plus the baseline's error (shared by
// every look) plus the current side's error at nₖ requests, whose variance
// falls as 1/nₖ; so Var(look k) = v(1/n_b + 1/nₖ) (equal per-request
// variance on both sides: an unchanged endpoint) and Cov(look j, look k) =
// Var(look max(j,k)) — exactly a Brownian motion in information
// Iₖ = 1/(1/n_b + 1/nₖ). The spending function is evaluated at
// tₖ = Iₖ/I_K and the boundaries computed for that process by numerical
// integration (Armitage, McPherson & Rowe). When the current side is
// noisier than the baseline the true fractions are closer together, the
// looks more correlated, and the boundaries conservative (Slepian).
//
// A variance every look shares. The day-to-day noise (the difference of
// the baseline's day and today's) is in every look's estimate and does not
// shrink with requests: Var(look k) = v(1/n_b + 1/nₖ) + F, and still
// Cov(look j, look k) = Var(look max(j,k)), so the looks are the same
// Brownian motion in information Iₖ = 1/(1/n_b + 1/nₖ + f), f = F/v (the
// shared variance in units of one request's). Where F dominates the looks
// nearly repeat each other, the fractions tₖ are close to 1, and the first
// look spends nearly all of the level: its boundary is nearly the
// fixed-sample one. Taking f as 0 there spent the level as if the looks
// were independent samples, and left the ok end at 93.6% where 90% holds
// (#29: a check the day's level keeps undecided is held by the level the
// design spends, not by its information).

// Design is the plan of looks of a sequential check: the cumulative number
// of requests per prompt at each look, the first being run.requests and the
// last run.max_requests. A Design with one look is a fixed-sample test at
// the gate's confidence.
type Design struct {
	Looks []int
	// spend is the spending function (nil: Pocock-type), for the
	// calibration's experiments.
	spend func(float64) float64
	// levels caches the per-look confidences by gate confidence,
	// baseline requests and shared variance (computing them integrates
	// numerically).
	levels *levelCache
	// shared is f: the variance every look shares beyond the baseline's
	// sampling (the day-to-day noise, and the baseline's run-level noise),
	// in units of one request's sampling
	// variance, rounded (sharedStep) so that a check's levels come from a
	// few cached designs; 0 for none. See Shared.
	shared float64
}

type levelCache struct {
	mu sync.Mutex
	m  map[levelKey][]float64 // critical values by one-sided level and baseline size
}

type levelKey struct {
	alpha  float64 // one-sided
	nBase  int
	shared float64
}

// FixedDesign is a single look: no sequential rounds.
func FixedDesign() Design { return Design{} }

// NewDesign plans looks from first to last requests per prompt in rounds of
// about half the first look (so 60 → 90 → 120 …). last ≤ first gives a single
// look.
func NewDesign(first, last int) Design {
	if first <= 0 || last <= first {
		return Design{Looks: []int{max(first, 0)}}
	}
	cache := &levelCache{m: map[levelKey][]float64{}}
	step := max(1, (first+1)/2)
	var looks []int
	for n := first; n < last; n += step {
		looks = append(looks, n)
	}
	return Design{Looks: append(looks, last), levels: cache}
}

// Shared returns the design of a check whose every look also carries a
// variance shared (the day-to-day noise, the baseline's run level), when one
// request's sampling variance is perRequest: its boundaries spend the level
// over the looks' true information (see "A variance every look shares").
// f = shared/perRequest is rounded to a step of 5% on the log scale
// (sharedStep), so that every check of a run draws from a few cached
// designs and the same samples always give the same levels; below 1e-4
// (less than the sampling variance of a 10 000-request side) it is 0.
func (d Design) Shared(shared, perRequest float64) Design {
	d.shared = 0
	if !d.Sequential() || !(shared > 0) || !(perRequest > 0) || math.IsInf(shared, 0) || math.IsInf(perRequest, 0) {
		return d
	}
	f := shared / perRequest
	if f < 1e-4 {
		return d
	}
	d.shared = math.Exp(math.Round(math.Log(f)/sharedStep) * sharedStep)
	return d
}

// sharedStep is the rounding of Design.Shared's f on the log scale: 5%.
const sharedStep = 0.05

// Sequential reports whether the design has more than one look.
func (d Design) Sequential() bool { return len(d.Looks) > 1 }

// Last is the cap: the requests per prompt at the final look (0 when the
// design has no looks).
func (d Design) Last() int {
	if len(d.Looks) == 0 {
		return 0
	}
	return d.Looks[len(d.Looks)-1]
}

// Look returns the 0-based look that n current requests belong to: the
// first planned look with at least n requests, so a look a few failed
// requests short still counts as taken (the last look for n beyond the cap).
func (d Design) Look(n int) int {
	for i, m := range d.Looks {
		if n <= m {
			return i
		}
	}
	return max(len(d.Looks)-1, 0)
}

// Next returns the requests per prompt of the look after the one n belongs
// to, and false when that was the last.
func (d Design) Next(n int) (int, bool) {
	k := d.Look(n) + 1
	if k >= len(d.Looks) {
		return 0, false
	}
	return d.Looks[k], true
}

// Confidence returns the two-sided confidence of the repeated interval at
// look k for a prompt whose baseline has nBase requests, at the gate's
// overall confidence conf. With a single look it is conf.
func (d Design) Confidence(conf float64, nBase, k int) float64 {
	if !d.Sequential() || nBase <= 0 {
		return conf
	}
	lv := d.Levels(conf, nBase)
	return lv[min(max(k, 0), len(lv)-1)]
}

// Levels returns the two-sided confidence of the repeated interval at each
// look, for a prompt whose baseline has nBase requests.
func (d Design) Levels(conf float64, nBase int) []float64 {
	c := d.critical((1-conf)/2, nBase)
	lv := make([]float64, len(c))
	for i, ci := range c {
		lv[i] = 1 - 2*(1-stats.NormalCDF(ci))
	}
	return lv
}

// Critical returns the critical value (standard normal units) of look k
// for a one-sided test at level alpha over all the design's looks, for a
// prompt whose baseline has nBase requests: a statistic at or beyond it
// rejects. With a single look it is the fixed-sample z of alpha.
func (d Design) Critical(alpha float64, nBase, k int) float64 {
	if !d.Sequential() || nBase <= 0 {
		return stats.NormalQuantile(1 - alpha)
	}
	c := d.critical(alpha, nBase)
	return c[min(max(k, 0), len(c)-1)]
}

// okLevel is the one-sided level of an interval's ok end at look k, at an
// overall one-sided okConf over the design's looks (spent as the regression
// end's α is); 0 for a single look (then okConf itself) or okConf unset.
func (d Design) okLevel(okConf float64, nBase, k int) float64 {
	if okConf <= 0 || okConf >= 1 || !d.Sequential() || nBase <= 0 {
		return 0
	}
	return stats.NormalCDF(d.Critical(1-okConf, nBase, k))
}

// critical returns the critical values of every look, cached.
func (d Design) critical(alpha float64, nBase int) []float64 {
	k := levelKey{alpha, nBase, d.shared}
	if d.levels != nil {
		d.levels.mu.Lock()
		defer d.levels.mu.Unlock()
		if c, ok := d.levels.m[k]; ok {
			return c
		}
	}
	c := d.bounds(1-2*alpha, nBase)
	if d.levels != nil {
		d.levels.m[k] = c
	}
	return c
}

// bounds returns the critical values (standard normal units) of each look.
func (d Design) bounds(conf float64, nBase int) []float64 {
	K := len(d.Looks)
	info := func(n int) float64 { return 1 / (1/float64(nBase) + 1/float64(max(n, 1)) + d.shared) }
	last := info(d.Looks[K-1])
	t := make([]float64, K)
	for k, n := range d.Looks {
		t[k] = info(n) / last
	}
	spend := d.spend
	if spend == nil {
		spend = pocockSpend
	}
	return boundaries(t, (1-conf)/2, spend)
}

// pocockSpend is the Lan–DeMets Pocock-type spending function: the share of
// α spent by information fraction t.
func pocockSpend(t float64) float64 { return math.Log(1 + (math.E-1)*min(max(t, 0), 1)) }

// boundaries returns one-sided critical values c₁…c_K for looks at
// increasing information fractions t (the last 1) of a standard Brownian
// motion B, such that P(B(tⱼ)/√tⱼ < cⱼ for j < k, B(tₖ)/√tₖ ≥ cₖ) =
// a·(spend(tₖ) − spend(tₖ₋₁)). The density of B on the continuation region
// is carried on a grid between looks and integrated with Simpson's rule.
func boundaries(t []float64, a float64, spend func(float64) float64) []float64 {
	c := make([]float64, len(t))
	if len(t) == 0 || a <= 0 {
		return c
	}
	const m = 301 // grid points (odd, for Simpson)
	c[0] = stats.NormalQuantile(1 - a*spend(t[0]))
	if len(t) == 1 {
		return c
	}
	// Grid on (lo, b] where b = c·√t is the boundary in B units.
	b := c[0] * math.Sqrt(t[0])
	lo := -8 * math.Sqrt(t[len(t)-1])
	xs, f := grid1(lo, b, m), make([]float64, m)
	for i, x := range xs {
		f[i] = stats.NormalPDF(x/math.Sqrt(t[0])) / math.Sqrt(t[0])
	}
	spent := a * spend(t[0])
	for k := 1; k < len(t); k++ {
		sd := math.Sqrt(t[k] - t[k-1])
		target := a*spend(t[k]) - spent
		w := simpson(xs)
		// cross(b) is the probability of surviving to look k-1 and being at
		// or above b at look k.
		cross := func(bk float64) float64 {
			var s float64
			for i, x := range xs {
				s += w[i] * f[i] * (1 - stats.NormalCDF((bk-x)/sd))
			}
			return s
		}
		var bk float64
		if target <= 0 {
			bk = math.Inf(1)
			c[k] = math.Inf(1)
		} else {
			l, h := lo, 12.0*math.Sqrt(t[k])
			for range 100 {
				mid := (l + h) / 2
				if cross(mid) > target {
					l = mid
				} else {
					h = mid
				}
			}
			bk = (l + h) / 2
			c[k] = bk / math.Sqrt(t[k])
			spent += cross(bk)
		}
		if k == len(t)-1 {
			break
		}
		// Carry the surviving density to look k: f_k(y) = ∫ f(x) φ((y−x)/sd)/sd dx on y < bk.
		top := min(bk, 12*math.Sqrt(t[k]))
		ys := grid1(lo, top, m)
		g := make([]float64, m)
		for j, y := range ys {
			var s float64
			for i, x := range xs {
				s += w[i] * f[i] * stats.NormalPDF((y-x)/sd)
			}
			g[j] = s / sd
		}
		xs, f = ys, g
	}
	return c
}

// grid1 returns m equally spaced points from lo to hi.
func grid1(lo, hi float64, m int) []float64 {
	xs := make([]float64, m)
	for i := range xs {
		xs[i] = lo + (hi-lo)*float64(i)/float64(m-1)
	}
	return xs
}

// simpson returns Simpson's-rule weights for equally spaced xs (odd count).
func simpson(xs []float64) []float64 {
	n := len(xs)
	h := (xs[n-1] - xs[0]) / float64(n-1)
	w := make([]float64, n)
	for i := range w {
		switch {
		case i == 0 || i == n-1:
			w[i] = h / 3
		case i%2 == 1:
			w[i] = 4 * h / 3
		default:
			w[i] = 2 * h / 3
		}
	}
	return w
}

// Undecided returns the gated checks and aggregates of rep that another
// look could still decide: inconclusive ones with data on both sides that
// are not Diagnostic (a prompt check pooled into its target's check). A
// check whose baseline lacks data, or whose metric vanished from the
// current run, is not undecided in this sense: more requests cannot
// resolve it.
func Undecided(rep Report) []Check {
	var out []Check
	for _, c := range slices.Concat(rep.Checks, rep.Aggregates) {
		if c.Verdict == Inconclusive && !c.Diagnostic && c.NCur > 0 && (c.Absolute() || c.NBase > 0 && (c.Baseline > 0 || c.Rule() == RuleDifference || c.Rule() == RuleShare)) {
			out = append(out, c)
		}
	}
	return out
}

// Suspects returns the diagnostic prompt checks of rep whose estimate is
// beyond their tolerance without being a regression after the family's
// adjustment, or that lie apart from their pool (Check.Apart): a slowdown
// of one prompt that pooling would not show, which another look may
// confirm. They do not hold the run undecided before their last look.
func Suspects(rep Report) []Check {
	var out []Check
	for _, c := range rep.Checks {
		if c.Diagnostic && suspect(c) {
			out = append(out, c)
		}
	}
	return out
}

// Round is the decision between two looks: which prompts of which targets to
// measure again, how many requests each should reach, and why.
type Round struct {
	// Prompts maps a target key (name, region) to prompt ids to extend.
	Prompts map[TargetID][]string
	// Requests maps a target key to the cumulative requests each of its
	// listed prompts needs: the next look after its own.
	Requests map[TargetID]map[string]int
	// To is the most cumulative requests per prompt the round needs.
	To int
	// Look is the 0-based index of the next look, of Looks in all.
	Look, Looks int
	// Why lists the undecided checks, worst first, then the suspects.
	Why []Check
}

// TargetID names a target on both sides of a comparison.
type TargetID struct{ Name, Region string }

// NextRound decides whether to look again: it returns the round to measure
// and true while some gated check is undecided (or a prompt is suspect, see
// Suspects), more requests could decide it (Stuck is not "day-to-day") and
// its prompts are below the design's cap. An undecided pooled
// check extends every prompt it combines, each to the look after its own.
// The decision is pure: the caller measures, merges and compares again.
func NextRound(rep Report, d Design) (Round, bool) {
	if !d.Sequential() || rep.Verdict == Regressed {
		// A regression already decides the run: more requests cannot
		// change its exit code, only its cost.
		return Round{}, false
	}
	r := Round{Prompts: map[TargetID][]string{}, Requests: map[TargetID]map[string]int{}, Looks: len(d.Looks)}
	add := func(id TargetID, p string, n int) bool {
		to, ok := d.Next(n)
		if !ok {
			return false
		}
		if !slices.Contains(r.Prompts[id], p) {
			r.Prompts[id] = append(r.Prompts[id], p)
		}
		if r.Requests[id] == nil {
			r.Requests[id] = map[string]int{}
		}
		r.Requests[id][p] = max(r.Requests[id][p], to)
		r.To = max(r.To, to)
		r.Look = max(r.Look, d.Look(to))
		return true
	}
	curN := promptRequests(rep)
	for _, c := range slices.Concat(Undecided(rep), Suspects(rep)) {
		if c.Stuck == StuckRunner || c.Stuck == StuckSchedule {
			continue // more requests on the same busy runner read as late
		}
		if c.Stuck == StuckDayToDay && !c.Apart {
			// More requests cannot narrow the day-to-day noise; a prompt
			// apart from its pool is compared with the others of its run,
			// whose day it shares, so they can.
			continue
		}
		id := TargetID{c.Target, c.Region}
		extended := false
		if c.Prompt != "" {
			extended = add(id, c.Prompt, curN[promptKey{id, c.Prompt}])
		} else {
			for _, p := range c.Prompts {
				extended = add(id, p, curN[promptKey{id, p}]) || extended
			}
		}
		if extended {
			r.Why = append(r.Why, c)
		}
	}
	for id := range r.Prompts {
		slices.Sort(r.Prompts[id])
	}
	return r, len(r.Why) > 0
}

type promptKey struct {
	t TargetID
	p string
}

// promptRequests returns the current requests per target × prompt: as
// measured (rep.Measured), else the most any check of the prompt counted.
// The compared count alone would plan a look the results already reached
// when a cold head was left out of the comparison.
func promptRequests(rep Report) map[promptKey]int {
	out := map[promptKey]int{}
	for _, c := range rep.Checks {
		k := promptKey{TargetID{c.Target, c.Region}, c.Prompt}
		out[k] = max(out[k], c.NCur)
	}
	for id, prompts := range rep.Measured {
		for p, n := range prompts {
			k := promptKey{id, p}
			out[k] = max(out[k], n)
		}
	}
	return out
}

// measuredOf is the requests each prompt of s holds, per target.
func measuredOf(s Side) map[TargetID]map[string]int {
	out := make(map[TargetID]map[string]int, len(s.Targets))
	for _, t := range s.Targets {
		m := make(map[string]int, len(t.Prompts))
		for _, p := range t.Prompts {
			m[p.ID] = max(p.Requests, len(p.Samples)+len(p.Failures))
		}
		out[TargetID{t.Name, t.Region}] = m
	}
	return out
}
