package stats_test

import (
	"fmt"

	"github.com/latgate/latgate/pkg/stats"
)

// A statistic by name: its value on sorted data and the requests each side
// of a comparison needs to resolve it at 95% confidence.
func ExampleParseStat() {
	sorted := []float64{110, 120, 125, 130, 180, 400}
	for _, name := range stats.Named() {
		s, err := stats.ParseStat(name)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%-4s %6.1f ms, needs %d requests\n", s, s.Of(sorted), s.Need(0.95))
	}
	_, err := stats.ParseStat("median")
	fmt.Println(err)
	// Output:
	// p50   127.5 ms, needs 6 requests
	// p90   290.0 ms, needs 36 requests
	// p95   345.0 ms, needs 72 requests
	// p99   389.0 ms, needs 368 requests
	// mean  177.5 ms, needs 6 requests
	// statistic "median" is not mean or pNN
}

func ExampleSummarize() {
	s := stats.Summarize([]float64{5, 1, 4, 2, 3})
	fmt.Printf("n=%d p50=%g p95=%g min=%g max=%g mean=%g\n", s.N, s.P50, s.P95, s.Min, s.Max, s.Mean)
	// Output:
	// n=5 p50=3 p95=4.8 min=1 max=5 mean=3
}
