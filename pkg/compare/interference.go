package compare

import (
	"cmp"
	"math"
	"slices"

	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

// # Does interleaving change latency?
//
// An A/B run interleaves its sides so that the endpoint's drift hits both
// alike. That assumes sending one side's request does not slow the other
// side's next one. A server that holds one model at a time (Ollama with two
// option sets of one model) reloads it on every switch: both sides then
// measure the reloads, and "no difference resolved" says nothing about
// either. The run tells on itself: a side's requests sent right after one
// of its own (a block whose second request is that side, followed by one
// whose first is, about a quarter of them) against those sent right after
// the other side's. Interference compares the two, per target pair and
// side, with no extra request.

// InterferenceRatio is how much slower a side's TTFT must be, beyond
// doubt, right after the other side's request than right after its own
// for the run to be flagged: ×1.25, a quarter (a reload is many times
// that; noise and a warm cache's few percent are not).
const InterferenceRatio = 1.25

// interferenceAlpha is the one-sided level of each pair × side's test:
// 0.5%, so that over the two sides of a few pairs an unchanged endpoint is
// flagged in about 1% of runs or less (TestInterferenceCalibration).
const interferenceAlpha = 0.005

// minInterference is the fewest requests of each kind a test needs.
const minInterference = 8

// Interfered is one side of one target pair whose TTFT depends on the side
// of the request sent before it.
type Interfered struct {
	// Pair names the target pair ("base ⇄ candidate"); Side is "base" or
	// "candidate".
	Pair, Side string
	// AfterOther and AfterOwn are the side's TTFT P50 (ms) right after the
	// other side's request and right after its own, over NOther and NOwn
	// requests.
	AfterOther, AfterOwn float64
	NOther, NOwn         int
	// Ratio is the Hodges–Lehmann estimate of how much slower a request
	// is after the other side's (each prompt's TTFT relative to its own
	// median, so prompts of different lengths pool), Lo and Hi its
	// interval.
	Ratio, Lo, Hi float64
}

// Interference returns the sides of the target pairs of an A/B run (base
// and cand, targets paired by index) whose TTFT after the other side's
// request is at least InterferenceRatio times that after their own, beyond
// doubt. The order of the requests is their send time (Sample.AtMS; both
// sides share the run's start), failures included.
func Interference(base, cand *results.File) []Interfered {
	if base == nil || cand == nil {
		return nil
	}
	var out []Interfered
	for i := range min(len(base.Targets), len(cand.Targets)) {
		sides := [2]results.Target{base.Targets[i], cand.Targets[i]}
		type req struct {
			at        float64
			side      int
			ttft, rel float64 // rel: log TTFT less its prompt's median log TTFT; ok false for a failure
			ok        bool
		}
		var reqs []req
		for s, t := range sides {
			for _, p := range t.Prompts {
				relLog(p, results.TTFT, func(x results.Sample, rel float64) {
					reqs = append(reqs, req{at: x.AtMS, side: s, ttft: x.TTFT, rel: rel, ok: true})
				})
				for _, f := range p.Failures {
					reqs = append(reqs, req{at: f.AtMS, side: s})
				}
			}
		}
		slices.SortStableFunc(reqs, func(a, b req) int { return cmp.Compare(a.at, b.at) })
		for s := range sides {
			var other, own, otherMS, ownMS []float64
			for k := 1; k < len(reqs); k++ {
				r := reqs[k]
				if r.side != s || !r.ok {
					continue
				}
				if reqs[k-1].side == s {
					own, ownMS = append(own, r.rel), append(ownMS, r.ttft)
				} else {
					other, otherMS = append(other, r.rel), append(otherMS, r.ttft)
				}
			}
			if len(own) < minInterference || len(other) < minInterference {
				continue
			}
			slices.Sort(own)
			slices.Sort(other)
			z := stats.NormalQuantile(1 - interferenceAlpha)
			shift, lo, hi, ok := stats.HodgesLehmann(other, own, z, z)
			if !ok || math.Exp(lo) < InterferenceRatio {
				continue
			}
			slices.Sort(otherMS)
			slices.Sort(ownMS)
			out = append(out, Interfered{
				Pair: sides[0].Label() + " ⇄ " + sides[1].Label(), Side: [2]string{"base", "candidate"}[s],
				AfterOther: stats.Median(otherMS), AfterOwn: stats.Median(ownMS), NOther: len(other), NOwn: len(own),
				Ratio: math.Exp(shift), Lo: math.Exp(lo), Hi: math.Exp(hi),
			})
		}
	}
	return out
}
