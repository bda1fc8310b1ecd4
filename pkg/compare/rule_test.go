package compare

import (
	"encoding/json"
	"slices"
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

// countRule is a RuleDef for the tests: one check per prompt of the
// current side, regressed when the prompt has more than over requests and
// undecided below need.
type countRule struct{ need, over int }

func (countRule) Name() Rule     { return "count" }
func (countRule) Absolute() bool { return true }
func (r countRule) Checks(in RuleInput) []Check {
	var out []Check
	for _, t := range in.Cur.Targets {
		for _, p := range t.Prompts {
			c := Check{Target: t.Name, Prompt: p.ID, Metric: "requests", Stat: "n", NCur: len(p.Samples), Current: float64(len(p.Samples)), Level: in.Level(0, len(p.Samples))}
			switch {
			case c.NCur < r.need:
				c.Verdict = Inconclusive
			case c.NCur > r.over:
				c.Verdict = Regressed
			default:
				c.Verdict = OK
			}
			out = append(out, c)
		}
	}
	return out
}

// TestRuleDef: a rule beyond the five, given in Setup.Rules, adds its
// checks beside the config's, each carrying it (Rule is its name, Absolute
// its own, Confidence the gate's); its verdicts count in the run's, an
// undecided one asks for another round of its prompt, and a results file
// keeps its name.
func TestRuleDef(t *testing.T) {
	base := side(prompt("p", ttftSamples(grid(40, 100, 0.2, 1)...)))
	cur := side(prompt("p", ttftSamples(grid(12, 100, 0.2, 1)...)))
	d := NewDesign(12, 40)
	ruleOf := func(rep Report) (Check, bool) {
		for _, c := range rep.Checks {
			if c.Kind == "count" {
				return c, true
			}
		}
		return Check{}, false
	}
	tests := []struct {
		name  string
		rule  countRule
		want  Verdict
		round bool
	}{
		{"ok", countRule{need: 10, over: 20}, OK, false},
		{"regressed", countRule{need: 10, over: 11}, Regressed, false},
		{"undecided", countRule{need: 20, over: 100}, Inconclusive, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			without := CompareWith(base, cur, defaultGate(), Setup{Design: d})
			rep := CompareWith(base, cur, defaultGate(), Setup{Design: d, Rules: []RuleDef{tt.rule}})
			c, ok := ruleOf(rep)
			if !ok || len(rep.Checks) != len(without.Checks)+1 {
				t.Fatalf("%d checks, %d without the rule; want one more, of rule count", len(rep.Checks), len(without.Checks))
			}
			if c.Rule() != "count" || !c.Absolute() || c.Def == nil || c.Confidence != rep.Confidence || c.Verdict != tt.want {
				t.Errorf("the rule's check: rule %q, absolute %v, confidence %g (gate %g), verdict %s; want count, true, the gate's, %s",
					c.Rule(), c.Absolute(), c.Confidence, rep.Confidence, c.Verdict, tt.want)
			}
			if c.Level <= rep.Confidence {
				t.Errorf("RuleInput.Level at the first of %d looks: %g, want above the gate's %g", len(d.Looks), c.Level, rep.Confidence)
			}
			if tt.want == Regressed && rep.Verdict != Regressed {
				t.Errorf("the run's verdict %s; the rule's regression fails it", rep.Verdict)
			}
			r, more := NextRound(rep, d)
			asks := more && slices.ContainsFunc(r.Why, func(c Check) bool { return c.Kind == "count" })
			if asks != tt.round {
				t.Errorf("NextRound asks for the rule's prompt: %v, want %v", asks, tt.round)
			}
			data, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			var back Check
			if err := json.Unmarshal(data, &back); err != nil || back.Rule() != "count" || back.Def != nil {
				t.Errorf("read back from JSON: rule %q (%v); want its name kept, without the Go value", back.Rule(), err)
			}
		})
	}
	if Rule("count").Builtin() || !RuleLimit.Builtin() {
		t.Errorf("Builtin: the five are built in, a RuleDef's is not")
	}
	if got := (RuleInput{Confidence: 0.95}).Level(0, 12); got != 0.95 {
		t.Errorf("Level with one look: %g, want the gate's confidence", got)
	}
}

// TestRuleDefOnABusyRunner: the busy-runner rule reads a regression's
// change in milliseconds; a RuleDef's figures need not be, so its
// regression stands however late the runner was.
func TestRuleDefOnABusyRunner(t *testing.T) {
	base := side(prompt("p", ttftSamples(grid(40, 100, 0.2, 1)...)))
	cur := side(prompt("p", ttftSamples(grid(12, 100, 0.2, 1)...))) // Current 12: within the lag, read as ms
	cur.Targets[0].Lateness = &results.Lateness{Probes: 1000, P50MS: 20, P95MS: 30, P99MS: 40, MaxMS: 50}
	rep := CompareWith(base, cur, defaultGate(), Setup{Rules: []RuleDef{countRule{need: 10, over: 11}}})
	for _, c := range rep.Checks {
		if c.Kind == "count" && (c.Verdict != Regressed || c.Stuck != "") {
			t.Errorf("the rule's check on a runner late by 20 ms: %s (stuck %q), want regressed", c.Verdict, c.Stuck)
		}
	}
	if !slices.ContainsFunc(rep.Found, func(w Warning) bool { return w.Kind == WarnRunnerBusy }) {
		t.Fatalf("the runner does not read as busy: the test needs it to")
	}
}
