package compare

import (
	"slices"

	"github.com/latgate/latgate/pkg/config"
)

// Rule is the kind of decision a check is: which of its fields are set,
// what its interval bounds, and which function decides it. Compare sets a
// check's rule from its gate check (max:, min:, a share metric) and, for a
// latency statistic, from the scale its interval took (Scale); everything
// that reads a check — the rounds, the pooling, the report — asks Rule
// rather than reading the fields that imply it.
//
// These five are built in: their checks come from the gate's config, and
// their words are internal/report's. A rule beyond them is a RuleDef,
// given to a comparison in Setup.Rules: one value that makes its checks
// and decides them (and, implementing internal/report's RuleWords, words
// them), in one file.
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

// Rule returns the kind of decision c is: its RuleDef's name when a rule
// beyond the five made it.
func (c Check) Rule() Rule {
	switch {
	case c.Def != nil:
		return c.Def.Name()
	case c.Kind != "":
		return c.Kind // read back from a results file, without its RuleDef
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
	if c.Def != nil {
		return c.Def.Absolute()
	}
	r := c.Rule()
	return r == RuleLimit || r == RuleFloor
}

// Pooled reports whether c is a target's check over its prompts pooled
// (Prompt empty), not one prompt's.
func (c Check) Pooled() bool { return c.Prompt == "" }

// Builtin reports whether r is one of the five rules latgate's gate
// config makes (Rules), not a RuleDef's.
func (r Rule) Builtin() bool { return slices.Contains(Rules(), r) }

// A RuleDef is a gate rule beyond the five, given to a comparison in
// Setup.Rules. It makes its own checks from the two sides, after the cold
// cut, and decides them: each check's Verdict (inconclusive when more
// requests could decide it, ok, regressed or improved), with Target,
// Region, Prompt, Metric and Stat naming it, its counts, and what it
// estimated in Current (Baseline), Lo–Hi. CompareWith sets each check's
// Def to the rule, and from then on the check is like any other: an
// undecided one holds the run and takes part in check's rounds
// (Undecided, NextRound: its prompt is measured to the next look and
// every rule asked again), a regressed one fails it, and every output
// shows it; a Need above NCur is warned as any check's shortfall. It is
// not pooled with the prompts' other checks, and the busy-runner rule,
// which reads milliseconds, leaves its verdicts alone.
//
// Its words come from internal/report's RuleWords, which the same value
// implements; the report names a rule without them by its Name.
type RuleDef interface {
	// Name is the rule's name (Check.Rule, a results file's "rule"); it
	// must not be one of the five's.
	Name() Rule
	// Absolute reports whether its checks hold the current run to a bound
	// of their own, with no baseline (Check.Absolute: an undecided one
	// needs only current requests).
	Absolute() bool
	// Checks returns its decided checks of one comparison.
	Checks(in RuleInput) []Check
}

// RuleInput is what a RuleDef decides from: both sides (cold heads
// already left out), the gate, and the look the comparison is at.
type RuleInput struct {
	Base, Cur Side
	Gate      config.Gate
	// Confidence is the gate's two-sided confidence; Level returns the
	// level of one check's interval at this look.
	Confidence float64
	Design     Design
}

// Level is the two-sided level a check with nCur current requests (and
// nBase baseline ones; 0 for a check of the current side alone) takes at
// its look of the design: the gate's confidence with one look, higher at
// an early look of check's rounds so that all looks hold together.
func (in RuleInput) Level(nBase, nCur int) float64 {
	c := Check{NCur: nCur, Confidence: in.Confidence}
	if nBase == 0 {
		nBase = oneSample
	}
	c.atLook(in.Design, in.Confidence, nBase)
	return c.level()
}

// ruleChecks returns the checks of every rule of s, each carrying its rule.
func ruleChecks(s Setup, in RuleInput) []Check {
	var out []Check
	for _, def := range s.Rules {
		for _, c := range def.Checks(in) {
			c.Def, c.Kind = def, def.Name()
			if c.Confidence == 0 {
				c.Confidence = in.Confidence
			}
			out = append(out, c)
		}
	}
	return out
}
