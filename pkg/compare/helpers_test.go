package compare

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// defaultChecks mirrors the gate's documented defaults: ttft p50 15% floor
// 20ms; ttft p95 25% floor 40ms; itl p50 15% floor 2ms; itl p95 25% floor 5ms.
func defaultChecks() []config.Check {
	return []config.Check{
		{Metric: results.TTFT, Stat: "p50", Tolerance: config.Tolerance{Rel: 0.15, Floor: 20 * time.Millisecond}},
		{Metric: results.TTFT, Stat: "p95", Tolerance: config.Tolerance{Rel: 0.25, Floor: 40 * time.Millisecond}},
		{Metric: results.ITL, Stat: "p50", Tolerance: config.Tolerance{Rel: 0.15, Floor: 2 * time.Millisecond}},
		{Metric: results.ITL, Stat: "p95", Tolerance: config.Tolerance{Rel: 0.25, Floor: 5 * time.Millisecond}},
	}
}

func defaultGate() config.Gate {
	return config.Gate{Confidence: 0.95, Resamples: 2000, Seed: 1, Checks: defaultChecks(), Aggregate: true}
}

// profile describes simulated requests: lognormal TTFT and ITL gaps. A gap is
// ITLMedian × exp(request effect + gap effect), the request effect shared by
// every gap of one stream (sd ITLReqSigma) and the gap effect independent
// (sd ITLGapSigma); their total sd is sqrt(ITLReqSigma² + ITLGapSigma²).
type profile struct {
	TTFTMedian, TTFTSigma    float64
	ITLMedian                float64
	ITLReqSigma, ITLGapSigma float64
	Gaps                     int     // mean gaps per request (uniform ±4)
	TTFTScale                float64 // multiplies every TTFT (1 when zero)
}

// simSamples draws n requests from p with rng.
func simSamples(rng *rand.Rand, p profile, n int) []results.Sample {
	scale := p.TTFTScale
	if scale == 0 {
		scale = 1
	}
	out := make([]results.Sample, n)
	for i := range out {
		ttft := scale * p.TTFTMedian * math.Exp(p.TTFTSigma*rng.NormFloat64())
		gaps := make([]float64, max(1, p.Gaps-4+rng.IntN(9)))
		req := p.ITLReqSigma * rng.NormFloat64()
		total := ttft
		for k := range gaps {
			gaps[k] = p.ITLMedian * math.Exp(req+p.ITLGapSigma*rng.NormFloat64())
			total += gaps[k]
		}
		out[i] = results.Sample{Seq: i, TTFB: ttft * 0.9, TTFT: ttft, TTFCT: ttft, HasContent: true,
			Total: total, TPOT: (total - ttft) / float64(len(gaps)), ITL: gaps, OutputTokens: len(gaps) + 1}
	}
	return out
}

// ttftSamples makes one sample per TTFT value.
func ttftSamples(ttft ...float64) []results.Sample {
	out := make([]results.Sample, len(ttft))
	for i, v := range ttft {
		out[i] = results.Sample{Seq: i, TTFT: v, TTFB: v, Total: v, OutputTokens: 1}
	}
	return out
}

// grid returns n deterministic "perfect" lognormal values (median m, sd s of
// the log): the quantiles at (i+0.5)/n, in a scrambled order.
func grid(n int, m, s, scale float64) []float64 {
	out := make([]float64, n)
	// A seeded shuffle: (i·7919) mod n, the scramble this was once, is a
	// reversal for every n that divides 7920 (40, 48, 60, 72, 80, …), which
	// reads as a run slower at its start (a cold start).
	perm := rand.New(rand.NewPCG(uint64(n), 7919)).Perm(n)
	for i := range out {
		j := perm[i]
		out[i] = scale * m * math.Exp(s*math.Sqrt2*math.Erfinv(2*(float64(j)+0.5)/float64(n)-1))
	}
	return out
}

// side builds a Side with one target "t" and the given prompts. Seq is a
// target's arrival counter: prompts built by the same helper share their
// numbers (and a grid's order), and would read as requests correlated pair
// by pair, so when two prompts' samples share a Seq every sample is
// renumbered one prompt after the other; samples numbered as a target
// measured them (the matrix's) keep their order.
func side(prompts ...results.Prompt) Side {
	seen, clash := map[int]bool{}, false
	for _, p := range prompts {
		for _, x := range p.Samples {
			clash = clash || seen[x.Seq]
			seen[x.Seq] = true
		}
	}
	seq := 0
	for i := range prompts {
		if !clash {
			break
		}
		prompts[i].Samples = slices.Clone(prompts[i].Samples)
		for k := range prompts[i].Samples {
			seq++
			prompts[i].Samples[k].Seq = seq
		}
	}
	return Side{Run: results.Run{Requests: 30, Concurrency: 1}, Targets: []results.Target{{
		Name: "t", BaseURL: "http://127.0.0.1:8080/v1", Model: "m",
		Params: results.Params{MaxTokens: 64, Stream: true}, Prompts: prompts,
	}}}
}

func prompt(id string, s []results.Sample) results.Prompt {
	return results.Prompt{ID: id, Hash: "h-" + id, Requests: len(s), Samples: s}
}

// defaultConfig is what config.Parse fills in for a config without run or
// gate sections.
func defaultConfig() *config.Config {
	c, err := config.Parse([]byte("targets: [{name: t, base_url: sim, model: m}]\nprompts: [{id: p, messages: [{role: user, content: hi}]}]\n"), "defaults.yaml", config.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		panic(err)
	}
	return c
}
