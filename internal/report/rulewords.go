package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/latgate/latgate/pkg/compare"
)

// RuleWords are the words of a gate rule beyond compare's five: the
// compare.RuleDef that makes a rule's checks implements them, so that a
// new rule, its decision and its words are one value in one file. Every
// output words such a check through them: the table's columns, the
// one-line phrases of progress and warnings, JUnit's message and detail,
// and the sentence a results file keeps. A RuleDef without them is
// named by its rule and shows its figures plainly (plainWords).
type RuleWords interface {
	// CheckName names the check in the table's check column: "ttft
	// spread".
	CheckName(c compare.Check) string
	// Value formats one side's estimate (Baseline or Current), for the
	// table's baseline and current columns.
	Value(c compare.Check, v float64) string
	// Change is the estimate the check is decided on and Interval its
	// interval, in the unit of Allowed: "2.4×", "[2.1×, 2.8×]".
	Change(c compare.Check) string
	Interval(c compare.Check) string
	// Allowed is what the check is held to: "≤ 3×".
	Allowed(c compare.Check) string
	// Summary is the verdict as one sentence, led by what it measured.
	Summary(c compare.Check) string
}

// ruleWords returns the words of c's rule when it is beyond the five
// (its RuleDef's, else plainWords), false for the five, whose words are
// this package's switches on compare.Rule.
func ruleWords(c compare.Check) (RuleWords, bool) {
	if c.Rule().Builtin() {
		return nil, false
	}
	if w, ok := c.Def.(RuleWords); ok {
		return w, true
	}
	return plainWords{}, true
}

// plainWords word a check of a rule that brought no words of its own: its
// rule's name and its figures as numbers.
type plainWords struct{}

func (plainWords) CheckName(c compare.Check) string {
	return strings.TrimSpace(c.Metric + " " + c.Stat + " " + string(c.Rule()))
}

func (plainWords) Value(_ compare.Check, v float64) string {
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func (w plainWords) Change(c compare.Check) string { return w.Value(c, c.Current) }

func (w plainWords) Interval(c compare.Check) string {
	if c.Lo == 0 && c.Hi == 0 {
		return "-"
	}
	return "[" + w.Value(c, c.Lo) + ", " + w.Value(c, c.Hi) + "]"
}

func (plainWords) Allowed(c compare.Check) string { return "rule " + string(c.Rule()) }

func (w plainWords) Summary(c compare.Check) string {
	return fmt.Sprintf("%s %s: %s", w.Change(c), w.Interval(c), c.Verdict)
}

// sideValue formats one side's statistic of c (v, from n requests) in its
// unit, "-" when that side has no data.
func sideValue(c compare.Check, v float64, n int) string {
	if w, ok := ruleWords(c); ok && n > 0 {
		return w.Value(c, v)
	}
	return value(c.Metric, v, n)
}

// rulePhrase is a rule's change with its interval in one phrase (Change):
// "2.4× [2.1×, 2.8×]", the change alone when it has no interval.
func rulePhrase(w RuleWords, c compare.Check) string {
	if iv := w.Interval(c); iv != "-" && iv != "" {
		return w.Change(c) + " " + iv
	}
	return w.Change(c)
}
