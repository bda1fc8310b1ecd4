package compare

import (
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// chainPrompt is a 2-step chain prompt of n chains whose chain_total is
// drawn from grid (median m ms, scaled).
func chainPrompt(id string, n int, m, scale float64) results.Prompt {
	var ss []results.Sample
	for i, v := range grid(n, m, 0.2, scale) {
		st := []results.Step{{StartMS: 0, TTFT: 0.4 * v, Total: 0.5 * v}, {StartMS: 0.5 * v, TTFT: 0.4 * v, Total: 0.5 * v}}
		ss = append(ss, results.Sample{Seq: i, TTFT: st[1].TTFT, TTFB: st[1].TTFT, Total: st[1].Total, OutputTokens: 1,
			Steps: st, ChainTotal: v, ChainTTFTLast: 0.9 * v})
	}
	p := prompt(id, ss)
	p.Steps = 2
	return p
}

// TestChainChecksPoolChains: a chain_total check is a check of the chain
// prompts only: two chains are pooled into one "all prompts" check and
// each is a prompt test of the target's Holm family; the plain prompt has
// no chain_total check, and bless's thin-baseline rule does not ask it for
// chain values. A second chain 60% slower fails the run through its own
// test, which names it.
func TestChainChecksPoolChains(t *testing.T) {
	gate := config.DefaultGate()
	gate.Checks = []config.Check{
		{Metric: results.TTFT, Stat: "p50", Tolerance: config.Tolerance{Rel: 0.2}},
		{Metric: results.ChainTotal, Stat: "p50", Tolerance: config.Tolerance{Rel: 0.2}},
	}
	plain := prompt("plain", ttftSamples(grid(60, 100, 0.2, 1)...))
	base := side(plain, chainPrompt("a", 60, 300, 1), chainPrompt("b", 60, 500, 1))
	if why := CannotGate(base, gate); len(why) > 0 {
		t.Errorf("CannotGate: %v; a plain prompt has no chain values to need", why)
	}
	for _, tt := range []struct {
		name    string
		slow    float64
		verdict Verdict
	}{{"unchanged", 1, OK}, {"chain b 60% slower", 1.6, Regressed}} {
		t.Run(tt.name, func(t *testing.T) {
			cur := side(plain, chainPrompt("a", 60, 300, 1), chainPrompt("b", 60, 500, tt.slow))
			rep := Compare(base, cur, gate)
			var chainPrompts []string
			for _, c := range rep.Checks {
				if c.Metric == results.ChainTotal {
					chainPrompts = append(chainPrompts, c.Prompt)
					if c.Family != 0 && c.Family != 2 { // 2 chain_total tests (Holm per check): none for the plain prompt
						t.Errorf("%s chain_total: family %d, want the target's 2 chain_total prompt tests", c.Prompt, c.Family)
					}
				}
			}
			slices.Sort(chainPrompts)
			if diff := gocmp.Diff([]string{"a", "b"}, chainPrompts); diff != "" {
				t.Errorf("chain_total prompt checks (-want +got):\n%s", diff)
			}
			i := slices.IndexFunc(rep.Aggregates, func(c Check) bool { return c.Metric == results.ChainTotal })
			if i < 0 || len(rep.Aggregates[i].Prompts) != 2 {
				t.Fatalf("aggregates %+v: want chain_total pooled over the two chains", rep.Aggregates)
			}
			if rep.Verdict != tt.verdict {
				t.Errorf("verdict %s, want %s", rep.Verdict, tt.verdict)
			}
			if tt.verdict == Regressed {
				j := slices.IndexFunc(rep.Checks, func(c Check) bool { return c.Prompt == "b" && c.Metric == results.ChainTotal })
				if j < 0 || rep.Checks[j].Verdict != Regressed {
					t.Errorf("chain b's chain_total is not regressed: %+v", rep.Checks)
				}
			}
		})
	}
}
