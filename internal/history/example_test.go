package history_test

import (
	"fmt"
	"time"

	"github.com/latgate/latgate/internal/history"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

// A run becomes one compact JSON line of summaries (never the raw samples);
// Parse reads a history back, naming each malformed line and skipping it.
func ExampleParse() {
	samples := []results.Sample{{TTFT: 400, Total: 900}, {TTFT: 420, Total: 950}, {TTFT: 410, Total: 930}}
	f := &results.File{Schema: results.Schema, Version: "v1.0.0", Run: results.Run{Requests: 3},
		Targets: []results.Target{{Name: "api", Model: "m", Requests: 3,
			Prompts: []results.Prompt{{ID: "greeting", Requests: 3, Samples: samples, Metrics: results.MetricsOf(samples)}}}}}
	rec := history.FromResults(f, history.Meta{At: time.Date(2026, 3, 1, 2, 0, 0, 0, time.UTC), Commit: "abc123", Command: "measure"})
	line, err := history.Encode(rec)
	if err != nil {
		fmt.Println(err)
		return
	}
	rec.At = rec.At.AddDate(0, 0, 1) // the next night's run
	next, err := history.Encode(rec)
	if err != nil {
		fmt.Println(err)
		return
	}
	data := append(append(line, "{not json\n"...), next...)

	h := history.Parse(data)
	fmt.Println(len(h.Records), "records")
	for _, p := range h.Problems {
		fmt.Println(p)
	}
	_, pr := h.Records[1].Find("api", "", "greeting")
	fmt.Println("ttft p50:", p50(pr.Metrics[results.TTFT]), "ms")
	// Output:
	// 2 records
	// line 2: not a JSON object (invalid character 'n' looking for beginning of object key string); skipped: fix or delete the line
	// ttft p50: 410 ms
}

func p50(st history.Stats) float64 {
	v, _ := st.Get(stats.Stat{P: 0.5})
	return v
}
