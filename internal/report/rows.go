package report

import (
	"cmp"
	"slices"

	"github.com/latgate/latgate/internal/numfmt"
	"github.com/latgate/latgate/pkg/compare"
)

// Order is the config's order of targets (labels, "name@region"), prompts
// (ids) and checks ("ttft p50"), in which the text table and the Markdown
// list their rows, as a person wrote them: a target's pooled rows, which
// decide, first, then its prompts, each with its checks in the gate's order
// (a limit after its check). Names the order lacks come after, worst first.
type Order struct {
	Targets, Prompts, Checks []string
}

// inOrder returns rep's checks and aggregates in opts.Order, or worst first
// (ordered) without one.
func inOrder(rep compare.Report, opts Options) []compare.Check {
	all := ordered(rep)
	o := opts.Order
	if o == nil {
		return all
	}
	index := func(list []string, s string) int {
		if i := slices.Index(list, s); i >= 0 {
			return i
		}
		return len(list)
	}
	slices.SortStableFunc(all, func(a, b compare.Check) int {
		return cmp.Or(
			cmp.Compare(index(o.Targets, targetOf(a)), index(o.Targets, targetOf(b))),
			cmp.Compare(boolRank(!isAggregate(a)), boolRank(!isAggregate(b))),
			cmp.Compare(index(o.Prompts, a.Prompt), index(o.Prompts, b.Prompt)),
			cmp.Compare(index(o.Checks, a.Metric+" "+a.Stat), index(o.Checks, b.Metric+" "+b.Stat)),
			cmp.Compare(boolRank(isLimit(a)), boolRank(isLimit(b))),
		)
	})
	return all
}

// The one precision rule of every percentage in a row (change, interval,
// tolerance): whole percents, unless a bound of the interval would print
// equal to the tolerance it is not equal to; then the whole row has one
// decimal, so that "[+20.4%, +31.0%] vs +20.0%" never reads as a bound on
// its tolerance, and no row mixes "-89%" with "-20.3%".

// decimals reports whether c's row needs one decimal.
func decimals(c compare.Check) bool {
	if c.Threshold <= 0 || isLimit(c) || c.IsShare() || c.Scale == compare.ScaleDifference {
		return false
	}
	for _, ref := range []float64{c.Threshold, 1 / c.Threshold} {
		for _, b := range []float64{c.Lo, c.Hi} {
			if b > 0 && b != ref && numfmt.Pct(b) == numfmt.Pct(ref) {
				return true
			}
		}
	}
	return false
}

// rowPct formats a ratio of c's row by the row's precision.
func rowPct(c compare.Check, r float64) string {
	if decimals(c) {
		return numfmt.Pct1(r)
	}
	return numfmt.Pct(r)
}
