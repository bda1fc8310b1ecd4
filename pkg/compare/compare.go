package compare

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/diagnose"
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
// aggregate across prompts (Prompt empty, Prompts listing the contributors).
type Check struct {
	Target string `json:"target"`
	Region string `json:"region,omitempty"`
	Prompt string `json:"prompt,omitempty"`
	// Prompts lists the prompts an aggregate combines.
	Prompts []string `json:"prompts,omitempty"`
	Metric  string   `json:"metric"`
	Stat    string   `json:"stat"`
	// Baseline and Current are the statistic on each side, in milliseconds
	// (tokens per second for tokens_per_s; the JSON names keep _ms).
	Baseline float64 `json:"baseline_ms"`
	Current  float64 `json:"current_ms"`
	// Ratio is Current/Baseline; Lo and Hi bound it at Confidence. All three
	// are 0 when undefined (no data, or a zero baseline).
	Ratio      float64 `json:"ratio"`
	Lo         float64 `json:"lo"`
	Hi         float64 `json:"hi"`
	Confidence float64 `json:"confidence"`
	// Threshold is the regression threshold on the ratio current/baseline:
	// for a duration 1 + max(Tolerance.Rel, Tolerance.Floor/Baseline), above
	// which it regressed; for tokens_per_s 1/RateThreshold, below which it
	// regressed.
	Threshold float64          `json:"threshold"`
	Tolerance config.Tolerance `json:"tolerance"`
	// NBase and NCur count requests (for itl, requests with at least one gap);
	// GapsBase and GapsCur count the pooled itl gaps.
	NBase    int `json:"n_base"`
	NCur     int `json:"n_cur"`
	GapsBase int `json:"gaps_base,omitempty"`
	GapsCur  int `json:"gaps_cur,omitempty"`
	// Need is the fewest values (requests; for itl, gaps) each side needs for
	// the statistic to be resolved; NeedRequests the fewest requests for itl.
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
	// More estimates, for an inconclusive check, how many more current
	// requests would decide it (-1: none would; the baseline is too noisy).
	More    int     `json:"more_requests,omitempty"`
	Verdict Verdict `json:"verdict"`
	// Reason is Summary(): the verdict as one human sentence.
	Reason string `json:"reason"`
	// Labels name what changed since the baseline for this check (see
	// Pair): "model a → b", "edited", …; empty when nothing did.
	Labels []string `json:"labels,omitempty"`
	// Max, when positive, makes this a limit check (gate `max:`): the
	// current statistic against an absolute limit in milliseconds, with no
	// baseline. Lo and Hi then bound the current statistic itself, in
	// milliseconds, and Baseline, Ratio and Threshold are 0 (see DecideLimit).
	Max float64 `json:"max_ms,omitempty"`
	// Why is, for a regression, what moved with it (see Explain); nil when
	// it was not attributed.
	Why *diagnose.Attribution `json:"why,omitempty"`
}

// Report is the outcome of a comparison.
type Report struct {
	// Verdict is the worst verdict of all checks and aggregates (regressed,
	// then inconclusive, then ok; improved only when every one improved).
	Verdict Verdict `json:"verdict"`
	// Checks and Aggregates are sorted worst first: regressed by size of
	// change, then inconclusive, ok, and improved (largest improvement first).
	Checks     []Check  `json:"checks"`
	Aggregates []Check  `json:"aggregates,omitempty"`
	Warnings   []string `json:"warnings,omitempty"`
	// Changes lists every difference between the baseline and this run
	// (Pair); New holds the measured values of the prompts and targets that
	// have no baseline, one per check, Verdict Unbaselined: never gated.
	Changes    []Change `json:"changes,omitempty"`
	New        []Check  `json:"new,omitempty"`
	Seed       int64    `json:"seed"`
	Resamples  int      `json:"resamples"`
	Confidence float64  `json:"confidence"`
}

// parsedCheck is a gate check with its statistic parsed.
type parsedCheck struct {
	c    config.Check
	spec stats.Stat
}

// job is one target × prompt × check to bootstrap.
type job struct {
	check      Check
	spec       stats.Stat
	base, cur  *dataset
	key        string
	reps       []float64 // replicate ratios, in draw order
	aggregable bool
}

// Compare runs the gate on every target × prompt × check present on both
// sides (targets matched by name and region, prompts by id) and returns the
// verdicts, each labelled with what changed since the baseline (Pair; call
// Pair first to refuse what cannot be compared), and the measured values of
// what has no baseline in Report.New. The same inputs and gate give the same
// Report.
func Compare(base, cur Side, gate config.Gate) Report {
	return CompareSequential(base, cur, gate, FixedDesign())
}

// CompareSequential is Compare at one look of a sequential design: each
// check's interval is the repeated confidence interval of the look its
// current request count belongs to (see Design), so that deciding at any
// look keeps the gate's error rates. With a single-look design it is Compare.
func CompareSequential(base, cur Side, gate config.Gate, d Design) Report {
	rep := Report{Seed: gate.Seed, Resamples: gate.Resamples, Confidence: gate.Confidence}
	if rep.Confidence <= 0 || rep.Confidence >= 1 {
		rep.Confidence = DefaultConfidence
	}
	if rep.Resamples <= 0 {
		rep.Resamples = DefaultResamples
	}
	conf := rep.Confidence

	var checks []parsedCheck
	for _, c := range gate.Checks {
		s, err := stats.ParseStat(c.Stat)
		switch {
		case !slices.Contains(gatedMetrics, c.Metric):
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("check %s %s skipped: metric %q cannot be gated (use one of %s)", c.Metric, c.Stat, c.Metric, strings.Join(gatedMetrics, ", ")))
		case err != nil:
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("check %s %s skipped: statistic %q is not p50, p95, p99 or mean", c.Metric, c.Stat, c.Stat))
		default:
			checks = append(checks, parsedCheck{c, s})
		}
	}

	curTargets := make(map[string]results.Target, len(cur.Targets))
	for _, t := range cur.Targets {
		curTargets[targetKey(t)] = t
	}
	var jobs []*job
	var groups []group // per target × check, for aggregates
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
		tgroups := make([]group, len(checks))
		for ci, pc := range checks {
			tgroups[ci].tol = Resolvable(pc.c.Metric, pc.c.Tolerance)
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
				d, ok := data[pc.c.Metric]
				if !ok {
					d = [2]*dataset{newDataset(bp.Samples, pc.c.Metric), newDataset(cp.Samples, pc.c.Metric)}
					data[pc.c.Metric] = d
				}
				j := &job{
					check: Check{
						Target: bt.Name, Region: bt.Region, Prompt: bp.ID,
						Metric: pc.c.Metric, Stat: pc.c.Stat, Confidence: conf,
						Tolerance: Resolvable(pc.c.Metric, gate.ToleranceFor(bp.ID, pc.c)),
					},
					spec: pc.spec, base: d[0], cur: d[1],
					key: strings.Join([]string{bt.Name, bt.Region, bp.ID, pc.c.Metric, pc.c.Stat}, "\x00"),
				}
				jobs = append(jobs, j)
				tgroups[ci].jobs = append(tgroups[ci].jobs, j)
			}
		}
		groups = append(groups, tgroups...)
	}
	jobs = append(jobs, limitJobs(cur, checks)...)

	runJobs(jobs, rep.Resamples, gate.Seed, conf, d)
	for _, j := range jobs {
		rep.Checks = append(rep.Checks, j.check)
	}
	if gate.Aggregate {
		for _, g := range groups {
			if a, ok := aggregate(g, rep.Resamples, conf, d); ok {
				rep.Aggregates = append(rep.Aggregates, a)
			}
		}
	}
	rep.Warnings = append(rep.Warnings, sampleWarnings(rep.Checks, len(base.Targets) > 1)...)
	rep.Warnings = append(rep.Warnings, runWarnings(cur.Targets)...)
	rep.Warnings = append(rep.Warnings, lostWarnings(rep.Checks)...)

	Pair(base, cur).label(&rep, cur, checks)
	sortChecks(rep.Checks)
	sortChecks(rep.Aggregates)
	rep.Verdict = Overall(rep.Checks, rep.Aggregates)
	if len(rep.Checks) == 0 {
		rep.Warnings = append(rep.Warnings, "nothing was compared: no check applies to a target and prompt present in both runs")
	}
	return rep
}

// Overall is the verdict of a whole comparison: the worst verdict of its
// checks and aggregates (regressed, then inconclusive, then ok); improved
// only when every one improved; inconclusive when nothing was compared.
func Overall(checks, aggregates []Check) Verdict {
	if len(checks) == 0 {
		return Inconclusive
	}
	v := Improved
	for _, c := range slices.Concat(checks, aggregates) {
		if c.Verdict.rank() < v.rank() {
			v = c.Verdict
		}
	}
	return v
}

// Fails reports whether a verdict fails the gate: a regression, or under
// strict (`--strict`) an inconclusive check. Applied to Report.Verdict it
// is the gate's outcome; applied to one check, whether that check fails.
func (v Verdict) Fails(strict bool) bool {
	return v == Regressed || strict && v == Inconclusive
}

// runJobs bootstraps every job, in parallel over GOMAXPROCS workers. Each job
// has its own random stream, so the outcome does not depend on scheduling.
func runJobs(jobs []*job, resamples int, seed int64, conf float64, d Design) {
	var next atomic.Int64
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), len(jobs))
	for range workers {
		wg.Go(func() {
			scratch := make([]float64, 0, resamples)
			for {
				i := int(next.Add(1)) - 1
				if i >= len(jobs) {
					return
				}
				jobs[i].run(resamples, seed, conf, d, scratch)
			}
		})
	}
	wg.Wait()
}

func (j *job) run(resamples int, seed int64, conf float64, d Design, scratch []float64) {
	c := &j.check
	if c.Max > 0 {
		j.runLimit(resamples, seed, conf, d, scratch)
		return
	}
	c.NBase, c.NCur = j.base.requests(), j.cur.requests()
	c.atLook(d, conf, c.NBase)
	if c.Metric == results.ITL {
		c.GapsBase, c.GapsCur = len(j.base.vals), len(j.cur.vals)
	}
	if c.NBase > 0 { // each side's statistic is shown whenever it has data
		c.Baseline = j.base.stat(j.spec)
	}
	if c.NCur > 0 {
		c.Current = j.cur.stat(j.spec)
	}
	if c.NBase > 0 && c.NCur > 0 {
		if c.Baseline > 0 {
			j.reps = bootstrapRatios(j.base, j.cur, j.spec, resamples, seed, j.key)
			j.aggregable = true
			c.Ratio = c.Current / c.Baseline
			c.Lo, c.Hi = percentileInterval(j.reps, scratch, c.level())
		}
	}
	Decide(c)
}

// Decide applies the decision rule of the package documentation to a check
// whose statistics (Baseline, Current, Ratio), interval (Lo, Hi),
// Confidence, Tolerance and counts are set: it sets Need and NeedRequests
// (from Stat, Metric and Confidence), Threshold, Verdict and Reason. Compare
// calls it for every check and aggregate; it is exported so that reports can
// be built from hand-made checks by the same rule. A Stat that does not
// parse can never be resolved: the check is inconclusive.
func Decide(c *Check) {
	if c.Max > 0 {
		DecideLimit(c)
		return
	}
	c.Need, c.NeedRequests = need(c.Stat, c.Metric, c.Confidence)
	c.Threshold = 0
	if c.Baseline > 0 {
		if results.HigherIsBetter(c.Metric) {
			c.Threshold = 1 / RateThreshold(c.Tolerance.Rel, c.Tolerance.FloorRate, c.Baseline)
		} else {
			c.Threshold = Threshold(c.Tolerance.Rel, floorMS(c.Tolerance), c.Baseline)
		}
	}
	finite := c.finiteInterval()
	_, lo, hi, tau := c.slowdown()
	switch {
	case c.NBase == 0 || c.NCur == 0 || c.Baseline <= 0 || !finite || !c.resolved():
		c.Verdict = Inconclusive
	case lo > tau:
		c.Verdict = Regressed
	case hi < 1/tau:
		c.Verdict = Improved
	case hi <= tau:
		c.Verdict = OK
	default:
		c.Verdict = Inconclusive
	}
	c.More = 0
	if c.Verdict == Inconclusive {
		c.More = c.moreRequests()
	}
	c.Reason = c.Summary()
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

// slowdown returns the check's ratio, interval and regression threshold as
// slowdown factors, larger is worse, which is what the decision rule reads:
// Ratio, Lo, Hi and Threshold as they are for a duration (current/baseline),
// and their inverses for a rate (baseline/current: the interval [1/Hi,
// 1/Lo], the threshold τ = 1/Threshold). A zero bound inverts to +Inf.
func (c Check) slowdown() (ratio, lo, hi, tau float64) {
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
// estimate is on, assuming the estimate stays put and the interval's width
// in log space scales as √(1/n_base + 1/n_cur) (equal noise per request on
// both sides). It returns -1 when no number of current requests would do:
// the baseline's own noise (or an estimate right at the threshold) keeps the
// interval straddling. Too few values for the statistic: the shortfall.
func (c Check) moreRequests() int {
	if c.NBase == 0 || c.NCur == 0 || c.Baseline <= 0 || c.Threshold <= 0 {
		return 0
	}
	if !c.resolved() {
		_, need, unit := c.unresolved()
		switch {
		case unit == "gaps" && c.GapsBase < need, unit == "requests" && c.NBase < need:
			return -1 // the baseline is the short side
		case unit == "gaps":
			return c.moreForGaps(need)
		}
		return need - c.NCur
	}
	if c.Lo <= 0 || c.Hi <= 0 || c.Ratio <= 0 {
		return 0
	}
	ratio, lo, hi, tau := c.slowdown() // larger is worse
	lr, lt := math.Log(ratio), math.Log(tau)
	h := math.Log(hi) - lr // must shrink to lt − lr for ok
	if lr > lt {
		h = lr - math.Log(lo) // must shrink to lr − lt for regressed
	}
	d := math.Abs(lt - lr)
	nb, nc := float64(c.NBase), float64(c.NCur)
	if h <= 0 {
		return 0
	}
	room := (d/h)*(d/h)*(1/nb+1/nc) - 1/nb
	if room <= 0 {
		return -1
	}
	more := math.Ceil(1/room - nc)
	if more > results.MaxPromptRequests { // more than any run may measure
		return -1
	}
	return max(1, int(more))
}

// moreForGaps is how many more current requests bring an itl check's
// current gaps up to need, at the gaps per request measured so far.
func (c Check) moreForGaps(need int) int {
	per := float64(max(c.GapsCur, 1)) / float64(c.NCur)
	return max(1, int(math.Ceil(float64(need-c.GapsCur)/per)))
}

// need returns the fewest values (requests; for itl, gaps) each side needs
// for the statistic, and for itl the fewest requests.
func need(stat, metric string, conf float64) (values, requests int) {
	s, err := stats.ParseStat(stat)
	values = math.MaxInt32
	if err == nil {
		values = s.Need(conf)
	}
	if metric == results.ITL {
		requests = minITLRequests
	}
	return values, requests
}

// resolved reports whether both sides have enough values for the statistic.
func (c Check) resolved() bool {
	if c.Max > 0 { // a limit check has only the current side
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

// group is one target × check across prompts, with the check's own tolerance.
type group struct {
	tol  config.Tolerance
	jobs []*job
}

// aggregate combines a target × check group across prompts; ok is false when
// fewer than two prompts have data on both sides.
func aggregate(g group, resamples int, conf float64, d Design) (Check, bool) {
	var use []*job
	for _, j := range g.jobs {
		if j.aggregable {
			use = append(use, j)
		}
	}
	if len(use) < 2 {
		return Check{}, false
	}
	t := use[0].check
	a := Check{
		Target: t.Target, Region: t.Region, Metric: t.Metric, Stat: t.Stat,
		Confidence: conf, Tolerance: g.tol,
	}
	var lb, lc float64
	for _, j := range use {
		a.Prompts = append(a.Prompts, j.check.Prompt)
		lb += math.Log(j.check.Baseline)
		lc += math.Log(j.check.Current)
		a.NBase += j.check.NBase
		a.NCur += j.check.NCur
		a.GapsBase += j.check.GapsBase
		a.GapsCur += j.check.GapsCur
	}
	if d.Sequential() {
		// The aggregate has looked as often as its most-looked prompt, and
		// its information is bounded by its smallest baseline.
		nb := use[0].check.NBase
		for _, j := range use {
			a.Look = max(a.Look, j.check.Look)
			nb = min(nb, j.check.NBase)
		}
		a.Looks = len(d.Looks)
		a.Level = d.Confidence(conf, nb, a.Look-1)
	}
	k := float64(len(use))
	a.Baseline, a.Current = math.Exp(lb/k), math.Exp(lc/k)
	a.Ratio = ratio(a.Current, a.Baseline)
	reps := make([]float64, resamples)
	for r := range reps {
		var s float64
		for _, j := range use {
			s += math.Log(j.reps[r])
		}
		reps[r] = math.Exp(s / k)
	}
	a.Lo, a.Hi = percentileInterval(reps, nil, a.level())
	Decide(&a)
	return a, true
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
	ra, _, _, _ := a.slowdown()
	rb, _, _, _ := b.slowdown()
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
func runWarnings(targets []results.Target) []string {
	var out []string
	for _, t := range targets {
		if t.Errors > 0 {
			classes := make([]string, 0, len(t.ByClass))
			for k, v := range t.ByClass {
				classes = append(classes, fmt.Sprintf("%s %d", k, v))
			}
			slices.Sort(classes)
			msg := fmt.Sprintf("%s: %d of %d requests failed (%.1f%%: %s); failed requests are not samples",
				targetLabel(t), t.Errors, t.Requests, 100*float64(t.Errors)/float64(max(t.Requests, 1)), strings.Join(classes, ", "))
			if said := results.EndpointSaid(t.FirstFailures(results.MaxSaidPerClass)); said != "" {
				msg += results.SaidSep + said
			}
			out = append(out, msg)
		}
		if t.Retries > 0 {
			out = append(out, fmt.Sprintf("%s: %d retries after HTTP 429 (timings are the final attempt's)", targetLabel(t), t.Retries))
		}
	}
	return out
}

// sampleWarnings groups the checks that too few requests left unresolved into
// one warning per target × metric × statistic × counts.
// lostWarnings names the checks whose metric had values in the baseline and
// has none now (e.g. itl when answers shrank to one chunk): they can only be
// inconclusive, and that must not pass quietly.
func lostWarnings(cs []Check) []string {
	var out []string
	for _, c := range cs {
		if c.Prompt != "" && c.NBase > 0 && c.NCur == 0 {
			out = append(out, fmt.Sprintf("%s for prompt %s of %s: %d baseline requests had values, this run has none: the endpoint's answers changed shape (one chunk? no content token?), check them",
				c.Metric+" "+c.Stat, c.Prompt, targetLabel(results.Target{Name: c.Target, Region: c.Region}), c.NBase))
		}
	}
	return out
}

func sampleWarnings(cs []Check, manyTargets bool) []string {
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
	var out []string
	for _, k := range order {
		ps := prompts[k]
		which := "prompt " + ps[0]
		if len(ps) > 1 {
			which = "prompts " + strings.Join(ps, ", ")
		}
		if manyTargets {
			which += " of " + targetLabel(results.Target{Name: k.target, Region: k.region})
		}
		out = append(out, fmt.Sprintf("%s %s for %s cannot be resolved with %d %s: needs at least %d (raise run.requests)",
			k.metric, k.stat, which, k.have, k.unit, k.need))
	}
	return out
}

// Shortfall reports whether a check whose sides both have values has too
// few of them for its statistic (the sample-size rule of the package
// documentation), and if so what the smaller side has, what it needs, and
// the unit counted: "requests", or "gaps" for pooled itl.
func (c Check) Shortfall() (have, need int, unit string, short bool) {
	if c.NCur == 0 || c.NBase == 0 && c.Max <= 0 || c.resolved() {
		return 0, 0, "", false
	}
	have, need, unit = c.unresolved()
	return have, need, unit, true
}

// unresolved returns what an unresolved check has, needs, and the unit.
func (c Check) unresolved() (have, need int, unit string) {
	if c.Max > 0 {
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
