package diagnose_test

import (
	"fmt"

	"github.com/latgate/latgate/internal/diagnose"
	"github.com/latgate/latgate/pkg/results"
)

// side is n requests whose prompt of 1,210 tokens had cached of them
// served from the cache.
func side(n, cached int, ttft float64) diagnose.Side {
	s := diagnose.Side{Requests: n}
	for i := range n {
		v := ttft * (1 + 0.02*float64(i%9))
		s.Samples = append(s.Samples, results.Sample{Seq: i + 1, TTFB: 30 + float64(i%5), TTFT: v, Total: v + 200,
			PromptTokens: 1210, CachedTokens: cached, OutputTokens: 40 + i%3})
	}
	return s
}

// The TTFT of a prompt doubled; what moved with it was the prompt cache.
func ExampleAttribute() {
	base, cur := side(120, 1186, 300), side(60, 0, 600)
	a := diagnose.Attribute(results.TTFT, base, cur)
	fmt.Println(a.Line())
	// Output:
	// cache stopped hitting: 98% → 0% of prompt tokens cached
}
