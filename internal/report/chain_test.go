package report

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/results"
)

func TestChainLines(t *testing.T) {
	chain := func(seq int, ttft2 float64) results.Sample {
		steps := []results.Step{{StartMS: 0, TTFT: 100, Total: 150}, {StartMS: 151, TTFT: ttft2, Total: ttft2 + 50}}
		last := steps[1]
		return results.Sample{Seq: seq, TTFT: last.TTFT, Total: last.Total, Steps: steps,
			ChainTotal: last.StartMS + last.Total, ChainTTFTLast: last.StartMS + last.TTFT}
	}
	samples := []results.Sample{chain(1, 100), chain(2, 200), chain(3, 300)}
	tg := results.Target{Name: "sim", Prompts: []results.Prompt{
		{ID: "greeting", Samples: []results.Sample{{Seq: 4, TTFT: 90, Total: 120}}},
		{ID: "agent", Steps: 2, Samples: samples, Metrics: results.MetricsOf(samples)},
	}}
	want := []string{"chain agent (2 steps, 3 chains): chain_total p50 401 ms, p95 491 ms; chain_ttft_last p50 351 ms; per step TTFT / total p50: 1) 100 / 150 ms, 2) 200 / 250 ms"}
	if diff := cmp.Diff(want, ChainLines(tg)); diff != "" {
		t.Errorf("ChainLines (-want +got):\n%s", diff)
	}
	if got := ChainLines(results.Target{Prompts: tg.Prompts[:1]}); got != nil {
		t.Errorf("no chain: %q, want none", got)
	}
}
