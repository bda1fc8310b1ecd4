package report

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/results"
)

// TestEveryRuleWorded: each of compare's rules has words of its own for
// what a check is held to, and a sentence; a new rule without a sample here
// fails, so its words are not left to the ratio's by default.
func TestEveryRuleWorded(t *testing.T) {
	base := compare.Check{Metric: results.TTFT, Stat: "p95", Baseline: 100, Current: 110, Ratio: 1.1, Lo: 1.02, Hi: 1.2,
		Threshold: 1.15, Confidence: 0.95, NBase: 100, NCur: 100, Verdict: compare.OK}
	share := compare.Check{Metric: "slo_attainment", Baseline: 0.99, Current: 0.97, Lo: 0.95, Hi: 0.99, Threshold: -0.05,
		Confidence: 0.95, NBase: 100, NCur: 100, Verdict: compare.OK}
	sample := map[compare.Rule]compare.Check{compare.RuleRatio: base, compare.RuleShare: share}
	diff := base
	diff.Metric, diff.Stat, diff.Scale, diff.Margin, diff.Baseline, diff.Current, diff.Lo, diff.Hi = results.ITL, "p50", compare.ScaleDifference, 0.25, 0, 0.1, -0.1, 0.2
	sample[compare.RuleDifference] = diff
	limit := base
	limit.Max, limit.Baseline, limit.Ratio, limit.Lo, limit.Hi = 800, 0, 0, 100, 120
	sample[compare.RuleLimit] = limit
	floor := share
	floor.Min, floor.Baseline, floor.NBase = 0.9, 0, 0
	sample[compare.RuleFloor] = floor

	allowed := map[string]compare.Rule{}
	for _, r := range compare.Rules() {
		c, ok := sample[r]
		if !ok {
			t.Errorf("rule %q has no sample check here: add one, and its words in Allowed, ChangePhrase and Summary", r)
			continue
		}
		if c.Rule() != r {
			t.Fatalf("the sample of %q is a %q check", r, c.Rule())
		}
		a := Allowed(c)
		if other, dup := allowed[a]; dup || a == "" {
			t.Errorf("rule %q: Allowed %q, the same as %q's", r, a, other)
		}
		allowed[a] = r
		if Summary(c) == "" || ChangePhrase(c) == "" {
			t.Errorf("rule %q: Summary %q, ChangePhrase %q; want words", r, Summary(c), ChangePhrase(c))
		}
	}
}

// bareRule is a compare.RuleDef that brings no words of its own.
type bareRule struct{}

func (bareRule) Name() compare.Rule                       { return "bare" }
func (bareRule) Absolute() bool                           { return true }
func (bareRule) Checks(compare.RuleInput) []compare.Check { return nil }

// TestRuleWithoutWords: a check of a rule beyond the five that brings no
// RuleWords is named by its rule and shows its figures plainly, never in
// the ratio's words (a "+%" change or a tolerance it does not have).
func TestRuleWithoutWords(t *testing.T) {
	c := compare.Check{Def: bareRule{}, Kind: "bare", Metric: results.TTFT, Stat: "p95", Current: 2.5, Lo: 2, Hi: 3.25, NCur: 30, Verdict: compare.Regressed}
	got := map[string]string{"check": checkOf(c), "allowed": Allowed(c), "phrase": ChangePhrase(c), "summary": Summary(c), "current": sideValue(c, c.Current, c.NCur)}
	want := map[string]string{"check": "ttft p95 bare", "allowed": "rule bare", "phrase": "2.5 [2, 3.25]", "summary": "2.5 [2, 3.25]: regressed", "current": "2.5"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("words of a rule without its own (-want +got):\n%s", diff)
	}
}
