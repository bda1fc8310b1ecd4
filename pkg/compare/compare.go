package compare

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

// Defaults used when the gate leaves Confidence or Resamples unset.
const (
	DefaultConfidence = 0.95
	DefaultResamples  = 2000
)

// Side is one run to compare: its settings and targets with raw samples.
type Side struct {
	Run     results.Run
	Targets []results.Target
}

// Verdict is the outcome of one check.
type Verdict string

// Verdicts, from worst to best.
const (
	Regressed    Verdict = "regressed"
	Inconclusive Verdict = "inconclusive"
	OK           Verdict = "ok"
	Improved     Verdict = "improved"
	// Unbaselined marks a check of a prompt or target the baseline does not
	// have (Report.New): measured, reported, not gated.
	Unbaselined Verdict = "new"
)

// rank orders verdicts worst first.
func (v Verdict) rank() int {
	switch v {
	case Regressed:
		return 0
	case Inconclusive:
		return 1
	case OK:
		return 2
	case Improved:
		return 3
	}
	return 1
}

// Check is the result of one target × prompt × metric × statistic, or of one
// target's pooled check across prompts (Prompt empty, Prompts listing the
// prompts pooled).
type Check struct {
	Target string `json:"target"`
	Region string `json:"region,omitempty"`
	Prompt string `json:"prompt,omitempty"`
	// Prompts lists the prompts a pooled check combines.
	Prompts []string `json:"prompts,omitempty"`
	Metric  string   `json:"metric"`
	Stat    string   `json:"stat"`
	// Baseline and Current are the statistic on each side, in milliseconds
	// (tokens per second for tokens_per_s; the JSON names keep _ms); of a
	// pooled check, their geometric means weighted as the prompts are.
	Baseline float64 `json:"baseline_ms"`
	Current  float64 `json:"current_ms"`
	// Ratio is the estimated change current/baseline (Current/Baseline, or
	// the Hodges–Lehmann shift for Estimator "hl"); Lo and Hi bound it at
	// Level (Confidence for a single look), the day-to-day noise included.
	// All three are 0 when undefined (no data, or a zero baseline). On the
	// difference scale (Scale "difference") Lo and Hi bound current −
	// baseline in milliseconds and Ratio is 0.
	Ratio      float64 `json:"ratio"`
	Lo         float64 `json:"lo"`
	Hi         float64 `json:"hi"`
	Confidence float64 `json:"confidence"`
	// OkConfidence is the one-sided confidence of the interval's ok end (Hi
	// of a duration, Lo of tokens_per_s: what an ok or an improvement
	// reads), the regression end being at Confidence's one-sided level
	// (97.5% at 95%); OkLevel is that end's level at this look. Both 0:
	// symmetric, the ok end at the regression end's level (limits, SLO
	// shares, files from before ok_confidence). OkLevel is one-sided (Level
	// is two-sided).
	OkConfidence float64 `json:"ok_confidence,omitempty"`
	OkLevel      float64 `json:"ok_level,omitempty"`
	// Threshold is the regression threshold on the ratio current/baseline:
	// for a duration 1 + max(Tolerance.Rel, Tolerance.Floor/Baseline), above
	// which it regressed; for tokens_per_s 1/RateThreshold, below which it
	// regressed; of a pooled check, the prompts' thresholds' weighted
	// geometric mean.
	Threshold float64          `json:"threshold"`
	Tolerance config.Tolerance `json:"tolerance"`
	// Scale is "difference" for a check decided on current − baseline in
	// milliseconds against Margin (a side's interval reaches 0 ms: chunks
	// that share one socket read have a gap of 0), empty for the ratio.
	Scale  string  `json:"scale,omitempty"`
	Margin float64 `json:"margin_ms,omitempty"`
	// Estimator is "hl" when the change is the Hodges–Lehmann shift of log
	// latency (see Estimators), empty for the ratio of the statistics.
	Estimator string `json:"estimator,omitempty"`
	// NBase and NCur count requests (for itl, requests with at least one gap);
	// GapsBase and GapsCur count the pooled itl gaps.
	NBase    int `json:"n_base"`
	NCur     int `json:"n_cur"`
	GapsBase int `json:"gaps_base,omitempty"`
	GapsCur  int `json:"gaps_cur,omitempty"`
	// Need is the fewest values (requests; for itl, gaps) each side needs for
	// the statistic to be resolved at this look's level; NeedRequests the
	// fewest requests for itl.
	Need         int `json:"need"`
	NeedRequests int `json:"need_requests,omitempty"`
	// Look is the 1-based look of a sequential design the interval belongs
	// to, of Looks planned (both 0 for a fixed-sample comparison). Level is
	// then the two-sided level of this look's interval, above Confidence so
	// that the intervals of all planned looks hold together at Confidence
	// (a repeated confidence interval; see Design).
	Look  int     `json:"look,omitempty"`
	Looks int     `json:"looks,omitempty"`
	Level float64 `json:"level,omitempty"`
	// DayNoise is the day-to-day noise in the interval: σ of ln(a run's
	// level), learned from DayRuns runs of the history (0: assumed, the
	// gate's day_to_day).
	DayNoise float64 `json:"day_noise,omitempty"`
	DayRuns  int     `json:"day_runs,omitempty"`
	// DayLag is, when the history's levels wander (are autocorrelated),
	// the baseline's age in runs DayNoise was read at (DayNoise.Lag).
	DayLag int `json:"day_lag,omitempty"`
	// DayDF is DayNoise's degrees of freedom as an estimate (DayNoise.DF:
	// the day-to-day part of the interval takes Student's t at DayDF); 0
	// when it is taken as known.
	DayDF int `json:"day_df,omitempty"`
	// DayFrom is, when DayNoise was learned from another statistic of the
	// metric than Stat (its p50: a history older than the statistic), that
	// statistic (DayNoise.From).
	DayFrom string `json:"day_from,omitempty"`
	// RunNoise is the run-level noise in the interval: σ (log units) of
	// the difference of the two sides' run levels beyond independent
	// requests, from requests correlated in arrival order (see Wander;
	// 0: none found).
	RunNoise float64 `json:"run_noise,omitempty"`
	// Diagnostic marks a prompt check pooled into its target's check: its ok
	// or inconclusive informs, the pooled check decides; only a regression
	// adjusted for the target's prompt tests (Family, Holm) fails the run.
	Diagnostic bool `json:"diagnostic,omitempty"`
	// Apart marks an undecided prompt check pooled into its target's
	// check whose change lies above its pool's by more than
	// Φ⁻¹(1 − α/2/m) standard errors of the difference (m prompts pooled;
	// sampling error only: the day's level is shared): a prompt pooling
	// would hide. Check measures it again (Suspects); at its last look it
	// is Hidden: no longer Diagnostic, it holds the run undecided, naming
	// the prompt, where the run would have passed quietly.
	Apart  bool `json:"apart,omitempty"`
	Hidden bool `json:"hidden,omitempty"`
	// Family is the number of prompt tests a regression of this check was
	// adjusted for (Holm across the target's prompts × checks), 0 for a
	// pooled check (its own level) or when nothing was adjusted. Weight is
	// the prompt's share of its pooled check's estimate.
	Family int     `json:"family,omitempty"`
	Weight float64 `json:"weight,omitempty"`
	// Beyond is, when the family was tested by conditional Holm (three
	// prompt tests or more, see holm), how many of them had an estimate
	// beyond their tolerance at this look: Holm ran over those at half the
	// level. 0 otherwise.
	Beyond int `json:"beyond,omitempty"`
	// More estimates, for an inconclusive check, how many more current
	// requests would decide it (-1: none would; Stuck says why: "baseline",
	// its own noise or size, or "day-to-day" noise).
	More  int    `json:"more_requests,omitempty"`
	Stuck string `json:"stuck,omitempty"`
	// RunnerLag is, for a check Stuck on the runner, how late latgate's
	// runner woke (results.Lateness.Lag, ms): a regression of that order
	// may be latgate's own delay.
	RunnerLag float64 `json:"runner_lag_ms,omitempty"`
	Verdict   Verdict `json:"verdict"`
	// Reason is Summary(): the verdict as one human sentence.
	Reason string `json:"reason"`
	// Changed is what changed since the baseline for this check (see
	// Pair); empty when nothing did. Labels are their words, which
	// internal/report sets for a results file (WithReasons): "model a →
	// b", "edited", ….
	Changed []Change `json:"-"`
	Labels  []string `json:"labels,omitempty"`
	// Max, when positive, makes this a limit check (gate `max:`): the
	// current statistic against an absolute limit in milliseconds, with no
	// baseline. Lo and Hi then bound the current statistic itself, in
	// milliseconds, and Baseline, Ratio and Threshold are 0 (see DecideLimit).
	Max float64 `json:"max_ms,omitempty"`
	// Min, when positive, is the least share a share check allows (gate
	// `min:`, see share.go): Lo and Hi then bound the current share.
	Min float64 `json:"min,omitempty"`
	// Why is, for a regression, what moved with it (see Explain); nil when
	// it was not attributed.
	Why *results.Attribution `json:"why,omitempty"`
	// Def is the rule beyond the five that made this check (Setup.Rules),
	// nil for the five; Kind is its name, which a results file keeps.
	Def  RuleDef `json:"-"`
	Kind Rule    `json:"rule,omitempty"`
}

// Report is the outcome of a comparison.
type Report struct {
	// Verdict is the run's verdict: regressed when a pooled check, a
	// limit, or a prompt check adjusted for its family regressed; else
	// inconclusive when a gated check (pooled, a prompt decided alone, a
	// limit) is undecided; else ok (improved when every gated check
	// improved). Diagnostic prompt checks never make it inconclusive.
	Verdict Verdict `json:"verdict"`
	// Checks and Aggregates are sorted worst first: regressed by size of
	// change, then inconclusive, ok, and improved (largest improvement first).
	// Aggregates are the targets' pooled checks.
	Checks     []Check `json:"checks"`
	Aggregates []Check `json:"aggregates,omitempty"`
	// Warnings are the gate's warnings (Found), as internal/report words
	// them, and the notes the application adds: what every output shows,
	// and what a results file carries.
	Warnings []string `json:"warnings,omitempty"`
	// Found are the gate's own warnings, as values (a results file carries
	// their words, in Warnings).
	Found []Warning `json:"-"`
	// Changes lists every difference between the baseline and this run
	// (Pair); New holds the measured values of the prompts and targets that
	// have no baseline, one per check, Verdict Unbaselined: never gated.
	Changes []Change `json:"changes,omitempty"`
	New     []Check  `json:"new,omitempty"`
	// Seed and Resamples are the gate's settings, kept for files written
	// when the intervals were bootstrapped; the intervals are analytic now.
	Seed       int64   `json:"seed"`
	Resamples  int     `json:"resamples"`
	Confidence float64 `json:"confidence"`
	// OkConfidence is the gate's ok_confidence: the one-sided level of each
	// relative check's ok end (0: symmetric intervals at Confidence).
	OkConfidence float64 `json:"ok_confidence,omitempty"`
	// Measured is the requests (samples and failures) each prompt of the
	// current side holds as measured, a cold head left out of the
	// comparison included: what NextRound plans the next look from, so that
	// a round always asks for requests the results do not hold yet. Nil
	// when the report was not made from the measured side (a results
	// file's recorded comparison, ab).
	Measured map[TargetID]map[string]int `json:"-"`
}

// parsedCheck is a gate check with its statistic parsed.
type parsedCheck struct {
	c    config.Check
	spec stats.Stat
}

// job is one target × prompt × check to estimate.
type job struct {
	check     Check
	spec      stats.Stat
	base, cur *dataset
	noise     DayNoise
	wander    runLevel // the group's run-level variance
	est       estimators
	// After run: the sides' spreads, and for a check on the ratio scale
	// with finite sampling half-widths, poolable is set.
	sb, sc   spread
	poolable bool
	// design is the check's design with its shared day-to-day noise
	// (Design.Shared), set by estimate when that changed its levels; the
	// zero Design otherwise (then the run's own design applies).
	design Design
	// Once pooled: the prompts of its pool, and how many standard errors
	// of the difference this prompt's change lies above the pool's.
	pooled int
	above  float64
}

// Compare runs the gate on every target × prompt × check present on both
// sides (targets matched by name and region, prompts by id) and returns the
// verdicts, each labelled with what changed since the baseline (Pair; call
// Pair first to refuse what cannot be compared), and the measured values of
// what has no baseline in Report.New. The same inputs and gate give the same
// Report.
func Compare(base, cur Side, gate config.Gate) Report {
	return CompareWith(base, cur, gate, Setup{})
}

// CompareSequential is Compare at one look of a sequential design: each
// check's interval is the repeated confidence interval of the look its
// current request count belongs to (see Design), so that deciding at any
// look keeps the gate's error rates. With a single-look design it is Compare.
func CompareSequential(base, cur Side, gate config.Gate, d Design) Report {
	return CompareWith(base, cur, gate, Setup{Design: d})
}

// Setup is what a comparison assumes beyond the gate's config: the looks
// of check's rounds and the day-to-day noise learned from a history.
type Setup struct {
	// Design is the plan of looks (the zero value: one look).
	Design Design
	// Noise is the day-to-day noise learned per target × metric (see
	// LearnDayNoise); what it lacks takes the gate's day_to_day.
	Noise Noise
	// Rules are gate rules beyond the five built in (RuleDef): each
	// makes and decides checks of its own beside the config's.
	Rules []RuleDef
	// est selects the estimators (the calibration's experiments).
	est estimators
}

// estimators are the estimator choices the calibration compares; the zero
// value is what the gate uses.
type estimators struct {
	// ratioP50 uses the ratio of sample medians for p50 checks of
	// per-request metrics instead of the Hodges–Lehmann shift.
	ratioP50 bool
	// equalWeights pools prompts with equal weights (a geometric mean)
	// instead of inverse-variance weights.
	equalWeights bool
	// keepColdHeads compares every request, a cold start's too (the gate
	// before #29's cold-start rule).
	keepColdHeads bool
	// independent takes requests as independent in arrival order (no
	// run-level noise: the gate before #29's Wander).
	independent bool
	// allHolm runs Holm over every prompt test of a check at the full
	// level, as the gate did before conditional Holm (#29).
	allHolm bool
}

// CompareWith is CompareSequential with the day-to-day noise of s.
func CompareWith(base, cur Side, gate config.Gate, s Setup) Report {
	rep := Report{Seed: gate.Seed, Resamples: gate.Resamples, Confidence: gate.Confidence, OkConfidence: okConfidence(gate)}
	if rep.Confidence <= 0 || rep.Confidence >= 1 {
		rep.Confidence = DefaultConfidence
	}
	if rep.Resamples <= 0 {
		rep.Resamples = DefaultResamples
	}
	conf, d := rep.Confidence, s.Design
	rep.Measured = measuredOf(cur)

	var checks []parsedCheck
	var unparsed []Warning
	for _, c := range gate.Checks {
		sp, err := stats.ParseStat(c.Stat)
		switch {
		case results.IsShare(c.Metric): // shareChecks
		case !slices.Contains(gatedMetrics, c.Metric):
			unparsed = append(unparsed, Warning{Kind: WarnMetric, Metric: c.Metric, Stat: c.Stat})
		case err != nil:
			unparsed = append(unparsed, Warning{Kind: WarnStat, Metric: c.Metric, Stat: c.Stat})
		default:
			checks = append(checks, parsedCheck{c, sp})
		}
	}
	if !s.est.keepColdHeads {
		var cold []Warning
		base, cur, cold = withoutColdHeads(base, cur, needsOf(gate, checks, conf, d))
		rep.Found = append(rep.Found, cold...)
	}
	rep.Found = append(rep.Found, unparsed...)

	curTargets := make(map[string]results.Target, len(cur.Targets))
	for _, t := range cur.Targets {
		curTargets[targetKey(t)] = t
	}
	var jobs []*job
	var targets []targetJobs
	for _, bt := range base.Targets {
		ct, ok := curTargets[targetKey(bt)]
		if !ok {
			continue // a Change, from Pair
		}
		delete(curTargets, targetKey(bt))
		curPrompts := make(map[string]results.Prompt, len(ct.Prompts))
		for _, p := range ct.Prompts {
			curPrompts[p.ID] = p
		}
		tj := targetJobs{groups: make([]group, len(checks))}
		var wb, wc map[string]Wander
		if !s.est.independent {
			ms := relativeMetrics(checks)
			wb, wc = wandersOf(bt, ms), wandersOf(ct, ms)
			rep.Found = append(rep.Found, wanderWarnings(bt, ms, "baseline", wb, len(base.Targets) > 1)...)
			rep.Found = append(rep.Found, wanderWarnings(ct, ms, "", wc, len(base.Targets) > 1)...)
		}
		for ci, pc := range checks {
			tj.groups[ci].tol = Resolvable(pc.c.Metric, pc.c.Tolerance)
			tj.groups[ci].noise = s.Noise.For(bt.Name, bt.Region, pc.c.Metric, pc.spec.String(), gate.DayToDayFor(bt.BaseURL))
			tj.groups[ci].wander = runLevel{base: wb[pc.c.Metric].Excess, cur: wc[pc.c.Metric].Excess}
		}
		for _, bp := range bt.Prompts {
			cp, ok := curPrompts[bp.ID]
			if !ok {
				continue // a Change, from Pair
			}
			data := map[string][2]*dataset{}
			for ci, pc := range checks {
				if pc.c.MaxOnly {
					continue // a limit only: limitJobs
				}
				if !results.Applies(pc.c.Metric, bp) && !results.Applies(pc.c.Metric, cp) {
					continue // a chain metric, and no side is a chain
				}
				dd, ok := data[pc.c.Metric]
				if !ok {
					dd = [2]*dataset{newDataset(bp.Samples, pc.c.Metric), newDataset(cp.Samples, pc.c.Metric)}
					data[pc.c.Metric] = dd
				}
				j := &job{
					check: Check{
						Target: bt.Name, Region: bt.Region, Prompt: bp.ID,
						Metric: pc.c.Metric, Stat: pc.c.Stat, Confidence: conf, OkConfidence: rep.OkConfidence,
						Tolerance: Resolvable(pc.c.Metric, gate.ToleranceFor(bp.ID, pc.c)),
					},
					spec: pc.spec, base: dd[0], cur: dd[1], noise: tj.groups[ci].noise, wander: tj.groups[ci].wander, est: s.est,
				}
				jobs = append(jobs, j)
				tj.groups[ci].jobs = append(tj.groups[ci].jobs, j)
			}
		}
		targets = append(targets, tj)
	}
	jobs = append(jobs, limitJobs(cur, checks)...)

	runJobs(jobs, conf, d)
	for _, tj := range targets {
		rep.Aggregates = append(rep.Aggregates, tj.decide(gate.Aggregate, conf, d, s.est)...)
	}
	for _, j := range jobs {
		rep.Checks = append(rep.Checks, j.check)
	}
	shares, shareWarns := shareChecks(base, cur, gate, d, conf) // share.go
	rep.Checks = append(rep.Checks, shares...)
	rep.Checks = append(rep.Checks, ruleChecks(s, RuleInput{Base: base, Cur: cur, Gate: gate, Confidence: conf, Design: d})...) // rule.go
	rep.Found = append(rep.Found, shareWarns...)
	rep.Found = append(rep.Found, sampleWarnings(rep.Checks, len(base.Targets) > 1)...)
	rep.Found = append(rep.Found, runWarnings(cur.Targets)...)
	rep.Found = append(rep.Found, lostWarnings(rep.Checks)...)

	busyRunner(&rep, base, cur)
	missedSchedule(&rep, cur)
	Pair(base, cur).label(&rep, cur, checks)
	sortChecks(rep.Checks)
	sortChecks(rep.Aggregates)
	rep.Verdict = Overall(rep.Checks, rep.Aggregates)
	if len(rep.Checks) == 0 {
		rep.Found = append(rep.Found, Warning{Kind: WarnNothingCompared})
	}
	return rep
}

// Overall is the verdict of a whole comparison: regressed when any check
// or aggregate regressed; else inconclusive when a gated one (not
// Diagnostic) is; else ok, improved only when every gated one improved;
// inconclusive when nothing was compared.
func Overall(checks, aggregates []Check) Verdict {
	if len(checks) == 0 {
		return Inconclusive
	}
	v := Improved
	for _, c := range slices.Concat(checks, aggregates) {
		cv := c.Verdict
		if c.Diagnostic && cv != Regressed {
			continue
		}
		if cv.rank() < v.rank() {
			v = cv
		}
	}
	if v == Improved && !slices.ContainsFunc(slices.Concat(checks, aggregates), func(c Check) bool { return !c.Diagnostic }) {
		return OK // every check is pooled into an aggregate that was not formed
	}
	return v
}

// Fails reports whether a verdict fails the gate: a regression, or under
// strict (`--strict`, gate.on_inconclusive: fail) an undecided gated check.
// Applied to Report.Verdict it is the gate's outcome; applied to one check,
// whether that check fails.
func (v Verdict) Fails(strict bool) bool {
	return v == Regressed || strict && v == Inconclusive
}

// runJobs estimates every job, in parallel over GOMAXPROCS workers.
func runJobs(jobs []*job, conf float64, d Design) {
	var next atomic.Int64
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), len(jobs))
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(jobs) {
					return
				}
				jobs[i].run(conf, d)
			}
		})
	}
	wg.Wait()
}

// run estimates one prompt check on its own: the statistic of each side,
// the interval of the change at its look's level with the day-to-day noise,
// and its verdict by Decide. The target's pooling and Holm adjustment come
// after (targetJobs.decide).
func (j *job) run(conf float64, d Design) {
	c := &j.check
	if c.Rule() == RuleLimit {
		j.runLimit(conf, d)
		return
	}
	c.NBase, c.NCur = j.base.requests(), j.cur.requests()
	c.atLook(d, conf, c.NBase)
	c.DayNoise, c.DayRuns, c.DayLag, c.DayDF, c.DayFrom = j.noise.Sigma, j.noise.Runs, j.noise.Lag, j.noise.DF, j.noise.From
	if c.Metric == results.ITL {
		c.GapsBase, c.GapsCur = len(j.base.vals), len(j.cur.vals)
	}
	if c.NBase > 0 { // each side's statistic is shown whenever it has data
		c.Baseline = j.base.stat(j.spec)
	}
	if c.NCur > 0 {
		c.Current = j.cur.stat(j.spec)
	}
	c.Need, c.NeedRequests = need(c.Stat, c.Metric, c.level())
	if c.NBase > 0 && c.NCur > 0 && c.Baseline > 0 {
		c.Ratio = c.Current / c.Baseline // shown even when unresolved
	}
	if c.NBase > 0 && c.NCur > 0 && c.Resolved() {
		j.estimate(conf, d)
	}
	Decide(c)
}

// estimate sets the change and its interval of a resolved check with data
// on both sides, at the levels of its look in design d (its day-to-day
// noise shared by every look: Design.Shared).
func (j *job) estimate(conf float64, d Design) {
	c := &j.check
	j.sb, j.sc = spreadOf(j.base, j.spec), spreadOf(j.cur, j.spec)
	z := critical(c.level())
	ab, _ := j.sb.logWidths(j.base, z)
	ac, _ := j.sc.logWidths(j.cur, z)
	if c.Baseline <= 0 || math.IsInf(ab, 1) || math.IsInf(ac, 1) {
		// A side's interval reaches 0 ms (or its statistic is 0): no log
		// ratio; decide the difference against the margin instead.
		if !results.HigherIsBetter(c.Metric) {
			j.difference()
		}
		return
	}
	zl, zh := c.ends()
	theta, below, above, hl := j.change(zl, zh)
	if math.IsInf(below, 1) || math.IsInf(above, 1) {
		c.Ratio = math.Exp(theta)
		return // unbounded: inconclusive
	}
	day := dayRatioSigma(c.DayNoise)
	if ds := d.Shared(day*day+j.wander.base, perRequest(below/zl, above/zh, j.wander.cur, c.NBase, c.NCur)); ds.shared > 0 {
		// The day's level is in every look alike: the look's levels
		// spend the gate's confidence over the looks' true information.
		c.atLook(ds, conf, c.NBase)
		j.design = ds
		zl, zh = c.ends()
		theta, below, above, hl = j.change(zl, zh)
		if math.IsInf(below, 1) || math.IsInf(above, 1) {
			c.Ratio = math.Exp(theta)
			return
		}
	}
	if hl {
		c.Estimator = EstimatorHL
	}
	c.Ratio = math.Exp(theta)
	j.poolable = true
	w := j.wander.total()
	c.RunNoise = math.Sqrt(w)
	dl, dh := dayCrit(zl, c.DayDF)*day, dayCrit(zh, c.DayDF)*day
	c.Lo = math.Exp(theta - math.Sqrt(below*below+dl*dl+zl*zl*w))
	c.Hi = math.Exp(theta + math.Sqrt(above*above+dh*dh+zh*zh*w))
}

// runLevel is a group's run-level variance (log units², see Wander): the
// baseline's, the same at every look, and the current side's, which
// shrinks as the run grows.
type runLevel struct{ base, cur float64 }

func (r runLevel) total() float64 { return r.base + r.cur }

// perRequest is the sampling variance of one request behind a look's
// change whose sampling standard errors are seBelow and seAbove (log units)
// and current run-level variance wander, with nBase and nCur requests a
// side: the v of Var = v(1/n_b + 1/n_c), in the units Design.Shared takes.
// The current side's run-level variance counts as sampling (it shrinks as
// the run grows, if not as 1/n: counting it so errs towards the
// spent-as-independent levels); the baseline's is shared by every look.
func perRequest(seBelow, seAbove, wander float64, nBase, nCur int) float64 {
	if nBase <= 0 || nCur <= 0 {
		return 0
	}
	se := (seBelow + seAbove) / 2
	return (se*se + wander) / (1/float64(nBase) + 1/float64(nCur))
}

// okConfidence is the gate's ok_confidence, 0 (symmetric) when unset or
// not above 50% (an ok end on the wrong side of its estimate; the config
// refuses it, a library caller gets symmetric intervals).
func okConfidence(g config.Gate) float64 {
	if g.OkConfidence <= 0.5 || g.OkConfidence >= 1 {
		return 0
	}
	return g.OkConfidence
}

// ends returns the normal critical values of the interval's lower and upper
// ends: the regression end at the look's level (two-sided Level, so
// one-sided (1+Level)/2), the ok end at OkLevel (OkConfidence for a single
// look). A duration regresses upwards, so its Lo is the regression end; a
// rate (tokens_per_s) regresses downwards, so its Hi is.
func (c Check) ends() (zLo, zHi float64) {
	zr := critical(c.level())
	zo := c.okZ(zr)
	if c.higherIsBetter() {
		return zo, zr
	}
	return zr, zo
}

// okZ is the critical value of the ok end; zr, the regression end's, when
// the check is symmetric.
func (c Check) okZ(zr float64) float64 {
	switch {
	case c.OkLevel > 0 && c.OkLevel < 1:
		return stats.NormalQuantile(c.OkLevel)
	case c.OkConfidence > 0 && c.OkConfidence < 1:
		return stats.NormalQuantile(c.OkConfidence)
	}
	return zr
}

// EstimatorHL names the Hodges–Lehmann estimator of a p50 check's change.
const EstimatorHL = "hl"

// hlShift is the Hodges–Lehmann shift of log latency with Moses' interval,
// its ends at critical values zl and zh, for a p50 check of a per-request metric (the gate's estimator of a
// typical change), as {shift, below, above} in log units; ok is false for
// other checks, under the ratio-of-medians experiment, or when a value is
// not positive or the interval unbounded.
func (j *job) hlShift(zl, zh float64) ([3]float64, bool) {
	if !j.isHL() {
		return [3]float64{}, false
	}
	lc, ok1 := j.cur.logs()
	lb, ok2 := j.base.logs()
	if !ok1 || !ok2 {
		return [3]float64{}, false
	}
	shift, lo, hi, ok := stats.HodgesLehmann(lc, lb, zl, zh)
	if !ok {
		return [3]float64{}, false
	}
	return [3]float64{shift, shift - lo, hi - shift}, true
}

// isHL reports whether the job's change is the Hodges–Lehmann shift: a p50
// check of a per-request metric, unless the ratio-of-medians experiment is on.
func (j *job) isHL() bool {
	return !j.est.ratioP50 && !j.spec.Mean && j.spec.P == 0.5 && j.check.Metric != results.ITL
}

// difference decides a duration check on current − baseline in ms, each end
// at its own critical value (Check.ends): its margin is the tolerance at
// this baseline, (τ − 1) × baseline, or the floor when the baseline is 0.
func (j *job) difference() {
	c := &j.check
	zl, zh := c.ends()
	bl, _ := j.sb.bounds(j.base, zh) // the baseline's low end bounds the change's high end
	_, bh := j.sb.bounds(j.base, zl)
	cl, _ := j.sc.bounds(j.cur, zl)
	_, ch := j.sc.bounds(j.cur, zh)
	if math.IsInf(bh, 1) || math.IsInf(ch, 1) {
		return // unbounded above: unresolved
	}
	diff := c.Current - c.Baseline
	below, above := mover(c.Current-cl, ch-c.Current, c.Baseline-bl, bh-c.Baseline)
	c.Scale = ScaleDifference
	c.Lo, c.Hi = diff-below, diff+above
	c.Margin = (Threshold(c.Tolerance.Rel, floorMS(c.Tolerance), c.Baseline) - 1) * c.Baseline
	if c.Baseline <= 0 {
		c.Margin = floorMS(c.Tolerance)
	}
}

// ScaleDifference names a check decided on current − baseline (Check.Scale).
const ScaleDifference = "difference"

// critical is the normal critical value of a two-sided level.
func critical(level float64) float64 { return stats.NormalQuantile(1 - (1-level)/2) }

// dayRatioSigma is the σ of ln(current level / baseline level) for a
// day-to-day noise of σ per run: two independent days.
func dayRatioSigma(sigma float64) float64 { return math.Sqrt2 * sigma }

// Decide applies the decision rule of the package documentation to a check
// whose statistics (Baseline, Current, Ratio), interval (Lo, Hi),
// Confidence, Tolerance and counts are set: it sets Need and NeedRequests
// (from Stat, Metric and the look's level), Threshold, Verdict and Reason.
// Compare calls it for every prompt check; it is exported so that reports
// can be built from hand-made checks by the same rule. A Stat that does not
// parse can never be resolved: the check is inconclusive.
func Decide(c *Check) {
	switch c.Rule() {
	case RuleShare, RuleFloor:
		DecideShare(c)
		return
	case RuleLimit:
		DecideLimit(c)
		return
	}
	c.Need, c.NeedRequests = need(c.Stat, c.Metric, c.level())
	c.Threshold = 0
	if c.Baseline > 0 {
		if results.HigherIsBetter(c.Metric) {
			c.Threshold = 1 / RateThreshold(c.Tolerance.Rel, c.Tolerance.FloorRate, c.Baseline)
		} else {
			c.Threshold = Threshold(c.Tolerance.Rel, floorMS(c.Tolerance), c.Baseline)
		}
	}
	c.decide()
}

// decide sets Verdict, More and Reason from the interval and Threshold (or
// Margin on the difference scale).
func (c *Check) decide() {
	finite := c.finiteInterval()
	_, lo, hi, tau := c.Slowdown()
	switch {
	case c.Scale == ScaleDifference && c.NBase > 0 && c.NCur > 0 && finite && c.Resolved():
		switch {
		case c.Lo > c.Margin:
			c.Verdict = Regressed
		case c.Hi < -c.Margin:
			c.Verdict = Improved
		case c.Hi <= c.Margin:
			c.Verdict = OK
		default:
			c.Verdict = Inconclusive
		}
	case c.NBase == 0 || c.NCur == 0 || c.Baseline <= 0 || !finite || !c.Resolved() || c.Lo <= 0 || c.Hi <= 0:
		c.Verdict = Inconclusive // no ratio, or no interval of it
	case lo > tau:
		c.Verdict = Regressed
	case hi < 1/tau:
		c.Verdict = Improved
	case hi <= tau:
		c.Verdict = OK
	default:
		c.Verdict = Inconclusive
	}
	c.More, c.Stuck = 0, ""
	if c.Verdict == Inconclusive {
		c.More = c.moreRequests()
	}
}

// finiteInterval reports whether the interval Lo–Hi is finite, and clears
// it to 0–0 (no interval) when it is not, for Decide and DecideLimit.
func (c *Check) finiteInterval() bool {
	if math.IsNaN(c.Lo) || math.IsNaN(c.Hi) || math.IsInf(c.Hi, 0) || math.IsInf(c.Lo, 0) {
		c.Lo, c.Hi = 0, 0
		return false
	}
	return true
}

// Slowdown returns the check's ratio, interval and regression threshold as
// slowdown factors, larger is worse, which is what the decision rule reads:
// Ratio, Lo, Hi and Threshold as they are for a duration (current/baseline),
// and their inverses for a rate (baseline/current: the interval [1/Hi,
// 1/Lo], the threshold τ = 1/Threshold). A zero bound inverts to +Inf.
func (c Check) Slowdown() (ratio, lo, hi, tau float64) {
	if !results.HigherIsBetter(c.Metric) {
		return c.Ratio, c.Lo, c.Hi, c.Threshold
	}
	inv := func(x float64) float64 {
		if x == 0 {
			return math.Inf(1)
		}
		return 1 / x
	}
	return inv(c.Ratio), inv(c.Hi), inv(c.Lo), inv(c.Threshold)
}

// higherIsBetter reports whether the check's metric is a rate whose drop is
// the bad direction (tokens_per_s): its Threshold then lies below 1, and a
// regression shows as a negative change.
func (c Check) higherIsBetter() bool { return results.HigherIsBetter(c.Metric) }

// Threshold is τ, the ratio current/baseline beyond which a slowdown is a
// regression: 1 + max(rel, floorMS/baselineMS), so a change smaller than
// the floor never is one; 1 + rel when the baseline is not positive. The
// nightly trend analysis holds its change points to the same rule.
func Threshold(rel, floorMS, baselineMS float64) float64 {
	if baselineMS > 0 && floorMS/baselineMS > rel {
		return 1 + floorMS/baselineMS
	}
	return 1 + rel
}

// RateThreshold is τ for a metric where higher is better (tokens_per_s): the
// factor baseline/current by which the rate may fall before it is a
// regression, 1 + max(rel, floor/(baseline − floor)), so that a drop smaller
// than floor (in the baseline's unit, tokens/s) never is one; +Inf when the
// floor is not below the baseline (no drop is a regression). A rel of 15%
// lets the time per token grow by 15%: the rate may fall by 1 − 1/1.15 = 13%.
func RateThreshold(rel, floor, baseline float64) float64 {
	if floor <= 0 {
		return 1 + rel
	}
	if floor >= baseline {
		return math.Inf(1)
	}
	return 1 + max(rel, floor/(baseline-floor))
}

// moreRequests estimates how many more current requests an inconclusive
// check needs before its interval clears the threshold on the side its
// estimate is on, assuming the estimate stays put, the sampling part of the
// interval's width in log space scales as √(1/n_base + 1/n_cur) (equal noise
// per request on both sides) and the day-to-day part does not shrink. It
// returns -1 when no number of current requests would do, and sets Stuck to
// why: "day-to-day" when that noise alone spans the distance to the
// threshold, "baseline" when the baseline's own noise (or an estimate right
// at the threshold) does. Too few values for the statistic: the shortfall.
// A pooled check counts requests per prompt on average.
func (c *Check) moreRequests() int {
	if c.NBase == 0 || c.NCur == 0 || c.Scale == "" && (c.Baseline <= 0 || c.Threshold <= 0) {
		return 0
	}
	if !c.Resolved() {
		_, need, unit := c.Unresolved()
		switch {
		case unit == "gaps" && c.GapsBase < need, unit == "requests" && c.NBase < need:
			c.Stuck = StuckBaseline
			return -1 // the baseline is the short side
		case unit == "gaps":
			return c.moreForGaps(need)
		}
		return need - c.NCur
	}
	var d, h, sd float64 // distance to the threshold, half-width, day part
	if c.Scale == ScaleDifference {
		// The ends are at their own levels: measure from the estimate.
		diff := c.Current - c.Baseline
		d, h = math.Abs(c.Margin-diff), c.Hi-diff // the ok end must reach the margin
		if diff > c.Margin {
			h = diff - c.Lo // the regression end must
		}
	} else {
		if c.Lo <= 0 || c.Hi <= 0 || c.Ratio <= 0 {
			return 0
		}
		ratio, lo, hi, tau := c.Slowdown() // larger is worse
		lr, lt := math.Log(ratio), math.Log(tau)
		h = math.Log(hi) - lr // must shrink to lt − lr for ok
		if lr > lt {
			h = lr - math.Log(lo) // must shrink to lr − lt for regressed
		}
		d = math.Abs(lt - lr)
		zr := critical(c.level())
		z := c.okZ(zr) // the ok end must clear the threshold
		if lr > lt {
			z = zr // the regression end must
		}
		sd = dayCrit(z, c.DayDF) * dayRatioSigma(c.DayNoise)
	}
	if h <= 0 {
		return 0
	}
	if d <= sd {
		c.Stuck = StuckDayToDay
		return -1
	}
	hs2 := h*h - sd*sd // the sampling part, squared
	if hs2 <= 0 {
		return 0
	}
	k := float64(max(1, len(c.Prompts)))
	nb, nc := float64(c.NBase)/k, float64(c.NCur)/k
	room := (d*d-sd*sd)/hs2*(1/nb+1/nc) - 1/nb
	if room <= 0 {
		c.Stuck = StuckBaseline
		return -1
	}
	more := math.Ceil(1/room - nc)
	if more > results.MaxPromptRequests { // more than any run may measure
		c.Stuck = StuckBaseline
		return -1
	}
	return max(1, int(more))
}

// Why more requests cannot decide a check (Check.Stuck).
const (
	StuckBaseline = "baseline"   // the baseline's noise or size
	StuckDayToDay = "day-to-day" // the day-to-day noise
	// StuckRunner: latgate's own runner was too busy to measure the change
	// (RunnerLag), see busyRunner.
	StuckRunner = "runner"
	// StuckSchedule: an arrival-rate run whose sends fell behind its
	// schedule (results.Sends.Held): the endpoint got another load than
	// the one asked for, so nothing of the target is decided (RunnerLag
	// holds the sends' P99 lateness), see missedSchedule.
	StuckSchedule = "schedule"
)

// moreForGaps is how many more current requests bring an itl check's
// current gaps up to need, at the gaps per request measured so far.
func (c Check) moreForGaps(need int) int {
	per := float64(max(c.GapsCur, 1)) / float64(c.NCur)
	return max(1, int(math.Ceil(float64(need-c.GapsCur)/per)))
}

// need returns the fewest values (requests; for itl, gaps) each side needs
// for the statistic at a two-sided level, and for itl the fewest requests.
func need(stat, metric string, level float64) (values, requests int) {
	s, err := stats.ParseStat(stat)
	values = math.MaxInt32
	if err == nil {
		values = s.Need(level)
	}
	if metric == results.ITL {
		requests = minITLRequests
	}
	return values, requests
}

// Resolved reports whether both sides have enough values for the statistic
// (a pooled check pools resolved prompts only).
func (c Check) Resolved() bool {
	if c.Pooled() && len(c.Prompts) > 0 && c.Rule() != RuleLimit {
		return true
	}
	if c.Rule() == RuleLimit { // a limit check has only the current side
		if c.Metric == results.ITL {
			return c.GapsCur >= c.Need && c.NCur >= c.NeedRequests
		}
		return c.NCur >= c.Need
	}
	if c.Metric == results.ITL {
		return min(c.GapsBase, c.GapsCur) >= c.Need && min(c.NBase, c.NCur) >= c.NeedRequests
	}
	return min(c.NBase, c.NCur) >= c.Need
}

// atLook sets, in a sequential design d, the look the check's current
// requests belong to and the level of that look's interval for a baseline of
// nBase requests; a fixed design leaves them 0.
func (c *Check) atLook(d Design, conf float64, nBase int) {
	if d.Sequential() {
		c.Look, c.Looks = d.Look(c.NCur)+1, len(d.Looks)
		c.Level = d.Confidence(conf, nBase, c.Look-1)
		c.OkLevel = d.okLevel(c.OkConfidence, nBase, c.Look-1)
	}
}

// level is the two-sided level of the check's interval: Level at a
// sequential look, else Confidence.
func (c Check) level() float64 {
	if c.Level > 0 {
		return c.Level
	}
	return c.Confidence
}

func floorMS(t config.Tolerance) float64 { return float64(t.Floor) / 1e6 }

// Resolution is latgate's timing resolution for a metric: a change smaller
// than this is never a regression, whatever the floor says. It is several
// times the stamp error measured against the simulator's own clock (docs/
// performance.md: TTFT P50 off by 0.014 ms at concurrency 1, 0.175 ms at
// 64; `latgate selftest` measures it on a runner): 1 ms for whole-request
// times, 0.25 ms for a token gap.
func Resolution(metric string) time.Duration {
	switch metric {
	case results.TokensPerS:
		return 0 // a rate: its floor is Tolerance.FloorRate, in tokens/s
	case results.ITL, results.TPOT:
		return 250 * time.Microsecond
	}
	return time.Millisecond
}

// Resolvable returns t with its floor raised to the metric's Resolution: the
// tolerance the gate applies. A floor left unset (0) is the resolution, so
// the default gate scales with the endpoint: on a 5 ms TTFT a doubling is a
// regression, on a 400 ms TTFT the relative tolerance rules.
func Resolvable(metric string, t config.Tolerance) config.Tolerance {
	t.Floor = max(t.Floor, Resolution(metric))
	return t
}

// sortChecks orders checks worst first: by verdict, then regressed,
// inconclusive and ok by decreasing ratio, improved by increasing ratio;
// ties keep their order (target, prompt, check order of the config).
func sortChecks(cs []Check) { slices.SortStableFunc(cs, WorstFirst) }

// WorstFirst orders checks for reports: regressed, inconclusive, ok,
// improved; regressions and improvements by size, the largest first;
// inconclusive and ok checks compare equal, so a stable sort keeps them in
// their configured order (target, prompt, check) and small changes read in a
// familiar order.
func WorstFirst(a, b Check) int {
	if d := a.Verdict.rank() - b.Verdict.rank(); d != 0 {
		return d
	}
	ra, _, _, _ := a.Slowdown()
	rb, _, _, _ := b.Slowdown()
	switch a.Verdict {
	case Improved:
		return cmpFloat(ra, rb)
	case Regressed:
		return cmpFloat(rb, ra)
	}
	return 0
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// runWarnings reports, per current target, the requests that failed (under
// the error budget, or the run would not have been compared) and the 429
// retries: every output that shows the verdicts says the gate compared only
// the requests that succeeded.
func runWarnings(targets []results.Target) []Warning {
	var out []Warning
	for _, t := range targets {
		if t.Errors > 0 {
			out = append(out, Warning{Kind: WarnFailures, Target: t.Name, Region: t.Region, Count: t.Errors, Requests: t.Requests,
				ByClass: t.ByClass, Said: results.EndpointSaid(t.FirstFailures(results.MaxSaidPerClass))})
		}
		if t.Retries > 0 {
			out = append(out, Warning{Kind: WarnRetries, Target: t.Name, Region: t.Region, Count: t.Retries})
		}
	}
	return out
}

// lostWarnings names the checks whose metric had values in the baseline and
// has none now (e.g. itl when answers shrank to one chunk): they can only be
// inconclusive, and that must not pass quietly.
func lostWarnings(cs []Check) []Warning {
	var out []Warning
	for _, c := range cs {
		if c.Prompt != "" && c.NBase > 0 && c.NCur == 0 {
			out = append(out, Warning{Kind: WarnLost, Target: c.Target, Region: c.Region, Prompts: []string{c.Prompt},
				Metric: c.Metric, Stat: c.Stat, Count: c.NBase})
		}
	}
	return out
}

// sampleWarnings groups the checks that too few requests left unresolved into
// one warning per target × metric × statistic × counts.
func sampleWarnings(cs []Check, manyTargets bool) []Warning {
	type key struct {
		target, region, metric, stat string
		have, need                   int
		unit                         string
	}
	var order []key
	prompts := map[key][]string{}
	for _, c := range cs {
		have, need, unit, short := c.Shortfall()
		if !short {
			continue
		}
		k := key{target: c.Target, region: c.Region, metric: c.Metric, stat: c.Stat, have: have, need: need, unit: unit}
		if _, ok := prompts[k]; !ok {
			order = append(order, k)
		}
		if !slices.Contains(prompts[k], c.Prompt) { // a check and its max
			prompts[k] = append(prompts[k], c.Prompt)
		}
	}
	var out []Warning
	for _, k := range order {
		out = append(out, Warning{Kind: WarnUnresolvable, Target: k.target, Region: k.region, NameTarget: manyTargets,
			Prompts: prompts[k], Metric: k.metric, Stat: k.stat, Have: k.have, Need: k.need, Unit: k.unit})
	}
	return out
}

// Shortfall reports whether a check whose sides both have values has too
// few of them for its statistic (the sample-size rule of the package
// documentation), and if so what the smaller side has, what it needs, and
// the unit counted: "requests", or "gaps" for pooled itl.
func (c Check) Shortfall() (have, need int, unit string, short bool) {
	if c.NCur == 0 || c.NBase == 0 && c.Rule() != RuleLimit || c.Resolved() {
		return 0, 0, "", false
	}
	have, need, unit = c.Unresolved()
	return have, need, unit, true
}

// Unresolved returns what an unresolved check has, needs, and the unit.
func (c Check) Unresolved() (have, need int, unit string) {
	if c.Rule() == RuleLimit {
		switch {
		case c.Metric == results.ITL && c.NCur < c.NeedRequests:
			return c.NCur, c.NeedRequests, "requests"
		case c.Metric == results.ITL:
			return c.GapsCur, c.Need, "gaps"
		}
		return c.NCur, c.Need, "requests"
	}
	if c.Metric == results.ITL && min(c.NBase, c.NCur) < c.NeedRequests {
		return min(c.NBase, c.NCur), c.NeedRequests, "requests"
	}
	if c.Metric == results.ITL {
		return min(c.GapsBase, c.GapsCur), c.Need, "gaps"
	}
	return min(c.NBase, c.NCur), c.Need, "requests"
}

func targetKey(t results.Target) string { return t.Name + "\x00" + t.Region }

func targetLabel(t results.Target) string {
	if t.Region != "" {
		return fmt.Sprintf("target %s (region %s)", t.Name, t.Region)
	}
	return "target " + t.Name
}
