package trend_test

import (
	"fmt"
	"time"

	"github.com/latgate/latgate/internal/history"
	"github.com/latgate/latgate/internal/trend"
	"github.com/latgate/latgate/pkg/stats"
)

// Thirty nights of one endpoint whose median time to first token stepped
// from about 400 ms to about 480 ms on the twentieth night: Analyze finds
// the change point, its date and its size, and judges it against the
// check's tolerance. The permutation test is seeded, so the analysis is
// the same on every run.
func ExampleAnalyze() {
	start := time.Date(2026, 3, 1, 2, 0, 0, 0, time.UTC)
	var records []history.Record
	for night := range 30 {
		v := 400 * (1 + 0.01*float64(night%3)) // a little night-to-night noise
		if night >= 20 {
			v *= 1.2
		}
		records = append(records, history.Record{
			Schema: history.Schema, At: start.AddDate(0, 0, night), Commit: fmt.Sprintf("c%02d", night),
			Targets: []history.Target{{Name: "api", Prompts: []history.Prompt{{ID: "greeting",
				Metrics: map[string]history.Stats{"ttft": history.MakeStats(30, map[string]float64{"p50": v})}}}}},
		})
	}
	spec := trend.Spec{Series: []trend.SeriesSpec{{Target: "api", Prompt: "greeting", Metric: "ttft", Stat: stats.Stat{P: 0.5}, Tolerance: 0.10, FloorMS: 20}}}
	rep := trend.Analyze(records, spec, trend.Options{})
	s := rep.Series[0]
	fmt.Println("verdict:", rep.Verdict)
	for _, c := range s.Changes {
		fmt.Printf("change at %s (%s): %.0f ms -> %.0f ms, regression: %v\n",
			c.At.Format("2006-01-02"), c.Commit, c.Before, c.After, c.Regression)
	}
	// Output:
	// verdict: regressed
	// change at 2026-03-21 (c20): 404 ms -> 485 ms, regression: true
}
