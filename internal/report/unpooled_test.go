package report

import (
	"strings"
	"testing"

	"github.com/latgate/latgate/pkg/compare"
)

// TestUnpooledNote: a gated check decided on the difference scale has no
// pooled row (a side reaching 0 ms gives no ratio to pool: Ollama's ITL
// P50, #23's five-minute path); the note under the table says so, once per
// check, and says nothing when every gated check has its pooled row.
func TestUnpooledNote(t *testing.T) {
	pooled := func(metric string) compare.Check {
		return compare.Check{Target: "local", Metric: metric, Stat: "p50", Ratio: 1.01, Lo: 0.95, Hi: 1.07, Threshold: 1.15}
	}
	prompt := func(id, metric string, diff bool) compare.Check {
		c := compare.Check{Target: "local", Prompt: id, Metric: metric, Stat: "p50", Family: 4}
		if diff {
			c.Scale, c.Baseline, c.Current, c.Lo, c.Hi, c.Margin = compare.ScaleDifference, 0.08, 0.05, -0.2, 0.1, 0.25
		} else {
			c.Diagnostic, c.Ratio, c.Lo, c.Hi, c.Threshold = true, 1.02, 0.9, 1.1, 1.15
		}
		return c
	}
	const note = "itl p50 has no pooled row: a side reaches 0 ms (tokens sharing one read), so each prompt decides it alone, in ms"
	withDiff := compare.Report{Aggregates: []compare.Check{pooled("ttft")},
		Checks: []compare.Check{prompt("a", "ttft", false), prompt("b", "ttft", false), prompt("a", "itl", true), prompt("b", "itl", true)}}
	if got := decisionNote(withDiff, aggregateLabel); strings.Count(got, note) != 1 {
		t.Errorf("decisionNote = %q, want it once with %q", got, note)
	}
	allPooled := compare.Report{Aggregates: []compare.Check{pooled("ttft"), pooled("itl")},
		Checks: []compare.Check{prompt("a", "ttft", false), prompt("b", "ttft", false), prompt("a", "itl", false), prompt("b", "itl", false)}}
	if got := decisionNote(allPooled, aggregateLabel); got == "" || strings.Contains(got, "no pooled row") {
		t.Errorf("decisionNote of a fully pooled report = %q, want the decision note without an unpooled check", got)
	}
}
