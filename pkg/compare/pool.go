package compare

import (
	"cmp"
	"math"
	"slices"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/stats"
)

// # The target decides
//
// A user's decision is per run, and a run gates many prompts × checks. So
// the unit of decision is the target: for each gated check, its prompts'
// changes (log ratios) are pooled into one estimate, weighted by what each
// prompt contributes (the inverse of its sampling variance), with the
// interval of the weighted mean: sampling half-widths combined as
// √(Σ wⱼ² aⱼ²), plus the day-to-day noise, which all prompts of the run share,
// once. That pooled check decides ok, inconclusive or regressed; its
// threshold is the prompts' thresholds' weighted geometric mean.
//
// Pooling must not hide a prompt. Every prompt check stays a test: regressed
// when its own change, with the same day-to-day noise, is beyond its
// tolerance after adjusting for the number of prompt tests of the target
// (Holm's step-down procedure over prompts × checks, each step at the
// boundary of its look, so the family-wise rate holds over the looks too).
// Its ok or inconclusive is then a diagnostic: it never holds the run
// undecided, but check measures a prompt whose estimate is beyond its
// tolerance again (Suspects). A prompt that cannot be pooled (a target with
// one prompt, aggregate: false, a check on the difference scale, one side
// unresolved) is decided alone and gates like a pooled check.
//
// Families: a pooled check's ok and regressed each hold at the gate's level
// for that check (α/2 per side, over all looks); the prompt tests of a target
// hold family-wise at α/2 (regressed, over all its prompts × checks and all
// looks). A run with one target at the margin (every true change exactly at
// its tolerance) is falsely called regressed at most (checks + 1) · α/2; the
// calibration matrix measures the per-run rates on unchanged endpoints.

// group is one target × check across prompts, with the check's own
// tolerance and day-to-day noise.
type group struct {
	tol   config.Tolerance
	noise DayNoise
	// wander is the run-level variance of the target's metric (see
	// Wander).
	wander runLevel
	jobs   []*job
}

// targetJobs holds one target's groups, one per gate check.
type targetJobs struct {
	groups []group
}

// decide pools each group (when aggregate is set and two prompts can be
// pooled), marks the pooled prompt checks Diagnostic, runs the target's
// Holm procedure over its prompt tests and settles every prompt check's
// verdict. It returns the pooled checks.
func (tj targetJobs) decide(aggregate bool, conf float64, d Design, est estimators) []Check {
	var pooled []Check
	for _, g := range tj.groups {
		if !aggregate {
			continue
		}
		if a, ok := g.pool(conf, d, est); ok {
			pooled = append(pooled, a)
		}
	}
	var tests []*job
	alpha := (1 - conf) / 2
	rejected := map[*job]bool{}
	type fam struct{ size, beyond int } // a prompt test's family: its tests, and conditional Holm's m′
	family := map[*job]fam{}
	for _, g := range tj.groups {
		var gt []*job
		for _, j := range g.jobs {
			if j.testable() {
				gt = append(gt, j)
			}
		}
		rej, beyond := holm(gt, alpha, d, !est.allHolm)
		for j := range rej {
			rejected[j] = true
		}
		for _, j := range gt {
			family[j] = fam{len(gt), beyond}
		}
		tests = append(tests, gt...)
	}
	for _, j := range tests {
		c := &j.check
		c.Family, c.Beyond = family[j].size, family[j].beyond
		switch {
		case rejected[j]:
			c.Verdict = Regressed
			c.More, c.Stuck = 0, ""
		case c.Verdict == Regressed:
			// Beyond its tolerance on its own interval, not after the family.
			c.Verdict = Inconclusive
			c.More, c.Stuck = 0, ""
		}
		if c.Diagnostic && c.Verdict == Inconclusive && j.pooled > 1 {
			c.Apart = j.above >= stats.NormalQuantile(1-alpha/float64(j.pooled))
		}
		if c.Diagnostic && c.Apart && lastLook(d, c.NCur) {
			// Undecided, apart from the rest of its pool, and no more
			// requests will come to settle it: pooling must not hide a
			// prompt, so it holds the run undecided.
			c.Diagnostic, c.Hidden = false, true
		}
	}
	return pooled
}

// suspect reports whether a prompt check is undecided with its estimate
// beyond its tolerance (a slowdown), or apart from the rest of its pool.
func suspect(c Check) bool {
	if c.Verdict != Inconclusive {
		return false
	}
	if c.Apart {
		return true
	}
	if c.Ratio <= 0 || c.Threshold <= 0 {
		return false
	}
	r, _, _, tau := c.Slowdown()
	return r > tau
}

// lastLook reports whether a prompt of n requests has had its last look:
// the design has no look after n.
func lastLook(d Design, n int) bool {
	if !d.Sequential() {
		return true
	}
	_, more := d.Next(n)
	return !more
}

// testable reports whether a prompt check can be tested for a regression:
// a finite interval of its change on either scale.
func (j *job) testable() bool {
	c := j.check
	return c.Rule() != RuleLimit && c.NBase > 0 && c.NCur > 0 && c.Resolved() && (c.Lo != 0 || c.Hi != 0) &&
		!math.IsInf(c.Lo, 0) && !math.IsInf(c.Hi, 0) && (c.Rule() == RuleDifference || c.Baseline > 0)
}

// zStat is a prompt test's statistic: how many standard errors of its lower
// side (slowdown direction) its estimate lies beyond its threshold, with the
// standard error read off its interval at the look's critical value.
func (j *job) zStat() float64 {
	c := j.check
	z := critical(c.level())
	if c.Scale == ScaleDifference {
		mid := c.Current - c.Baseline
		below := mid - c.Lo
		if below <= 0 {
			return certain(mid > c.Margin)
		}
		return (mid - c.Margin) / (below / z)
	}
	ratio, lo, _, tau := c.Slowdown()
	below := math.Log(ratio) - math.Log(lo)
	if below <= 0 {
		return certain(ratio > tau)
	}
	return (math.Log(ratio) - math.Log(tau)) / (below / z)
}

// certain is the statistic of a test whose interval has no width below its
// estimate (every value of a side alike, as an itl p50 of 0 ms on both
// sides when tokens share reads): beyond the threshold for certain when the
// estimate is, and for certain not when it is not. (Reading every such test
// as +Inf once failed an unchanged run on "itl p50 0.00 ms → 0.00 ms
// [+0.00, +0.27 ms]".)
func certain(beyond bool) float64 {
	if beyond {
		return math.Inf(1)
	}
	return math.Inf(-1)
}

// holm runs Holm's step-down procedure over tests at family-wise one-sided
// level alpha: in decreasing order of their statistic, the i-th of m is
// rejected when it reaches the boundary of its look at level α/(m − i + 1),
// and the procedure stops at the first that does not.
//
// Conditional Holm (cond, for three tests or more; Zhao, Small & Su,
// JASA 2019): a prompt whose estimate lies within its tolerance (z ≤ 0)
// cannot be rejected, and under its null (a change at most its tolerance)
// its p-value is uniformly conservative — the further within, the more —
// so Holm runs over the m′ prompts whose estimate is beyond their
// tolerance, at α/2: the closure of the conditional Bonferroni test, whose
// local tests hold α for independent tests (and positive dependence, as
// the day's level shared by every prompt, only raises m′ when a prompt
// would be rejected). Typically one prompt of ten is beyond: it is tested
// at α/2, where plain Holm's first step is α/10; when most are beyond, the
// pooled check decides. With one or two tests plain Holm is as lenient or
// more. beyond is m′, or 0 when plain Holm ran.
func holm(tests []*job, alpha float64, d Design, cond bool) (rejected map[*job]bool, beyond int) {
	type t struct {
		j *job
		z float64
	}
	ts := make([]t, len(tests))
	for i, j := range tests {
		ts[i] = t{j, j.zStat()}
	}
	slices.SortStableFunc(ts, func(a, b t) int { return cmp.Compare(b.z, a.z) })
	out := map[*job]bool{}
	m := len(ts)
	if cond && m >= 3 {
		m = 0
		for _, x := range ts {
			if x.z > 0 {
				m++
			}
		}
		alpha /= 2
		beyond = m
	}
	for i, x := range ts {
		c := x.j.check
		if m-i <= 0 || x.z < x.j.designIn(d).Critical(alpha/float64(m-i), c.NBase, max(c.Look-1, 0)) {
			break
		}
		out[x.j] = true
	}
	return out, beyond
}

// designIn is the design the job's levels came from: d with the job's
// shared day-to-day noise when estimate set one, else d.
func (j *job) designIn(d Design) Design {
	if j.design.shared > 0 {
		d.shared = j.design.shared
	}
	return d
}

// pool forms the group's pooled check from its poolable prompts (ratio
// scale, finite sampling interval); ok is false with fewer than two.
func (g group) pool(conf float64, d Design, est estimators) (Check, bool) {
	var use []*job
	for _, j := range g.jobs {
		if j.poolable {
			use = append(use, j)
		}
	}
	if len(use) < 2 {
		return Check{}, false
	}
	t := use[0].check
	a := Check{
		Target: t.Target, Region: t.Region, Metric: t.Metric, Stat: t.Stat,
		Confidence: conf, OkConfidence: t.OkConfidence, Tolerance: g.tol, DayNoise: g.noise.Sigma, DayRuns: g.noise.Runs, DayLag: g.noise.Lag, DayDF: g.noise.DF, DayFrom: g.noise.From,
	}
	nb := use[0].check.NBase
	for _, j := range use {
		a.Prompts = append(a.Prompts, j.check.Prompt)
		a.NBase += j.check.NBase
		a.NCur += j.check.NCur
		a.GapsBase += j.check.GapsBase
		a.GapsCur += j.check.GapsCur
		a.Look = max(a.Look, j.check.Look)
		nb = min(nb, j.check.NBase)
	}
	if d.Sequential() {
		// The pool has looked as often as its most-looked prompt, and its
		// information is bounded by its smallest baseline.
		a.Looks = len(d.Looks)
		a.Level = d.Confidence(conf, nb, a.Look-1)
		a.OkLevel = d.okLevel(a.OkConfidence, nb, a.Look-1)
	}
	day := dayRatioSigma(g.noise.Sigma)
	zl, zh := a.ends()
	parts, theta, vb, va := g.poolParts(use, zl, zh, est)
	if ds := d.Shared(day*day+g.wander.base, perRequest(math.Sqrt(vb)/zl, math.Sqrt(va)/zh, g.wander.cur, nb, poolCur(use))); ds.shared > 0 {
		// The day's level is shared by every look of the pool too.
		a.Level = ds.Confidence(conf, nb, a.Look-1)
		a.OkLevel = ds.okLevel(a.OkConfidence, nb, a.Look-1)
		zl, zh = a.ends()
		parts, theta, vb, va = g.poolParts(use, zl, zh, est)
	}
	var lb, lt float64
	for i, j := range use {
		p := parts[i]
		j.check.Diagnostic, j.check.Weight = true, p.w
		j.pooled = len(use)
		lt += p.w * math.Log(j.check.Threshold)
	}
	// How far each prompt lies above the pool, in standard errors of the
	// difference (sampling only: the day's level is shared, so it cancels).
	var vpool float64
	for i := range use {
		sd := parts[i].below / zl
		vpool += parts[i].w * parts[i].w * sd * sd
	}
	for i, j := range use {
		sd := parts[i].below / zl
		if v := sd*sd*(1-2*parts[i].w) + vpool; v > 0 {
			j.above = (parts[i].theta - theta) / math.Sqrt(v)
		}
	}
	a.RunNoise = math.Sqrt(g.wander.total())
	sl := math.Hypot(dayCrit(zl, g.noise.DF)*day, zl*a.RunNoise)
	sh := math.Hypot(dayCrit(zh, g.noise.DF)*day, zh*a.RunNoise)
	// The pooled row's reference level is the geometric mean of the
	// baseline statistics of every prompt of the check, equally weighted:
	// it depends on the baseline file and the prompts the run measured
	// alone, so it reads the same in every run of those prompts against
	// it, whichever of them a run could pool (weighted by the run's
	// variances it moved 19.2 → 24.0 → 19.3 ms, #33). Its current is
	// that level times the pooled change: baseline × change = current.
	var nb0 int
	for _, j := range g.jobs {
		if j.check.Baseline > 0 {
			lb += math.Log(j.check.Baseline)
			nb0++
		}
	}
	lb /= float64(nb0)
	a.Ratio = math.Exp(theta)
	a.Baseline, a.Threshold = math.Exp(lb), math.Exp(lt)
	a.Current = a.Baseline * a.Ratio
	a.Lo, a.Hi = math.Exp(theta-math.Sqrt(vb+sl*sl)), math.Exp(theta+math.Sqrt(va+sh*sh))
	if use[0].check.Estimator != "" && !slices.ContainsFunc(use, func(j *job) bool { return j.check.Estimator != use[0].check.Estimator }) {
		a.Estimator = use[0].check.Estimator
	}
	a.decide()
	return a, true
}

// poolPart is one prompt's share of a pool: its log change, its sampling
// half-widths below and above, and its normalised weight.
type poolPart struct{ theta, below, above, w float64 }

// poolParts returns each pooled prompt's part at critical values zl and
// zh, and the pool's change and the variances of its half-widths below
// and above (sampling only): the weighted mean with weights the inverse of
// each prompt's sampling variance (equal under the experiment).
func (g group) poolParts(use []*job, zl, zh float64, est estimators) (parts []poolPart, theta, vb, va float64) {
	parts = make([]poolPart, len(use))
	var wsum float64
	for i, j := range use {
		th, below, above, _ := j.change(zl, zh)
		w := 1.0
		if !est.equalWeights {
			sd := (below/zl + above/zh) / 2
			w = 1 / (sd * sd)
		}
		parts[i] = poolPart{th, below, above, w}
		wsum += w
	}
	for i := range parts {
		p := &parts[i]
		p.w /= wsum
		theta += p.w * p.theta
		vb += p.w * p.w * p.below * p.below
		va += p.w * p.w * p.above * p.above
	}
	return parts, theta, vb, va
}

// poolCur is the current requests behind a pool's look: its prompts'
// smallest count (its information, as its baseline's, is bounded by the
// smallest).
func poolCur(use []*job) int {
	n := use[0].check.NCur
	for _, j := range use {
		n = min(n, j.check.NCur)
	}
	return n
}

// change returns a poolable prompt check's estimated log change and its
// sampling half-widths (no day-to-day noise), below at critical value zl
// and above at zh, and whether it is the Hodges–Lehmann shift.
func (j *job) change(zl, zh float64) (theta, below, above float64, hl bool) {
	if s, ok := j.hlShift(zl, zh); ok {
		return s[0], s[1], s[2], true
	}
	// The change's low end pairs the current side's low end with the
	// baseline's high end (both at zl); its high end the other two (at zh).
	ac, _ := j.sc.logWidths(j.cur, zl)
	_, bb := j.sb.logWidths(j.base, zl)
	ab, _ := j.sb.logWidths(j.base, zh)
	_, bc := j.sc.logWidths(j.cur, zh)
	below, above = mover(ac, bc, ab, bb)
	return math.Log(j.check.Current / j.check.Baseline), below, above, false
}
