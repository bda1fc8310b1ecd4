package compare

// Rule is the kind of decision a check is: which of its fields are set,
// what its interval bounds, and which function decides it. Compare sets a
// check's rule from its gate check (max:, min:, a share metric) and, for a
// latency statistic, from the scale its interval took (Scale); everything
// that reads a check — the rounds, the pooling, the report — asks Rule
// rather than reading the fields that imply it.
//
// A new rule is a constant here, its case in Check.Rule, its decide
// function in Decide's switch, and its words in internal/report's switches
// on Rule (Summary, ChangePhrase, Allowed, checkOf).
type Rule string

const (
	// RuleRatio: a latency statistic (or tokens_per_s) relative to its
	// baseline, current/baseline against the tolerance (Threshold).
	RuleRatio Rule = "ratio"
	// RuleDifference: a latency statistic on current − baseline in
	// milliseconds against Margin, because a side's interval reaches 0 ms
	// (chunks that share one socket read have a gap of 0).
	RuleDifference Rule = "difference"
	// RuleLimit: the current statistic against an absolute limit in
	// milliseconds (gate max:), no baseline (DecideLimit).
	RuleLimit Rule = "limit"
	// RuleShare: a share's change in points against its tolerance
	// (DecideShare).
	RuleShare Rule = "share"
	// RuleFloor: a share against an absolute least (gate min:), no
	// baseline (DecideShare).
	RuleFloor Rule = "floor"
)

// Rules lists every rule, in the order above.
func Rules() []Rule {
	return []Rule{RuleRatio, RuleDifference, RuleLimit, RuleShare, RuleFloor}
}

// Rule returns the kind of decision c is.
func (c Check) Rule() Rule {
	switch {
	case c.IsShare() && c.Min > 0:
		return RuleFloor
	case c.IsShare():
		return RuleShare
	case c.Max > 0:
		return RuleLimit
	case c.Scale == ScaleDifference:
		return RuleDifference
	}
	return RuleRatio
}

// Absolute reports whether c holds the current run to a bound of its own
// (a limit or a floor), with no baseline in the decision.
func (c Check) Absolute() bool {
	r := c.Rule()
	return r == RuleLimit || r == RuleFloor
}

// Pooled reports whether c is a target's check over its prompts pooled
// (Prompt empty), not one prompt's.
func (c Check) Pooled() bool { return c.Prompt == "" }
