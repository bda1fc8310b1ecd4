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

// TestDecisionNotePooledRows: the note explains the "(pooled)" rows only
// when a row shows it (an undecided prompt check that informs), and the
// verdict line calls the all-prompts rows that, not "pooled": that word is
// the prompt checks'.
func TestDecisionNotePooledRows(t *testing.T) {
	const rows = `"(pooled)" prompt rows do not hold the run undecided`
	agg := compare.Check{Target: "t", Metric: "ttft", Stat: "p50", Ratio: 1.5, Lo: 1.3, Hi: 1.7, Threshold: 1.15, Verdict: compare.Regressed}
	prompt := func(id string, v compare.Verdict) compare.Check {
		return compare.Check{Target: "t", Prompt: id, Metric: "ttft", Stat: "p50", Diagnostic: true, Ratio: 1.02, Lo: 0.9, Hi: 1.1, Threshold: 1.15, Verdict: v, Family: 2}
	}
	allOK := compare.Report{Aggregates: []compare.Check{agg}, Checks: []compare.Check{prompt("a", compare.OK), prompt("b", compare.OK)}}
	if got := decisionNote(allOK, aggregateLabel); got == "" || strings.Contains(got, rows) {
		t.Errorf("no row shows (pooled), yet the note = %q", got)
	}
	oneOpen := compare.Report{Aggregates: []compare.Check{agg}, Checks: []compare.Check{prompt("a", compare.OK), prompt("b", compare.Inconclusive)}}
	if got := decisionNote(oneOpen, aggregateLabel); !strings.Contains(got, rows) {
		t.Errorf("a row shows (pooled), yet the note = %q", got)
	}
}
