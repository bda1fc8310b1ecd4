package baseline_test

import (
	"fmt"
	"time"

	"github.com/latgate/latgate/pkg/baseline"
	"github.com/latgate/latgate/pkg/results"
)

// run returns a results file of one target and prompt whose requests all
// took ttft ms to the first token.
func run(ttft float64) *results.File {
	samples := make([]results.Sample, 10)
	for i := range samples {
		samples[i] = results.Sample{Seq: i + 1, TTFT: ttft, Total: ttft + 100}
	}
	return &results.File{Schema: results.Schema, Run: results.Run{Requests: 10, Concurrency: 1},
		Targets: []results.Target{{Name: "api", Model: "m", Requests: 10,
			Prompts: []results.Prompt{{ID: "greeting", Requests: 10, Samples: samples, Metrics: results.MetricsOf(samples)}}}}}
}

// Bless two runs and say what changed between the baselines, as
// `latgate bless` does before it writes the new one.
func ExampleDiff() {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	old := baseline.FromResults(run(400), at, "")
	now := baseline.FromResults(run(440), at.Add(24*time.Hour), "")
	for _, c := range baseline.Diff(old, now) {
		if c.Metric == results.TTFT {
			fmt.Println(c)
		}
	}
	// Output:
	// api/greeting ttft p50: 400.0 ms → 440.0 ms (+10.0%)
	// api/greeting ttft p95: 400.0 ms → 440.0 ms (+10.0%)
}

// Decode refuses what is not a baseline and says how to fix it.
func ExampleDecode() {
	_, err := baseline.Decode([]byte(`{"schema": "latgate.results/v1"}`), "results.json")
	fmt.Println(err)
	// Output:
	// results.json: this is a results file (schema latgate.results/v1), not a baseline: bless it with `latgate bless --from results.json`
}
