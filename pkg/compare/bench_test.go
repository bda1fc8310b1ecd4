package compare

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/latgate/latgate/pkg/results"
)

// BenchmarkCompare is the sizing case: 30 prompts × 100 requests (~32 gaps
// each) × the 4 default checks, pooled per target with the Holm adjustment.
// It should take well under a second per op on 2 cores.
func BenchmarkCompare(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	p := profile{TTFTMedian: 400, TTFTSigma: 0.3, ITLMedian: 20, ITLReqSigma: 0.2, ITLGapSigma: 0.35, Gaps: 32}
	var bp, cp []results.Prompt
	for i := range 30 {
		id := fmt.Sprintf("p%02d", i)
		bp = append(bp, prompt(id, simSamples(rng, p, 100)))
		cp = append(cp, prompt(id, simSamples(rng, p, 100)))
	}
	base, cur := side(bp...), side(cp...)
	gate := defaultGate()
	b.ReportAllocs()
	for b.Loop() {
		Compare(base, cur, gate)
	}
}
