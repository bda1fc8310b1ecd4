package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/latgate/latgate/internal/numfmt"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/results"
)

// The words of one check: what its verdict says (Summary, the sentence of
// the JUnit failure and of a results file's "reason"), what would decide it
// (Decider), its change and allowance as a phrase (ChangePhrase, Allowed),
// and the formats of its values and intervals. pkg/compare decides and
// keeps numbers; every sentence about a check is made here.

// Summary returns the verdict of c as one sentence in the style of the text
// table and the JUnit failure message, for example
//
//	+38% [CI +22%, +55%] > +15% tolerance (412 ms -> 569 ms)
//
// ("CI" alone when the ok end has its own level, OkConfidence; "95% CI"
// when both ends are at Confidence).
//
// It is derived from the other fields only; a results file stores it in
// each check's "reason" (WithReasons).
func Summary(c compare.Check) string {
	if c.Verdict == compare.Unbaselined {
		return "new: no baseline: measured, not gated; bless to gate it from now on"
	}
	if w, ok := ruleWords(c); ok {
		return w.Summary(c)
	}
	switch c.Rule() {
	case compare.RuleShare, compare.RuleFloor:
		return shareSummary(c)
	case compare.RuleLimit:
		return limitSummary(c)
	}
	values := fmt.Sprintf("(%s -> %s)", formatValue(c.Metric, c.Baseline), formatValue(c.Metric, c.Current))
	switch {
	case c.NBase == 0 && c.NCur == 0:
		return fmt.Sprintf("no %s values in either run", c.Metric)
	case c.NBase == 0:
		return fmt.Sprintf("no %s values in the baseline", c.Metric)
	case c.NCur == 0:
		return fmt.Sprintf("no %s values in the current run", c.Metric)
	case !c.Resolved():
		have, need, unit := c.Unresolved()
		return fmt.Sprintf("%s unresolved: %s needs at least %d %s per side, have %d %s", pctOrDash(c.Ratio), c.Stat, need, unit, have, values)
	case c.Scale == compare.ScaleDifference:
		return differenceSummary(c, values)
	case c.Baseline <= 0:
		return fmt.Sprintf("baseline %s is %s, so no ratio can be formed %s", c.Stat, map[bool]string{false: "0 ms", true: "0 tokens/s"}[results.HigherIsBetter(c.Metric)], values)
	}
	if c.Lo == 0 && c.Hi == 0 {
		return fmt.Sprintf("%s, interval unbounded: the data do not bound it at this level %s", numfmt.Pct(c.Ratio), values)
	}
	change := fmt.Sprintf("%s [%s %s, %s]", numfmt.Pct(c.Ratio), ciLabel(c), numfmt.PctBeside(c.Lo, c.Bound()), numfmt.PctBeside(c.Hi, c.Bound()))
	tol := numfmt.Pct(c.Threshold)
	if c.Verdict == compare.Improved {
		tol = numfmt.Pct(1 / c.Threshold)
	}
	tol += " tolerance"
	if f, unit, sets := c.FloorSets(); sets {
		tol += fmt.Sprintf(" (%g %s floor)", f, unit)
	}
	worse, better, bound := ">", "<", c.Hi // the bad direction is up
	if results.HigherIsBetter(c.Metric) {
		worse, better, bound = "<", ">", c.Lo // a rate: the bad direction is down
	}
	_, lo, _, tau := c.Slowdown()
	switch {
	case c.Verdict == compare.Regressed && c.Family > 1:
		return fmt.Sprintf("%s %s %s %s, adjusted for %s", change, worse, tol, values, holmFamily(c))
	case c.Verdict == compare.Regressed:
		return fmt.Sprintf("%s %s %s %s", change, worse, tol, values)
	case c.Verdict == compare.Improved:
		return fmt.Sprintf("%s %s %s %s", change, better, tol, values)
	case c.Verdict == compare.OK:
		return fmt.Sprintf("%s within %s: rules out %s %s %s", change, tol, worse, numfmt.Pct(bound), values)
	case c.Hidden && lo > tau:
		return fmt.Sprintf("%s %s %s on its own, not after adjusting for %s; apart from the other prompts at its last look, it holds the run undecided %s",
			change, worse, tol, holmFamily(c), values)
	case c.Hidden:
		return fmt.Sprintf("%s straddles %s, apart from the other prompts at its last look: it holds the run undecided %s", change, tol, values)
	case lo > tau:
		return fmt.Sprintf("%s %s %s on its own, not after adjusting for %s %s", change, worse, tol, holmFamily(c), values)
	case c.Diagnostic:
		return fmt.Sprintf("%s straddles %s (pooled into all prompts: does not hold the run) %s", change, tol, values)
	}
	return fmt.Sprintf("%s straddles %s: %s %s", change, tol, Decider(c), values)
}

// holmFamily names the prompt tests a check was adjusted for: "10 prompt
// tests (Holm)", or under conditional Holm (over those beyond their
// tolerance, at half the level) "the 1 of 10 prompt tests beyond tolerance
// (Holm)".
func holmFamily(c compare.Check) string {
	if c.Beyond <= 0 {
		return fmt.Sprintf("%d prompt tests (Holm)", c.Family)
	}
	return fmt.Sprintf("the %d of %d prompt tests beyond tolerance (Holm)", c.Beyond, c.Family)
}

// differenceSummary is Summary on the difference scale, for example
// "+3.1 ms [CI +2.8, +3.5] > 0.25 ms margin (0.00 ms -> 3.12 ms)".
func differenceSummary(c compare.Check, values string) string {
	ms := func(x float64) string {
		s := strings.TrimSuffix(fmtMS(x), " ms")
		if x >= 0 {
			s = "+" + s
		}
		return s
	}
	change := fmt.Sprintf("%s ms [%s %s, %s] on the difference", ms(c.Current-c.Baseline), ciLabel(c), ms(c.Lo), ms(c.Hi))
	margin := fmtMS(c.Margin) + " margin"
	switch c.Verdict {
	case compare.Regressed:
		return fmt.Sprintf("%s > %s %s", change, margin, values)
	case compare.Improved:
		return fmt.Sprintf("%s < -%s %s", change, margin, values)
	case compare.OK:
		return fmt.Sprintf("%s within %s %s", change, margin, values)
	}
	return fmt.Sprintf("%s straddles %s: %s %s", change, margin, Decider(c), values)
}

func pctOrDash(r float64) string {
	if r <= 0 {
		return "-"
	}
	return numfmt.Pct(r)
}

// Decider says what would decide an inconclusive check, for example "about
// 90 more requests would decide it", "the baseline has too few requests to
// decide it: bless with more", or "the day-to-day noise (±3%) keeps it
// undecided: compare both in one run (latgate ab) or watch the nightly".
func Decider(c compare.Check) string {
	switch {
	case c.More < 0 && c.Absolute():
		return "the statistic sits on the limit: more requests may not decide it"
	case c.Stuck == compare.StuckSchedule:
		return fmt.Sprintf("latgate could not send on the arrival schedule (its sends were up to %s late at P99): the endpoint got less load than the rate asks, so the run decides nothing of it; re-run on a quieter runner, or at a lower run.rate", numfmt.Millis(c.RunnerLag))
	case c.Stuck == compare.StuckRunner:
		return fmt.Sprintf("latgate's own runner was busy (its reads lagged by up to about %s): a change of this size may be its delay, not the endpoint's; re-run on a quieter runner", numfmt.Millis(c.RunnerLag))
	case c.More < 0 && c.Stuck == compare.StuckDayToDay:
		return fmt.Sprintf("the day-to-day noise (±%s per run) keeps it undecided however many requests: compare both in one run (latgate ab) or watch the nightly trend", pctNum(c.DayNoise))
	case c.More < 0:
		return "the baseline has too few requests to decide it: bless with more"
	case c.More > 0:
		return fmt.Sprintf("about %d more %s would decide it", c.More, pluralWord(c.More, "request", "requests"))
	}
	return "more requests may decide it"
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// ciLabel names the check's interval: "95% CI" when both ends are at the
// gate's confidence; "CI" when the ok end has its own (OkConfidence), the
// report's provenance line and legend then giving both levels.
func ciLabel(c compare.Check) string {
	if c.OkConfidence > 0 {
		return "CI"
	}
	return fmtConf(c.Confidence) + "% CI"
}

// fmtConf formats a confidence level as a percentage: 0.95 → "95".
func fmtConf(c float64) string { return fmt.Sprintf("%.4g", c*100) }

// formatValue formats a value of metric in its unit: milliseconds (fmtMS)
// for a duration, tokens per second with three significant digits for
// tokens_per_s.
func formatValue(metric string, v float64) string {
	if !results.HigherIsBetter(metric) {
		return fmtMS(v)
	}
	switch a := math.Abs(v); {
	case a >= 100:
		return fmt.Sprintf("%.0f tokens/s", v)
	case a >= 10:
		return fmt.Sprintf("%.1f tokens/s", v)
	case a == 0:
		return "0 tokens/s"
	}
	return fmt.Sprintf("%.2f tokens/s", v)
}

// fmtMS formats milliseconds with three significant digits or whole numbers.
func fmtMS(ms float64) string {
	switch a := math.Abs(ms); {
	case a >= 100:
		return fmt.Sprintf("%.0f ms", ms)
	case a >= 10:
		return fmt.Sprintf("%.1f ms", ms)
	}
	return fmt.Sprintf("%.2f ms", ms)
}

// Change is c's change with its interval, in one phrase for a progress or
// warning line: "+12% [-3%, +31%]" of the ratio; on the difference scale,
// where a baseline near 0 ms makes any ratio meaningless,
// "+0.57 ms [+0.06, +0.69 ms]"; a limit's statistic, "812 ms [790, 840 ms]";
// a share's difference, "-3 pts [-5, -1 pts]".
func ChangePhrase(c compare.Check) string {
	signed := func(ms float64) string {
		s := strings.TrimSuffix(fmtMS(ms), " ms")
		if ms >= 0 {
			s = "+" + s
		}
		return s
	}
	if w, ok := ruleWords(c); ok {
		return rulePhrase(w, c)
	}
	// No interval yet (the statistic needs more requests than measured):
	// the table's "-", said in words, never a [-100%, -100%] read off its
	// zero ends.
	none := c.Lo == 0 && c.Hi == 0
	iv := func(s string) string {
		if none {
			return " (no interval yet)"
		}
		return " " + s
	}
	switch c.Rule() {
	case compare.RuleFloor:
		return sharePercent(c.Current) + iv(shareInterval(c))
	case compare.RuleShare:
		return sharePoints(c.Current-c.Baseline) + iv(shareInterval(c))
	case compare.RuleLimit:
		return fmtMS(c.Current) + iv("["+limitInterval(c)+" ms]")
	case compare.RuleDifference:
		return signed(c.Current-c.Baseline) + " ms" + iv(fmt.Sprintf("[%s, %s ms]", signed(c.Lo), signed(c.Hi)))
	}
	return pctOrDash(c.Ratio) + iv(fmt.Sprintf("[%s, %s]", numfmt.PctBeside(c.Lo, c.Bound()), numfmt.PctBeside(c.Hi, c.Bound())))
}

// Allowed is what c's change is held to, in the unit of Change: "+35%", a
// margin "±0.25 ms" on the difference scale, "max 800 ms", "min 95%".
func Allowed(c compare.Check) string {
	if w, ok := ruleWords(c); ok {
		return w.Allowed(c)
	}
	switch c.Rule() {
	case compare.RuleFloor:
		return "min " + sharePercent(c.Min)
	case compare.RuleShare:
		return sharePoints(c.Threshold)
	case compare.RuleLimit:
		return "max " + fmtMS(c.Max)
	case compare.RuleDifference:
		return "±" + fmtMS(c.Margin)
	}
	if c.Verdict == compare.Improved && c.Threshold > 0 {
		return numfmt.Pct(1 / c.Threshold)
	}
	return numfmt.Pct(c.Threshold)
}

// sharePoints formats a difference of shares in points: -0.98 → "-98 pts".
func sharePoints(d float64) string {
	v := math.Round(d * 100)
	if v == 0 {
		v = 0
	}
	return fmt.Sprintf("%+.0f pts", v)
}

// sharePercent formats a share: 0.98 → "98%", with a decimal near 0 and 1.
func sharePercent(p float64) string {
	v := 100 * p
	if v > 0 && v < 1 || v > 99 && v < 100 {
		return fmt.Sprintf("%.1f%%", v)
	}
	return fmt.Sprintf("%.0f%%", math.Round(v))
}

// ShareInterval formats a share check's interval: of the difference in
// points ("[-100, -93] pts"), or of the share ("[88%, 96%]"; a bound that
// would print equal to min but is not gets a decimal: "[88%, 94.9%]").
func shareInterval(c compare.Check) string {
	return "[" + shareBounds(c) + "]" + map[bool]string{false: " pts", true: ""}[c.Rule() == compare.RuleFloor]
}

func shareBounds(c compare.Check) string {
	if c.Rule() == compare.RuleFloor {
		f := func(x float64) string {
			if x != c.Min && sharePercent(x) == sharePercent(c.Min) {
				return fmt.Sprintf("%.1f%%", 100*x)
			}
			return sharePercent(x)
		}
		return f(c.Lo) + ", " + f(c.Hi)
	}
	f := func(x float64) string { return strings.TrimSuffix(sharePoints(x), " pts") }
	return f(c.Lo) + ", " + f(c.Hi)
}

// shareSummary is Summary for a share check, for example
//
//	100% → 0% (-100 pts [95% CI -100, -93]) < -25 pts tolerance
//	93% [95% CI 88%, 96%] < min 95%
func shareSummary(c compare.Check) string {
	conf := fmtConf(c.Confidence)
	if c.Rule() == compare.RuleFloor {
		limit := "min " + sharePercent(c.Min)
		switch {
		case c.NCur == 0:
			return fmt.Sprintf("no %s values in the current run (%s)", c.Metric, limit)
		case c.NCur < compare.ShareNeed:
			return fmt.Sprintf("%s of %d requests unresolved against %s: needs at least %d", sharePercent(c.Current), c.NCur, limit, compare.ShareNeed)
		}
		v := fmt.Sprintf("%s of %d requests [%s%% CI %s]", sharePercent(c.Current), c.NCur, conf, shareBounds(c))
		switch c.Verdict {
		case compare.Regressed:
			return v + " < " + limit
		case compare.OK:
			return fmt.Sprintf("%s: ≥ %s ruled in", v, sharePercent(c.Min))
		}
		return fmt.Sprintf("%s straddles %s: %s", v, limit, Decider(c))
	}
	switch {
	case c.NBase == 0 && c.NCur == 0:
		return fmt.Sprintf("no %s values in either run", c.Metric)
	case c.NBase == 0:
		return fmt.Sprintf("no %s values in the baseline", c.Metric)
	case c.NCur == 0:
		return fmt.Sprintf("no %s values in the current run", c.Metric)
	}
	values := fmt.Sprintf("%s → %s", sharePercent(c.Baseline), sharePercent(c.Current))
	if min(c.NBase, c.NCur) < compare.ShareNeed {
		return fmt.Sprintf("%s unresolved: needs at least %d requests per side, have %d", values, compare.ShareNeed, min(c.NBase, c.NCur))
	}
	change := fmt.Sprintf("%s (%s [%s%% CI %s])", values, sharePoints(c.Current-c.Baseline), conf, shareBounds(c))
	tol := sharePoints(-c.Tolerance.Rel) + " tolerance"
	switch c.Verdict {
	case compare.Regressed:
		return fmt.Sprintf("%s < %s", change, tol)
	case compare.Improved:
		return fmt.Sprintf("%s > %s", change, strings.Replace(tol, "-", "+", 1))
	case compare.OK:
		return fmt.Sprintf("%s within %s: rules out < %s", change, tol, sharePoints(c.Lo))
	}
	return fmt.Sprintf("%s straddles %s: %s", change, tol, Decider(c))
}

// limitSummary is Summary for a limit check, for example
//
//	p95 912 ms [95% CI 871, 960] > max 800 ms
//	p95 512 ms [95% CI 490, 540]: p95 ≤ 800 ms ruled in
func limitSummary(c compare.Check) string {
	limit := "max " + fmtMS(c.Max)
	if c.NCur == 0 {
		return fmt.Sprintf("no %s values in the current run (%s)", c.Metric, limit)
	}
	value := fmt.Sprintf("%s %s", c.Stat, fmtMS(c.Current))
	if !c.Resolved() {
		have, need, unit := c.Unresolved()
		return fmt.Sprintf("%s unresolved against %s: %s needs at least %d %s, have %d", value, limit, c.Stat, need, unit, have)
	}
	if c.Lo == 0 && c.Hi == 0 {
		return fmt.Sprintf("%s, interval unbounded (%s)", value, limit)
	}
	ci := fmt.Sprintf("%s [%s%% CI %s]", value, fmtConf(c.Confidence), limitInterval(c))
	switch c.Verdict {
	case compare.Regressed:
		return fmt.Sprintf("%s > %s", ci, limit)
	case compare.OK:
		return fmt.Sprintf("%s: %s ≤ %s ruled in", ci, c.Stat, fmtMS(c.Max))
	}
	return fmt.Sprintf("%s straddles %s: %s", ci, limit, Decider(c))
}

// LimitInterval formats a limit check's interval of the statistic in the
// unit and precision of its value: "871, 960".
func limitInterval(c compare.Check) string {
	f := func(ms float64) string { return strings.TrimSuffix(fmtMS(ms), " ms") }
	return f(c.Lo) + ", " + f(c.Hi)
}

// DriftSummary says what compare.SelfDrift found, the three largest changes first:
//
//	local/greeting ttft p50 +400% [+380%, +421%] (22.1 ms in the first half → 111 ms in the second), and 3 more
func DriftSummary(drift []compare.Check) string {
	var parts []string
	for i, c := range drift {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(drift)-3))
			break
		}
		who := c.Prompt
		if who == "" {
			who = "all prompts"
		}
		parts = append(parts, fmt.Sprintf("%s/%s %s %s %s (%s in the first half → %s in the second)",
			results.Label(c.Target, c.Region), who, c.Metric, c.Stat, ChangePhrase(c),
			driftValue(c.Metric, c.Baseline), driftValue(c.Metric, c.Current)))
	}
	return strings.Join(parts, ", ")
}

// driftValue formats a statistic in its metric's unit.
func driftValue(metric string, v float64) string {
	if metric == results.TokensPerS {
		return fmt.Sprintf("%.0f tokens/s", v)
	}
	return numfmt.Millis(v)
}

// WithReasons returns rep with each check's Reason set to its Summary and
// its Labels to the words of what changed for it (Check.Changed), the
// sentence a results file carries beside the numbers for a reader of the
// JSON (results/v1's "reason"), and its Warnings the words of every warning
// (Warnings); rep itself is not modified.
func WithReasons(rep compare.Report) compare.Report {
	rep.Warnings, rep.Found = Warnings(rep), nil
	for _, cs := range []*[]compare.Check{&rep.Checks, &rep.Aggregates, &rep.New} {
		out := slices.Clone(*cs)
		for i := range out {
			out[i].Reason, out[i].Labels = Summary(out[i]), labelsOf(out[i])
		}
		*cs = out
	}
	return rep
}

// tableInterval is a check's interval as the text tables write it, beside
// its change: a unit the change already says ("-3.70 ms", "-99 pts") is
// not said again ("[-4.23, -3.51]", "[-100, -80]"); a ratio's percentages
// and a share's keep theirs.
func tableInterval(c compare.Check) string {
	iv, ch := interval(c), change(c)
	i := strings.LastIndexByte(ch, ' ')
	if i < 0 {
		return iv
	}
	unit := ch[i:]
	if s, ok := strings.CutSuffix(iv, unit+"]"); ok {
		return s + "]"
	}
	if s, ok := strings.CutSuffix(iv, "]"+unit); ok {
		return s + "]"
	}
	return iv
}
