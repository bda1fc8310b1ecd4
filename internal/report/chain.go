package report

import (
	"fmt"
	"strings"

	"github.com/latgate/latgate/internal/numfmt"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

// ChainLines describes each agent chain of a target (a prompt with steps)
// in one line: the chain's own metrics and each step's median TTFT and
// total, for example
//
//	chain agent (3 steps, 20 chains): chain_total p50 456 ms, p95 520 ms; chain_ttft_last p50 430 ms; per step TTFT / total p50: 1) 120 / 149 ms, 2) 121 / 150 ms, 3) 118 / 148 ms
//
// (a prompt's ttft, itl and total columns are its last step's); none for a
// target without chains.
func ChainLines(t results.Target) []string {
	var out []string
	for _, p := range t.Prompts {
		n := results.ChainSteps(p.Samples)
		if p.Steps == 0 || n == 0 {
			continue
		}
		line := fmt.Sprintf("chain %s (%d steps, %d chains)", p.ID, p.Steps, len(p.Samples))
		if s := p.Metrics.ChainTotal; s != nil {
			line += fmt.Sprintf(": %s p50 %s, p95 %s", results.ChainTotal, numfmt.Millis(s.P50), numfmt.Millis(s.P95))
		}
		if s := p.Metrics.ChainTTFTLast; s != nil {
			line += fmt.Sprintf("; %s p50 %s", results.ChainTTFTLast, numfmt.Millis(s.P50))
		}
		steps := make([]string, n)
		for k := range n {
			ttft := stats.Summarize(results.StepValues(p.Samples, k, results.TTFT)).P50
			total := stats.Summarize(results.StepValues(p.Samples, k, results.Total)).P50
			steps[k] = fmt.Sprintf("%d) %s / %s", k+1, strings.TrimSuffix(numfmt.Millis(ttft), " ms"), numfmt.Millis(total))
		}
		out = append(out, line+"; per step TTFT / total p50: "+strings.Join(steps, ", "))
	}
	return out
}
