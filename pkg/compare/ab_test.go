package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// abSamples draws n blocks of lognormal TTFTs whose level, shared by the two
// requests of a block, jumps between ×1 and ×jump from block to block; the
// candidate's requests are × factor.
func abSamples(seed uint64, n int, jump, factor float64) (base, cand []results.Sample) {
	rng := rand.New(rand.NewPCG(seed, 7))
	for seq := 1; seq <= n; seq++ {
		level := 1.0
		if (seq/3)%2 == 1 {
			level = jump
		}
		v := func(f float64) results.Sample {
			x := 100 * level * f * math.Exp(0.25*rng.NormFloat64())
			return results.Sample{Seq: seq, TTFT: x, TTFB: x / 2, Total: 2 * x, OutputTokens: 1}
		}
		base = append(base, v(1))
		cand = append(cand, v(factor))
	}
	return base, cand
}

func abGate(checks ...config.Check) config.Gate {
	return config.Gate{Confidence: 0.95, Resamples: 2000, Seed: 1, Aggregate: true, Checks: checks}
}

// TestCompareABPairs: a level shared by a block's two requests cancels. With
// the level jumping ×1/×2 between blocks, the A/B comparison of identical
// sides is ok with an interval far narrower than the same samples compared
// as independent runs; a candidate ×2 is a regression, ×0.5 an
// improvement reported faster. Pairing is by seq, whatever the order of the
// samples in the file.
func TestCompareABPairs(t *testing.T) {
	gate := abGate(config.Check{Metric: results.TTFT, Stat: "p50", Tolerance: config.Tolerance{Rel: 0.2}},
		config.Check{Metric: results.TTFT, Stat: "p90", Tolerance: config.Tolerance{Rel: 0.35}})
	width := func(c Check) float64 { return math.Log(c.Hi / c.Lo) }
	for _, tt := range []struct {
		factor  float64
		verdict Verdict
		faster  string
	}{{1, OK, ""}, {2, Regressed, "base"}, {0.5, Improved, "candidate"}} {
		b, c := abSamples(11, 80, 2, tt.factor)
		cs := slices.Clone(c)
		slices.Reverse(cs) // pairing is by seq, not by position
		rep := CompareAB(side(prompt("p", b)), side(prompt("p", cs)), gate, FixedDesign())
		naive := Compare(side(prompt("p", b)), side(prompt("p", c)), gate)
		for i, ch := range rep.Checks {
			if ch.Verdict != tt.verdict {
				t.Errorf("×%g %s %s: %s %s [%s], want %s", tt.factor, ch.Metric, ch.Stat, ch.Verdict, pct(ch.Ratio), fmt.Sprint(ch.Lo, ch.Hi), tt.verdict)
			}
			if got := ch.Faster(); got != tt.faster {
				t.Errorf("×%g %s %s: Faster() = %q, want %q", tt.factor, ch.Metric, ch.Stat, got, tt.faster)
			}
			if n := naive.Checks[i]; ch.Stat == "p50" && !(width(ch) < 0.75*width(n)) {
				t.Errorf("×%g %s %s: the paired interval [%s] is not narrower than the independent one [%s]", tt.factor, ch.Metric, ch.Stat, fmt.Sprint(ch.Lo, ch.Hi), fmt.Sprint(n.Lo, n.Hi))
			}
		}
	}
}

func pct(r float64) string { return fmt.Sprintf("%+.0f%%", 100*(r-1)) }

// TestCompareABReport: two prompts pool into an aggregate per check; a
// prompt only one side has is left out; the candidate's model change labels
// every check; limits gate the candidate alone; the base's failures are
// named.
func TestCompareABReport(t *testing.T) {
	gate := abGate(config.Check{Metric: results.TTFT, Stat: "p50", Tolerance: config.Tolerance{Rel: 0.2}},
		config.Check{Metric: results.TTFT, Stat: "p90", Max: 50 * time.Millisecond, MaxOnly: true})
	b1, c1 := abSamples(1, 60, 1.3, 1.4)
	b2, c2 := abSamples(2, 60, 1.3, 1.4)
	base := side(prompt("a", b1), prompt("b", b2), prompt("only-base", b1))
	cand := side(prompt("a", c1), prompt("b", c2))
	cand.Targets[0].Model = "m2"
	base.Targets[0].Errors, base.Targets[0].Requests, base.Targets[0].ByClass = 1, 181, map[string]int{"timeout": 1}
	rep := CompareAB(base, cand, gate, NewDesign(60, 150))
	if rep.Verdict != Regressed {
		t.Errorf("verdict %s, want regressed", rep.Verdict)
	}
	var got []string
	for _, c := range slices.Concat(rep.Checks, rep.Aggregates) {
		got = append(got, strings.Join([]string{c.Prompt, c.Metric, c.Stat, string(c.Verdict), strings.Join(changeKeys(c.Changed), ";")}, " "))
		if c.Max == 0 && (c.Look != 1 || c.Looks != 4 || !(c.Level > 0.95)) {
			t.Errorf("%s %s: look %d of %d at %v, want look 1 of 4 above 95%%", c.Prompt, c.Stat, c.Look, c.Looks, c.Level)
		}
	}
	slices.Sort(got)
	want := []string{
		" ttft p50 regressed model m → m2",
		"a ttft p50 regressed model m → m2",
		"a ttft p90 regressed model m → m2", // the limit: p90 ≈ 190 ms > 50 ms
		"b ttft p50 regressed model m → m2",
		"b ttft p90 regressed model m → m2",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("checks (-want +got):\n%s", diff)
	}
	if !slices.ContainsFunc(rep.Found, func(w Warning) bool {
		return w.Kind == WarnFailures && w.Side == "base" && w.Target == "t" && w.Count == 1 && w.Requests == 181
	}) {
		t.Errorf("warnings %+v do not name the base side's failures", rep.Found)
	}
	if len(rep.New) != 0 {
		t.Errorf("New = %v, want none: an A/B run compares only what both sides measured", rep.New)
	}
}

// TestCompareABTargetsByPosition: target i is paired with target i whatever
// their names (ab --targets a,b), and the names' difference is labelled.
func TestCompareABTargetsByPosition(t *testing.T) {
	gate := abGate(config.Check{Metric: results.TTFT, Stat: "p50", Tolerance: config.Tolerance{Rel: 0.2}})
	b, c := abSamples(5, 60, 1.3, 1)
	base, cand := side(prompt("p", b)), side(prompt("p", c))
	base.Targets[0].Name = "small"
	cand.Targets[0].Name = "large"
	rep := CompareAB(base, cand, gate, FixedDesign())
	if len(rep.Checks) != 1 || rep.Checks[0].Target != "large" || rep.Checks[0].Verdict != OK {
		t.Fatalf("checks %+v, want one ok check of target large", rep.Checks)
	}
	if diff := cmp.Diff([]string{"target small → large"}, changeKeys(rep.Checks[0].Changed)); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
}
