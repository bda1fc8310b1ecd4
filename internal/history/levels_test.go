package history

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSeriesPerStatistic: Series reads each asked statistic's own values,
// in time order; a record without one (written before p90 was kept) is
// not in that statistic's series, and a statistic that does not parse has
// none.
func TestSeriesPerStatistic(t *testing.T) {
	h := Parse([]byte(`{"schema":"latgate.history/v1","at":"2026-01-02T00:00:00Z","targets":[{"name":"t","prompts":[{"id":"p","m":{"ttft":{"n":60,"p50":110,"p90":150,"p95":160,"p99":170,"mean":120}}}]}]}
{"schema":"latgate.history/v1","at":"2026-01-01T00:00:00Z","targets":[{"name":"t","prompts":[{"id":"p","m":{"ttft":{"n":60,"p50":100,"p95":150,"p99":170,"mean":110}}}]}]}
`))
	if len(h.Records) != 2 {
		t.Fatalf("records: %v", h.Problems)
	}
	got := map[string][]float64{}
	for _, l := range Series(h.Records, []Statistic{{"ttft", "p50"}, {"ttft", "p90"}, {"ttft", "p95"}, {"ttft", "q3"}}) {
		if l.Target != "t" || l.Metric != "ttft" || len(l.Runs) != len(l.At) {
			t.Errorf("series %+v", l)
		}
		for _, r := range l.Runs {
			got[l.Stat] = append(got[l.Stat], r["p"])
		}
	}
	want := map[string][]float64{"p50": {100, 110}, "p90": {150}, "p95": {150, 160}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("levels per statistic (-want +got):\n%s", diff)
	}
}
