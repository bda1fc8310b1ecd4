package diagnose

import (
	"strings"
	"testing"

	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// TestExplain: a regression whose prompt doubled in length is attributed
// to its prompt tokens, and checks that did not regress get no Why.
func TestExplain(t *testing.T) {
	sideOf := func(n int, ttft float64, prompt int) compare.Side {
		ss := make([]results.Sample, n)
		for i := range ss {
			v := ttft * (1 + 0.02*float64(i%9))
			ss[i] = results.Sample{Seq: i + 1, TTFB: 1, TTFT: v, Total: v + 100, PromptTokens: prompt, OutputTokens: 30,
				ITL: []float64{3, 3.1, 2.9}}
		}
		return compare.Side{Run: results.Run{Requests: n, Concurrency: 1}, Targets: []results.Target{{Name: "api", BaseURL: "http://127.0.0.1:8000/v1", Model: "m", Requests: n,
			Prompts: []results.Prompt{{ID: "p", Requests: n, Samples: ss}}}}}
	}
	base, cur := sideOf(120, 300, 1210), sideOf(60, 600, 2430)
	rep := compare.Compare(base, cur, config.DefaultGate())
	Explain(&rep, base, cur)
	regressed := 0
	for _, c := range append(rep.Checks, rep.Aggregates...) {
		switch {
		case c.Verdict == compare.Regressed && c.Why == nil:
			t.Errorf("%s %s regressed without a Why", c.Metric, c.Stat)
		case c.Verdict == compare.Regressed:
			regressed++
			if len(c.Why.Causes) == 0 || c.Why.Causes[0].Kind != results.KindPromptTokens || !strings.Contains(c.Why.Line(), "1,210 → 2,430") {
				t.Errorf("%s %s: why = %q, want the prompt tokens first", c.Metric, c.Stat, c.Why.Line())
			}
		case c.Why != nil:
			t.Errorf("%s %s is %s but has a Why", c.Metric, c.Stat, c.Verdict)
		}
	}
	if regressed == 0 {
		t.Fatalf("nothing regressed: %+v", rep.Checks)
	}
}
