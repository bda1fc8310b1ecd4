package compare

import (
	"testing"

	"github.com/latgate/latgate/pkg/results"
)

// TestRule: a check's rule follows from the gate check it came from and the
// scale its interval took, a share's before a limit's.
func TestRule(t *testing.T) {
	tests := []struct {
		name     string
		c        Check
		want     Rule
		absolute bool
	}{
		{"a latency statistic", Check{Metric: results.TTFT, Stat: "p95"}, RuleRatio, false},
		{"tokens per second", Check{Metric: results.TokensPerS, Stat: "p50"}, RuleRatio, false},
		{"a gap at the read resolution", Check{Metric: results.ITL, Stat: "p50", Scale: ScaleDifference}, RuleDifference, false},
		{"max:", Check{Metric: results.TTFT, Stat: "p95", Max: 800}, RuleLimit, true},
		{"a share", Check{Metric: "slo_attainment"}, RuleShare, false},
		{"min:", Check{Metric: "slo_attainment", Min: 0.95}, RuleFloor, true},
	}
	for _, tt := range tests {
		if got := tt.c.Rule(); got != tt.want || tt.c.Absolute() != tt.absolute {
			t.Errorf("%s: Rule() = %q, Absolute() = %v; want %q, %v", tt.name, got, tt.c.Absolute(), tt.want, tt.absolute)
		}
	}
	if !(Check{Prompts: []string{"a", "b"}}).Pooled() || (Check{Prompt: "a"}).Pooled() {
		t.Errorf("Pooled: a target's check over its prompts is pooled, a prompt's is not")
	}
}

// TestRulesListed: Rules names each rule once, and Check.Rule returns only
// rules it names.
func TestRulesListed(t *testing.T) {
	seen := map[Rule]bool{}
	for _, r := range Rules() {
		if seen[r] {
			t.Errorf("Rules lists %q twice", r)
		}
		seen[r] = true
	}
	for _, c := range []Check{{Metric: results.TTFT}, {Scale: ScaleDifference}, {Max: 1}, {Metric: "slo_attainment"}, {Metric: "slo_attainment", Min: 0.5}} {
		if !seen[c.Rule()] {
			t.Errorf("Check %+v has rule %q, which Rules does not list", c, c.Rule())
		}
	}
	if len(seen) != len(Rules()) {
		t.Errorf("Rules has duplicates")
	}
}
