package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/latgate/latgate/internal/numfmt"
	"github.com/latgate/latgate/pkg/compare"
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
	// Rerun and Bless are the commands a failing run's last line offers as
	// the next step: measure again, or accept the change as the new
	// baseline. Empty: the step is described without a command.
	Rerun, Bless string
}

// Wall holds a run's wall times in seconds: the whole run, each target
// (keyed "name", or "name@region") and each of its prompts.
type Wall struct {
	Run     float64
	Targets map[string]float64
	Prompts map[string]map[string]float64
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

// aggregateLabel stands in the prompt column for a per-target aggregate.
const aggregateLabel = "all prompts (geomean)"

// maxListed caps the regressions named in a verdict line.
const maxListed = 2

// ordered returns the checks and aggregates of rep in one list, worst first:
// by verdict, then regressed, inconclusive and ok by decreasing ratio and
// improved by increasing ratio (compare's order for each list); on ties a
// per-prompt check comes before an aggregate.
func ordered(rep compare.Report) []compare.Check {
	all := slices.Concat(rep.Checks, rep.Aggregates)
	slices.SortStableFunc(all, compare.WorstFirst)
	return all
}

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

func isAggregate(c compare.Check) bool { return c.Prompt == "" }

func promptOf(c compare.Check) string {
	if isAggregate(c) {
		return aggregateLabel
	}
	return c.Prompt
}

// checkOf names the check: "ttft p95", and "ttft p95 max" for the limit
// check of a gate check's max.
func checkOf(c compare.Check) string {
	if isLimit(c) {
		return c.Metric + " " + c.Stat + " max"
	}
	return c.Metric + " " + c.Stat
}

// isLimit reports whether c is a limit check (gate max): the current
// statistic against an absolute limit, no baseline.
func isLimit(c compare.Check) bool { return c.Max > 0 }

// limitOf is the limit a limit check holds the statistic to: "max 800 ms".
func limitOf(c compare.Check) string { return "max " + numfmt.Millis(c.Max) }

// whereOf names a check in one phrase: "primary/greeting ttft p95".
func whereOf(c compare.Check) string {
	return targetOf(c) + "/" + promptOf(c) + " " + checkOf(c)
}

// message is a check's verdict as one sentence led by the metric, in the style
// ttft p95 +38% [95% CI +22%, +55%] > +15% tolerance (412 ms -> 569 ms).
// A limit check's reason names its statistic: "ttft p95 912 ms [95% CI 871,
// 960] > max 800 ms".
func message(c compare.Check) string {
	if isLimit(c) {
		return c.Metric + " " + reason(c)
	}
	return checkOf(c) + " " + reason(c)
}

// reason is the check's Reason as the report carries it, or its Summary.
func reason(c compare.Check) string {
	if c.Reason != "" {
		return c.Reason
	}
	return c.Summary()
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
func hasData(c compare.Check) bool { return c.NBase > 0 && c.NCur > 0 && c.Baseline > 0 }

// confPct formats a confidence level as a percentage: 0.95 → "95%".
func confPct(c float64) string { return fmt.Sprintf("%.4g%%", 100*c) }

func floorMS(c compare.Check) float64 { return float64(c.Tolerance.Floor) / 1e6 }

// change is the ratio as a percentage, "-" when undefined.
func change(c compare.Check) string {
	if c.Ratio <= 0 {
		return "-"
	}
	return numfmt.Pct(c.Ratio)
}

// interval is the interval of the ratio as percentages, "-" when undefined.
func interval(c compare.Check) string {
	if c.Lo == 0 && c.Hi == 0 {
		return "-"
	}
	if isLimit(c) { // of the statistic itself
		return "[" + c.LimitInterval() + "] ms"
	}
	return c.Interval()
}

// tolerance says in words what a check allows: "+20% or 1 ms, whichever
// is larger"; when the floor is the larger, what it is at this baseline:
// "+20% or 20 ms (+49%), whichever is larger". For tokens_per_s, the drop:
// "-13%", "-13% or 10 tokens/s (-20%), whichever is larger". An absolute
// limit is its max.
func tolerance(c compare.Check) string {
	if isLimit(c) {
		return limitOf(c)
	}
	rel, floor, unit := numfmt.Pct(1+c.Tolerance.Rel), floorMS(c), "ms"
	if results.HigherIsBetter(c.Metric) {
		rel, floor, unit = numfmt.Pct(1/(1+c.Tolerance.Rel)), c.Tolerance.FloorRate, "tokens/s"
	}
	if floor <= 0 {
		return rel
	}
	f := fmt.Sprintf("%g %s", floor, unit)
	if _, _, sets := c.FloorSets(); sets && c.Threshold > 0 {
		f += " (" + numfmt.Pct(c.Threshold) + ")"
	}
	return rel + " or " + f + ", whichever is larger"
}

// value formats one side's statistic of metric in its unit (ms, or
// tokens/s for tokens_per_s), "-" when that side has no data.
func value(metric string, v float64, n int) string {
	if n == 0 {
		return "-"
	}
	if results.HigherIsBetter(metric) {
		return compare.FormatValue(metric, v)
	}
	return numfmt.Millis(v)
}

// tally counts a report's checks and aggregates by verdict.
type tally struct {
	regressed, inconclusive []compare.Check
	ok, improved            int
}

func count(cs []compare.Check) tally {
	var t tally
	for _, c := range cs {
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

func (t tally) total() int { return len(t.regressed) + len(t.inconclusive) + t.ok + t.improved }

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
	for _, g := range []struct {
		cs        []compare.Check
		one, many string
	}{{inPrompts, "prompt regression", "prompt regressions"}, {inAggregates, "aggregate regression", "aggregate regressions"}} {
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
			names = append(names, whereOf(c)+" "+change(c))
		}
		if n > maxListed {
			names = append(names, fmt.Sprintf("and %d more", n-maxListed))
		}
		head = append(head, fmt.Sprintf("%s (%s)", plural(n, g.one, g.many), strings.Join(names, ", ")))
	}
	inc := ""
	if n := len(t.inconclusive); n > 0 {
		inc = fmt.Sprintf("%d inconclusive (%s)", n, strings.Join(inconclusiveWhy(t.inconclusive), ", "))
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
	parts := slices.DeleteFunc([]string{strings.Join(head, "; "), strings.Join(rest, ", ")}, func(s string) bool { return s == "" })
	return status, strings.Join(parts, "; ")
}

// nextStep is the line a failing gate ends with: what to do now.
func nextStep(rep compare.Report, opts Options) string {
	if !rep.Verdict.Fails(opts.Strict) {
		return ""
	}
	cmd := func(c, what string) string {
		if c == "" {
			return what
		}
		return what + ": " + c
	}
	if rep.Verdict != compare.Regressed {
		return "next: measure more to decide the inconclusive checks (raise run.requests or run.max_requests), or " +
			"drop --strict; " + cmd(opts.Rerun, "re-run")
	}
	if !slices.ContainsFunc(ordered(rep), func(c compare.Check) bool { return c.Verdict == compare.Regressed && !isLimit(c) }) {
		// Only absolute limits failed: a new baseline would not change that.
		return "next: the run is above an absolute limit (a gate check's max): find the cause and " + cmd(opts.Rerun, "re-run the check") +
			"; if the limit itself is wrong, raise that max in the config (blessing does not change a limit)"
	}
	return "next: if the slowdown is not intended, find its cause and " + cmd(opts.Rerun, "re-run the check") +
		"; if it is intended (a new model, server or setting), " + cmd(opts.Bless, "accept it as the new baseline") +
		" and commit the baseline"
}

// inconclusiveWhy says briefly why checks are inconclusive: the sample sizes
// the unresolved statistics need, then how many intervals straddle the
// tolerance, lack data, or are unbounded.
func inconclusiveWhy(cs []compare.Check) []string {
	var needs []string
	var straddle, nodata, unbounded int
	for _, c := range cs {
		_, need, unit, short := c.Shortfall()
		switch {
		case isLimit(c) && c.NCur > 0 && !short && (c.Lo != 0 || c.Hi != 0):
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
	how := fmt.Sprintf("%s bootstrap intervals, %d resamples, seed %d", confPct(rep.Confidence), rep.Resamples, rep.Seed)
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
