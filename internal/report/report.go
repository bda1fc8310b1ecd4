package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/latgate/latgate/internal/cost"
	"github.com/latgate/latgate/internal/numfmt"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// Options tune the renderings of a comparison.
type Options struct {
	// Strict makes an inconclusive check fail the gate, as `check --strict`
	// does; the verdict lines, Markdown and JUnit say so.
	Strict bool
	// BaselinePath and Results name what was compared (a baseline file and a
	// results file or "this run") for the provenance line and the JUnit
	// properties; either may be empty.
	BaselinePath string
	Results      string
	// Blessed says when and where the baseline was blessed ("blessed
	// 2026-11-01 03:00 UTC (23 days ago) at commit …"), for the provenance
	// line and a JUnit property; empty leaves it out.
	Blessed string
	// Wall holds the wall times behind the JUnit time attributes; nil
	// leaves them 0.
	Wall *Wall
	// TargetNotes are lines a report shows under a target's heading (keyed
	// "name" or "name@region"): CacheLine's warm and cold TTFT.
	TargetNotes map[string][]string
	// Rerun and Bless are the commands a failing run's last line offers as
	// the next step: measure again (with a larger design, for undecided
	// checks), or accept the change as the new baseline. Empty: the step is
	// described without a command.
	Rerun, Bless string
	// OnInconclusive is gate.on_inconclusive: "pass" leaves undecided gated
	// checks out of the annotations, "warn" (and "") warns about them,
	// "fail" fails the run (set Strict too).
	OnInconclusive string
	// Order lists the rows in the config's order; nil: worst first.
	Order *Order
	// Wide keeps every column of the text tables however wide they get
	// (--wide); otherwise a table that would pass 100 columns moves its
	// widest optional columns onto lines under their rows (fitTable).
	Wide bool
	// Cost is what the run cost (CostLine); a bill with no priced target
	// says nothing.
	Cost cost.Bill
}

// Wall holds a run's wall times in seconds: the whole run, each target
// (keyed "name", or "name@region") and each of its prompts.
type Wall struct {
	Run     float64
	Targets map[string]float64
	Prompts map[string]map[string]float64
}

// NotesOf reads the notes a report shows per target from a results file:
// how an arrival-rate run held its schedule (SendsLine), the warm and cold TTFT of targets that measured both (CacheLine), and
// each agent chain's metrics and steps (ChainLines).
func NotesOf(f *results.File) map[string][]string {
	out := map[string][]string{}
	for _, t := range f.Targets {
		for _, line := range []string{SendsLine(t, f.Run), StallLine(t, f.Run)} {
			if line != "" {
				out[t.Label()] = append(out[t.Label()], line)
			}
		}
		if line := CacheLine(t); line != "" {
			out[t.Label()] = append(out[t.Label()], line)
		}
		if lines := ChainLines(t); len(lines) > 0 { // chain.go
			out[t.Label()] = append(out[t.Label()], lines...)
		}
	}
	return out
}

// WallOf reads the wall times of a results file: the run from its start and
// end times, the targets and prompts from their wall_ms (0 in files written
// before latgate recorded it).
func WallOf(f *results.File) *Wall {
	w := &Wall{Targets: map[string]float64{}, Prompts: map[string]map[string]float64{}}
	if !f.StartedAt.IsZero() && f.FinishedAt.After(f.StartedAt) {
		w.Run = f.FinishedAt.Sub(f.StartedAt).Seconds()
	}
	for _, t := range f.Targets {
		key := t.Label()
		w.Targets[key] = t.WallMS / 1000
		w.Prompts[key] = map[string]float64{}
		for _, p := range t.Prompts {
			w.Prompts[key][p.ID] = p.WallMS / 1000
		}
	}
	return w
}

// target and prompt are the wall times of a target and of one of its
// prompts (the target's for an aggregate), 0 when unknown.
func (w *Wall) target(c compare.Check) float64 { return w.targetKey(targetOf(c)) }

func (w *Wall) targetKey(key string) float64 {
	if w == nil {
		return 0
	}
	return w.Targets[key]
}

func (w *Wall) prompt(c compare.Check) float64 {
	if w == nil {
		return 0
	}
	if isAggregate(c) {
		return w.target(c)
	}
	return w.Prompts[targetOf(c)][c.Prompt]
}

// aggregateLabel stands in the prompt column for a target's pooled check.
const aggregateLabel = "all prompts (pooled)"

// textAggregateLabel is aggregateLabel in the text table, which keeps to
// 100 columns (the decision note under it says the rows pool).
const textAggregateLabel = "all prompts"

// maxListed caps the regressions named in a verdict line.
const maxListed = 2

// ordered returns the checks and aggregates of rep in one list, worst first:
// regressions, then undecided gated checks, then the rest with a target's
// pooled checks, which decide, before its prompts' (a diagnostic prompt
// check's inconclusive among them); within each, compare's order: regressed,
// inconclusive and ok by decreasing ratio, improved by increasing ratio.
func ordered(rep compare.Report) []compare.Check {
	all := slices.Concat(rep.Aggregates, rep.Checks)
	slices.SortStableFunc(all, func(a, b compare.Check) int {
		if d := rankOf(a) - rankOf(b); d != 0 {
			return d
		}
		if d := boolRank(!isAggregate(a)) - boolRank(!isAggregate(b)); d != 0 {
			return d // the pooled rows, which decide, first
		}
		return compare.WorstFirst(a, b)
	})
	return all
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// rankOf orders verdicts for reports: regressed, gated inconclusive, then
// ok, improved and a diagnostic's inconclusive together (compare's order
// among them).
func rankOf(c compare.Check) int {
	switch {
	case c.Verdict == compare.Regressed:
		return 0
	case c.Verdict == compare.Inconclusive && !c.Diagnostic:
		return 1
	}
	return 2
}

// diagnostic reports whether c is a prompt check pooled into its target's
// check whose verdict does not decide the run (only a regression would).
func diagnostic(c compare.Check) bool { return c.Diagnostic && c.Verdict != compare.Regressed }

// targets returns the target labels of cs in order of first appearance.
func targets(cs []compare.Check) []string {
	var out []string
	for _, c := range cs {
		if t := targetOf(c); !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func targetOf(c compare.Check) string { return results.Label(c.Target, c.Region) }

func isAggregate(c compare.Check) bool { return c.Pooled() }

func promptOf(c compare.Check) string {
	if isAggregate(c) {
		return aggregateLabel
	}
	return c.Prompt
}

// checkOf names the check: "ttft p95", and "ttft p95 max" for the limit
// check of a gate check's max.
func checkOf(c compare.Check) string {
	if w, ok := ruleWords(c); ok {
		return w.CheckName(c)
	}
	switch c.Rule() {
	case compare.RuleFloor:
		return c.Metric + " min"
	case compare.RuleShare:
		return c.Metric
	case compare.RuleLimit:
		return c.Metric + " " + c.Stat + " max"
	}
	return c.Metric + " " + c.Stat
}

// isLimit reports whether c is a limit check (gate max): the current
// statistic against an absolute limit, no baseline.
func isLimit(c compare.Check) bool { return c.Rule() == compare.RuleLimit }

// isFloor reports whether c holds a share to a minimum (gate min:), the
// mirror of a limit.
func isFloor(c compare.Check) bool { return c.Rule() == compare.RuleFloor }

// limitOf is the limit a limit check holds the statistic to: "max 800 ms".
func limitOf(c compare.Check) string { return "max " + numfmt.Millis(c.Max) }

// whereOf names a check in one phrase: "primary/greeting ttft p95".
func whereOf(c compare.Check) string {
	return targetOf(c) + "/" + promptOf(c) + " " + checkOf(c)
}

// message is a check's verdict as one sentence led by the metric, in the style
// ttft p95 +38% [CI +22%, +55%] > +15% tolerance (412 ms -> 569 ms).
// A limit check's reason names its statistic: "ttft p95 912 ms [95% CI 871,
// 960] > max 800 ms".
func message(c compare.Check) string {
	if isLimit(c) {
		return c.Metric + " " + Summary(c)
	}
	return checkOf(c) + " " + Summary(c)
}

// whyArrow leads a regression's attribution line in the text table.
const whyArrow = "  ↳ why: "

// attribution is the attribution of a regression as one line (diagnose's words,
// the endpoint's names in them sanitised), false when it has none.
func attribution(c compare.Check) (string, bool) {
	if c.Why == nil || c.Verdict != compare.Regressed {
		return "", false
	}
	return c.Why.Line(), true
}

// hasData reports whether both sides have a value and the ratio is defined.
func hasData(c compare.Check) bool {
	if _, ok := ruleWords(c); ok {
		return c.NCur > 0 && (c.Absolute() || c.NBase > 0)
	}
	switch c.Rule() {
	case compare.RuleFloor:
		return c.NCur > 0
	case compare.RuleShare:
		return c.NCur > 0 && c.NBase > 0
	}
	return c.NBase > 0 && c.NCur > 0 && c.Baseline > 0
}

// symmetricNote names the rows whose intervals keep both ends at the gate's
// confidence in a report whose relative checks have an ok end of their own:
// "; limits and shares: 95% intervals", or "" when it has none.
func symmetricNote(rep compare.Report) string {
	for _, cs := range [][]compare.Check{rep.Checks, rep.Aggregates} {
		for _, c := range cs {
			if r := c.Rule(); c.OkConfidence == 0 && (r == compare.RuleLimit || r == compare.RuleShare || r == compare.RuleFloor) {
				return "; limits and shares: " + confPct(rep.Confidence) + " intervals"
			}
		}
	}
	return ""
}

// ciHead is the interval column's head: "95% CI" when both ends hold at the
// gate's confidence, "CI" when the ok end has its own (the report's
// provenance line and legend give both levels).
func ciHead(rep compare.Report) string {
	if rep.OkConfidence > 0 {
		return "CI"
	}
	return confPct(rep.Confidence) + " CI"
}

// confPct formats a confidence level as a percentage: 0.95 → "95%".
func confPct(c float64) string { return fmt.Sprintf("%.4g%%", 100*c) }

func floorMS(c compare.Check) float64 { return float64(c.Tolerance.Floor) / 1e6 }

// change is the ratio as a percentage, "-" when undefined.
func change(c compare.Check) string {
	if w, ok := ruleWords(c); ok {
		return w.Change(c)
	}
	switch c.Rule() {
	case compare.RuleShare:
		if c.NBase > 0 && c.NCur > 0 {
			return sharePoints(c.Current - c.Baseline)
		}
		return "-"
	case compare.RuleFloor:
		return "-"
	case compare.RuleDifference:
		return signedMS(c.Current - c.Baseline)
	}
	if c.Ratio <= 0 {
		return "-"
	}
	return rowPct(c, c.Ratio)
}

// signedMS formats a difference in ms with its sign: "+3.12 ms", "-0.07 ms".
func signedMS(ms float64) string {
	s := numfmt.Millis(ms)
	if ms >= 0 {
		s = "+" + s
	}
	return s
}

// interval is the interval of the ratio as percentages, "-" when undefined.
func interval(c compare.Check) string {
	if w, ok := ruleWords(c); ok {
		return w.Interval(c)
	}
	if c.Lo == 0 && c.Hi == 0 {
		return "-"
	}
	if isLimit(c) { // of the statistic itself
		return "[" + limitInterval(c) + "] ms"
	}
	if c.IsShare() {
		return shareInterval(c)
	}
	if c.Scale == compare.ScaleDifference { // of current − baseline, in ms
		return "[" + strings.TrimSuffix(signedMS(c.Lo), " ms") + ", " + signedMS(c.Hi) + "]"
	}
	return "[" + rowPct(c, c.Lo) + ", " + rowPct(c, c.Hi) + "]"
}

// tolerance says in words what a check allows: "+20% or 1 ms, whichever
// is larger"; when the floor is the larger, what it is at this baseline:
// "+20% or 20 ms (+49%), whichever is larger". For tokens_per_s, the drop:
// "-13%", "-13% or 10 tokens/s (-20%), whichever is larger". An absolute
// limit is its max. The Markdown and JUnit reports carry it; the text
// table has the threshold alone (threshold).
func tolerance(c compare.Check) string {
	if w, ok := ruleWords(c); ok {
		return w.Allowed(c)
	}
	if isLimit(c) {
		return limitOf(c)
	}
	switch {
	case isFloor(c):
		return "min " + sharePercent(c.Min)
	case c.IsShare():
		return sharePoints(-c.Tolerance.Rel)
	}
	rel, floor, unit := rowPct(c, 1+c.Tolerance.Rel), floorMS(c), "ms"
	if results.HigherIsBetter(c.Metric) {
		rel, floor, unit = rowPct(c, 1/(1+c.Tolerance.Rel)), c.Tolerance.FloorRate, "tokens/s"
	}
	if floor <= 0 {
		return rel
	}
	f := fmt.Sprintf("%g %s", floor, unit)
	if _, _, sets := c.FloorSets(); sets && c.Threshold > 0 {
		f += " (" + rowPct(c, c.Threshold) + ")"
	}
	return rel + " or " + f + ", whichever is larger"
}

// threshold is the text table's tolerance: the change the check allows at
// this baseline, whichever of the relative tolerance and the floor is the
// larger ("+20%", "+48%" for a 2 ms floor on a 4.16 ms ITL; a drop for
// tokens_per_s), or the limit of a max check.
func threshold(c compare.Check) string {
	if w, ok := ruleWords(c); ok {
		return w.Allowed(c)
	}
	switch {
	case isLimit(c):
		return limitOf(c)
	case c.IsShare(): // points of a share, or its minimum: short already
		return tolerance(c)
	case c.Scale == compare.ScaleDifference: // decided on current − baseline, in ms
		return signedMS(c.Margin)
	case c.Threshold > 0:
		return rowPct(c, c.Threshold)
	case results.HigherIsBetter(c.Metric):
		return rowPct(c, 1/(1+c.Tolerance.Rel))
	}
	return rowPct(c, 1+c.Tolerance.Rel)
}

// value formats one side's statistic of metric in its unit (ms, or
// tokens/s for tokens_per_s), "-" when that side has no data.
func value(metric string, v float64, n int) string {
	if n == 0 {
		return "-"
	}
	if results.IsShare(metric) {
		return sharePercent(v)
	}
	if results.HigherIsBetter(metric) {
		return formatValue(metric, v)
	}
	return numfmt.Millis(v)
}

// tally counts a report's checks and aggregates by verdict; the pooled
// prompt checks that do not decide the run apart (diag).
type tally struct {
	regressed, inconclusive []compare.Check
	ok, improved            int
	diag                    struct{ ok, inconclusive int }
}

func count(cs []compare.Check) tally {
	var t tally
	for _, c := range cs {
		if diagnostic(c) {
			if c.Verdict == compare.Inconclusive {
				t.diag.inconclusive++
			} else {
				t.diag.ok++
			}
			continue
		}
		switch c.Verdict {
		case compare.Regressed:
			t.regressed = append(t.regressed, c)
		case compare.OK:
			t.ok++
		case compare.Improved:
			t.improved++
		default:
			t.inconclusive = append(t.inconclusive, c)
		}
	}
	return t
}

func (t tally) total() int {
	return len(t.regressed) + len(t.inconclusive) + t.ok + t.improved + t.diag.ok + t.diag.inconclusive
}

// outcome returns the gate's status word, PASS or FAIL with the strict note
// when strictness alone fails it, and the one-line account that follows it:
//
//	FAIL: 2 regressions (primary/greeting ttft p95 +38%, …); 8 ok, 1 inconclusive (…)
func outcome(rep compare.Report, strict bool) (status, detail string) {
	t := count(ordered(rep))
	status = "PASS"
	if rep.Verdict.Fails(strict) {
		status = "FAIL"
		if len(t.regressed) == 0 {
			status = "FAIL (strict: inconclusive counts as failure)"
		}
	}
	if t.total() == 0 {
		return status, "nothing was compared (see the warnings)"
	}
	var head, rest []string
	var inPrompts, inAggregates []compare.Check
	for _, c := range t.regressed {
		if c.Prompt == "" {
			inAggregates = append(inAggregates, c)
		} else {
			inPrompts = append(inPrompts, c)
		}
	}
	// Prompt regressions are counted apart from the aggregates that
	// combine them: "2 regressions" must not mean one prompt counted twice.
	// The aggregates are "all-prompts" here: "pooled" names the prompt
	// checks pooled into them (their "(pooled)" rows, "pooled prompt
	// checks" below), one word for one thing.
	for _, g := range []struct {
		cs        []compare.Check
		one, many string
	}{{inPrompts, "prompt regression", "prompt regressions"}, {inAggregates, "all-prompts regression", "all-prompts regressions"}} {
		n := len(g.cs)
		if n == 0 {
			continue
		}
		var names []string
		for _, c := range g.cs[:min(n, maxListed)] {
			if isLimit(c) {
				names = append(names, fmt.Sprintf("%s %s > %s", whereOf(c), numfmt.Millis(c.Current), numfmt.Millis(c.Max)))
				continue
			}
			if isFloor(c) {
				names = append(names, fmt.Sprintf("%s %s < %s", whereOf(c), sharePercent(c.Current), sharePercent(c.Min)))
				continue
			}
			names = append(names, whereOf(c)+" "+change(c))
		}
		if n > maxListed {
			names = append(names, fmt.Sprintf("and %d more", n-maxListed))
		}
		head = append(head, fmt.Sprintf("%s (%s)", plural(n, g.one, g.many), strings.Join(names, ", ")))
	}
	inc := ""
	if n := len(t.inconclusive); n > 0 {
		inc = fmt.Sprintf("%s undecided (%s)", plural(n, "gated check", "gated checks"), strings.Join(inconclusiveWhy(t.inconclusive), ", "))
	}
	if inc != "" && strict {
		head = append(head, inc)
	}
	if t.ok > 0 {
		rest = append(rest, fmt.Sprintf("%d ok", t.ok))
	}
	if t.improved > 0 {
		rest = append(rest, fmt.Sprintf("%d improved", t.improved))
	}
	if inc != "" && !strict {
		rest = append(rest, inc)
	}
	var diag []string
	if t.diag.ok > 0 {
		diag = append(diag, fmt.Sprintf("%d ok", t.diag.ok))
	}
	if t.diag.inconclusive > 0 {
		diag = append(diag, fmt.Sprintf("%d inconclusive", t.diag.inconclusive))
	}
	pooled := ""
	if len(diag) > 0 {
		pooled = "pooled prompt checks: " + strings.Join(diag, ", ")
	}
	parts := slices.DeleteFunc([]string{strings.Join(head, "; "), strings.Join(rest, ", "), pooled}, func(s string) bool { return s == "" })
	return status, strings.Join(parts, "; ")
}

// nextStep is the line a gate ends with when it failed or left gated
// checks undecided: what to do now. Re-running a failed check until it
// passes is an unplanned look, which voids the gate's error rates, so it is
// never the advice: a slowdown is confirmed by comparing both sides in one
// run (latgate ab) or by the nightly trend, and an undecided check is given
// the requests it needs by a larger planned design (run.max_requests).
func nextStep(rep compare.Report, opts Options) string {
	cmd := func(c, what string) string {
		if c == "" {
			return what
		}
		return what + ": " + c
	}
	undecided := compare.Undecided(rep)
	if rep.Verdict == compare.Regressed {
		if !slices.ContainsFunc(ordered(rep), func(c compare.Check) bool { return c.Verdict == compare.Regressed && !isLimit(c) && !isFloor(c) }) {
			// Only absolute limits failed: a new baseline would not change that.
			return "next: the run is above an absolute limit (a gate check's max) or below a min: raise that max (or lower that min) in the config " +
				"if the limit itself is wrong (blessing does not change a limit); else find the cause"
		}
		return "next: if the slowdown is not intended, find its cause (re-running until it passes is an unplanned look the gate's " +
			"rates do not cover; to confirm it, compare both sides in one run: latgate ab); if it is intended (a new model, server or setting), " +
			cmd(opts.Bless, "accept it as the new baseline") + " and commit the baseline"
	}
	if len(undecided) == 0 {
		if rep.Verdict.Fails(opts.Strict) {
			return "next: the gate decided nothing (see the warnings), which fails under --strict or gate.on_inconclusive: fail"
		}
		return ""
	}
	word := "note"
	if rep.Verdict.Fails(opts.Strict) {
		word = "next"
	}
	what := undecidedTake(undecided)
	policy := ""
	switch {
	case opts.Strict:
	case opts.OnInconclusive == config.OnInconclusivePass:
		policy = " (gate.on_inconclusive: pass)"
	default:
		policy = " (gate.on_inconclusive: warn passes it; fail, or --strict, fails it)"
	}
	return fmt.Sprintf("%s: %s stayed undecided after the planned rounds%s: %s", word,
		plural(len(undecided), "gated check", "gated checks"), policy, what)
}

// undecidedTake says what would decide the undecided gated checks: the
// most more requests per prompt one of them needs, and what more requests
// cannot fix.
func undecidedTake(cs []compare.Check) string {
	most, day, base, runner := 0, false, false, false
	for _, c := range cs {
		switch {
		case c.Stuck == compare.StuckRunner || c.Stuck == compare.StuckSchedule:
			runner = true
		case c.Stuck == compare.StuckDayToDay:
			day = true
		case c.More < 0:
			base = true
		default:
			most = max(most, c.More)
		}
	}
	var out []string
	if most > 0 {
		out = append(out, fmt.Sprintf("about %d more requests per prompt would decide them (raise run.max_requests)", most))
	}
	if base {
		out = append(out, "a baseline blessed with more requests (run.bless_requests)")
	}
	if day {
		out = append(out, "for the day-to-day noise, no number of requests: compare both sides in one run (latgate ab) or watch the nightly trend")
	}
	if runner {
		out = append(out, "for a busy runner, a run on a quieter one (latgate's own delay, not the endpoint's)")
	}
	if len(out) == 0 {
		out = append(out, "more requests may decide them (raise run.max_requests)")
	}
	return strings.Join(out, "; ")
}

// inconclusiveWhy says briefly why checks are inconclusive: the sample sizes
// the unresolved statistics need, then how many intervals straddle the
// tolerance, lack data, or are unbounded.
func inconclusiveWhy(cs []compare.Check) []string {
	var needs []string
	var straddle, nodata, unbounded, runner int
	for _, c := range cs {
		_, need, unit, short := c.Shortfall()
		switch {
		case c.Stuck == compare.StuckRunner || c.Stuck == compare.StuckSchedule:
			runner++
		case (isLimit(c) || c.IsShare()) && hasData(c) && !short && (c.Lo != 0 || c.Hi != 0):
			straddle++
		case !hasData(c) && !(isLimit(c) && c.NCur > 0):
			nodata++
		case short:
			s := fmt.Sprintf("%s needs ≥%d %s", checkOf(c), need, unit)
			if !slices.Contains(needs, s) {
				needs = append(needs, s)
			}
		case c.Lo == 0 && c.Hi == 0:
			unbounded++
		default:
			straddle++
		}
	}
	out := needs
	if runner > 0 {
		out = append(out, fmt.Sprintf("%d within the busy runner's delay", runner))
	}
	if straddle > 0 {
		out = append(out, plural(straddle, "straddles", "straddle")+" the tolerance")
	}
	if nodata > 0 {
		out = append(out, fmt.Sprintf("%d without data", nodata))
	}
	if unbounded > 0 {
		out = append(out, fmt.Sprintf("%d unbounded", unbounded))
	}
	return out
}

// plural formats n with the singular or plural form: "1 regression".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// provenance says what was compared and how, for the head of a report.
func provenance(rep compare.Report, opts Options) string {
	method := "distribution-free, whole requests; prompts pooled per target"
	if slices.ContainsFunc(slices.Concat(rep.Checks, rep.Aggregates), func(c compare.Check) bool {
		return c.Estimator == compare.EstimatorHL
	}) {
		// The change column and the two values beside it differ by this
		// (120 ms → 120 ms, -4%): say why before a reader distrusts both.
		method += "; a p50's change is the median of the ratios between requests (Hodges-Lehmann), not the ratio of the medians shown"
	}
	how := fmt.Sprintf("%s intervals (%s)", confPct(rep.Confidence), method)
	if rep.OkConfidence > 0 {
		how = fmt.Sprintf("intervals %s sure at the regression end, %s at the ok end%s (%s)",
			confPct((1+rep.Confidence)/2), confPct(rep.OkConfidence), symmetricNote(rep), method)
	}
	if opts.Blessed != "" && opts.BaselinePath != "" {
		opts.BaselinePath += ", " + opts.Blessed
	}
	switch {
	case opts.Results != "" && opts.BaselinePath != "":
		return fmt.Sprintf("comparing %s with baseline %s: %s", opts.Results, opts.BaselinePath, how)
	case opts.BaselinePath != "":
		return fmt.Sprintf("comparing with baseline %s: %s", opts.BaselinePath, how)
	case opts.Results != "":
		return fmt.Sprintf("comparing %s: %s", opts.Results, how)
	}
	return how
}
