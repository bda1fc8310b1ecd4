package compare

import (
	"fmt"
	"math"

	"github.com/latgate/latgate/internal/numfmt"
)

// Summary returns the verdict of c as one sentence in the style of the text
// table and the JUnit failure message, for example
//
//	+38% [95% CI +22%, +55%] > +15% tolerance (412 ms -> 569 ms)
//
// It is derived from the other fields only; Compare stores it in Reason.
func (c Check) Summary() string {
	if c.Max > 0 {
		return c.limitSummary()
	}
	values := fmt.Sprintf("(%s -> %s)", fmtMS(c.Baseline), fmtMS(c.Current))
	switch {
	case c.NBase == 0 && c.NCur == 0:
		return fmt.Sprintf("no %s values in either run", c.Metric)
	case c.NBase == 0:
		return fmt.Sprintf("no %s values in the baseline", c.Metric)
	case c.NCur == 0:
		return fmt.Sprintf("no %s values in the current run", c.Metric)
	case c.Baseline <= 0:
		return fmt.Sprintf("baseline %s is 0 ms, so no ratio can be formed %s", c.Stat, values)
	}
	change := fmt.Sprintf("%s [%s%% CI %s, %s]", numfmt.Pct(c.Ratio), fmtConf(c.Confidence), numfmt.PctBeside(c.Lo, c.bound()), numfmt.PctBeside(c.Hi, c.bound()))
	if !c.resolved() {
		have, need, unit := c.unresolved()
		return fmt.Sprintf("%s unresolved: %s needs at least %d %s per side, have %d %s", change, c.Stat, need, unit, have, values)
	}
	if c.Verdict == Inconclusive && c.Lo == 0 && c.Hi == 0 {
		return fmt.Sprintf("%s, interval unbounded: some resamples have a zero baseline %s", numfmt.Pct(c.Ratio), values)
	}
	tol := numfmt.Pct(c.Threshold)
	if c.Verdict == Improved {
		tol = numfmt.Pct(1 / c.Threshold)
	}
	tol += " tolerance"
	if f := floorMS(c.Tolerance); f/c.Baseline > c.Tolerance.Rel {
		tol += fmt.Sprintf(" (%g ms floor)", f)
	}
	switch c.Verdict {
	case Regressed:
		return fmt.Sprintf("%s > %s %s", change, tol, values)
	case Improved:
		return fmt.Sprintf("%s < %s %s", change, tol, values)
	case OK:
		return fmt.Sprintf("%s within %s: rules out > %s %s", change, tol, numfmt.Pct(c.Hi), values)
	}
	return fmt.Sprintf("%s straddles %s: %s %s", change, tol, c.Decider(), values)
}

// Decider says what would decide an inconclusive check, for example "about
// 90 more requests would decide it" or "the baseline is too noisy to decide
// it: bless with more requests".
func (c Check) Decider() string {
	switch {
	case c.More < 0 && c.Max > 0:
		return "the statistic sits on the limit: more requests may not decide it"
	case c.More < 0:
		return "the baseline has too few requests to decide it: bless with more"
	case c.More > 0:
		return fmt.Sprintf("about %d more %s would decide it", c.More, plural(c.More, "request", "requests"))
	}
	return "more requests may decide it"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// bound is the threshold an interval bound is judged against: the tolerance,
// or its mirror for an improvement.
func (c Check) bound() float64 {
	if c.Verdict == Improved && c.Threshold > 0 {
		return 1 / c.Threshold
	}
	return c.Threshold
}

// Interval formats the interval of the ratio: "[+22%, +55%]", with a decimal
// where a bound would otherwise print equal to the tolerance.
func (c Check) Interval() string {
	return "[" + numfmt.PctBeside(c.Lo, c.bound()) + ", " + numfmt.PctBeside(c.Hi, c.bound()) + "]"
}

// fmtConf formats a confidence level as a percentage: 0.95 → "95".
func fmtConf(c float64) string { return fmt.Sprintf("%.4g", c*100) }

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
