package export

import (
	"strings"
	"testing"
	"time"

	"github.com/latgate/latgate/internal/history"

	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/results"
)

// TestOpenMetricsEscapesAndSkips: label values an endpoint or a config
// could make hostile (quotes, backslashes, newlines) are escaped by the
// format's encoder, a metric with no samples has no family, and a pooled
// check is the prompt "all prompts".
func TestOpenMetricsEscapesAndSkips(t *testing.T) {
	p := results.Prompt{ID: "greeting", Requests: 3, Errors: 1,
		Metrics: results.Metrics{TTFT: &results.Summary{N: 2, P50: 120.5, P95: 130, P99: 131, Mean: 121}}}
	f := &results.File{Targets: []results.Target{{Name: "primary", Model: "m\"x\\y\nz", Prompts: []results.Prompt{p}}}}
	rep := &compare.Report{Aggregates: []compare.Check{{Target: "primary", Prompts: []string{"greeting"}, Metric: "ttft", Stat: "p50", Ratio: 1.1, Verdict: compare.Regressed}},
		// A statistic with a tolerance and a max is two checks: two series.
		Checks: []compare.Check{{Target: "primary", Prompt: "greeting", Metric: "ttft", Stat: "p50", Ratio: 1.1, Verdict: compare.OK},
			{Target: "primary", Prompt: "greeting", Metric: "ttft", Stat: "p50", Max: 200, Verdict: compare.OK}}}
	var b strings.Builder
	if err := OpenMetrics(&b, []Side{{File: f}}, rep); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		`latgate_ttft_p50_seconds{target="primary",prompt="greeting",api="chat",model="m\"x\\y\nz"} 0.1205` + "\n",
		`latgate_requests{target="primary",prompt="greeting",api="chat",model="m\"x\\y\nz"} 3.0` + "\n",
		`latgate_check_regressed{target="primary",prompt="all prompts",metric="ttft",stat="p50",kind="change"} 1.0` + "\n",
		`latgate_check_ratio{target="primary",prompt="all prompts",metric="ttft",stat="p50",kind="change"} 1.1` + "\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	for _, kind := range []string{"change", "limit"} {
		if n := strings.Count(got, `latgate_check_verdict{target="primary",prompt="greeting",metric="ttft",stat="p50",kind="`+kind+`"`); n != 1 {
			t.Errorf("%d verdict series of kind %s for greeting's ttft p50, want 1 (no duplicate series):\n%s", n, kind, got)
		}
	}
	if strings.Contains(got, "latgate_itl_p50_seconds") || strings.Contains(got, "latgate_tokens_per_second_p50") {
		t.Errorf("a metric with no samples has a family:\n%s", got)
	}
	if !strings.HasSuffix(got, "# EOF\n") {
		t.Errorf("no # EOF at the end:\n%s", got)
	}
}

// TestHistoryOpenMetricsOneSampleASecond: two records of one second (runs
// merged from two runners) give one sample of a series, the later one's:
// a backfill takes one value per timestamp.
func TestHistoryOpenMetricsOneSampleASecond(t *testing.T) {
	at := time.Date(2026, 11, 1, 3, 0, 0, 0, time.UTC)
	rec := func(p50 float64, ns int) history.Record {
		return history.Record{At: at.Add(time.Duration(ns)), Targets: []history.Target{{Name: "t", Model: "m", Prompts: []history.Prompt{{ID: "p",
			Metrics: map[string]history.Stats{"ttft": history.MakeStats(10, map[string]float64{"p50": p50})}}}}}}
	}
	var b strings.Builder
	if err := HistoryOpenMetrics(&b, []history.Record{rec(100, 0), rec(200, 500)}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "latgate_ttft_p50_seconds{"); n != 1 || !strings.Contains(b.String(), "} 0.2 ") {
		t.Errorf("%d samples for one second, want 1 (the later record's, 0.2 s):\n%s", n, b.String())
	}
}
