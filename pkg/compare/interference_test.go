package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latgate/latgate/pkg/results"
)

// abTimeline simulates an A/B run at concurrency 1 on one target pair:
// rounds blocks per prompt (two prompts, medians 100 and 300 ms), each block
// one request of each side in a coin-flip order (or, with block > 0, ABBA
// chunks of block rounds a side), TTFT lognormal σ sigma with spikes (5%
// ×3 when spiky), a request sent right after the other side's multiplied
// by x (the reload of a one-model server), the level drifting up by drift
// over the run, and with rho > 0 an autocorrelated level (AR(1), ρ = rho,
// σ 0.3 at rest: slow and fast spells that neighbouring requests share).
// It returns the two sides' results.
func abTimeline(rng *rand.Rand, rounds, block int, sigma, x, drift, rho float64, spiky bool) (base, cand *results.File) {
	type job struct{ side, prompt int }
	var jobs []job
	if block == 0 {
		for range rounds {
			for p := range 2 {
				first := rng.IntN(2)
				jobs = append(jobs, job{first, p}, job{1 - first, p})
			}
		}
	} else {
		lead := rng.IntN(2)
		for r0 := 0; r0 < rounds; r0 += block {
			for _, s := range []int{lead, 1 - lead} {
				for r := r0; r < min(r0+block, rounds); r++ {
					for p := range 2 {
						jobs = append(jobs, job{s, p})
					}
				}
			}
			lead = 1 - lead
		}
	}
	files := [2]*results.File{{}, {}}
	for s := range files {
		files[s].Targets = []results.Target{{Name: [2]string{"small", "large"}[s], Prompts: []results.Prompt{{ID: "a"}, {ID: "b"}}}}
	}
	at, prev, level := 0.0, -1, 0.0
	for k, j := range jobs {
		if rho > 0 {
			level = rho*level + 0.3*math.Sqrt(1-rho*rho)*rng.NormFloat64()
		}
		ttft := []float64{100, 300}[j.prompt] * math.Exp(sigma*rng.NormFloat64()+level) * (1 + drift*float64(k)/float64(len(jobs)))
		if spiky && rng.Float64() < 0.05 {
			ttft *= 3
		}
		if prev >= 0 && prev != j.side {
			ttft *= x
		}
		p := &files[j.side].Targets[0].Prompts[j.prompt]
		p.Samples = append(p.Samples, results.Sample{Seq: len(p.Samples) + 1, AtMS: at, TTFT: ttft})
		at += ttft + 20
		prev = j.side
	}
	return files[0], files[1]
}

// TestInterferenceCalibration: how often Interference flags a run, per run
// (either side of the one target pair), over seeded simulated A/B runs of
// 60 blocks a prompt (two prompts). On endpoints whose latency does not
// depend on the previous request (σ 0.1 to 0.6, 5% spikes ×3, a level
// drifting +50% over the run, an autocorrelated level, blocks) it must flag
// at most 2% of runs; a server
// that reloads on every switch (×30, the Ollama case: 8 ms → 270 ms) must
// be flagged in every run, and ×2 in most. Under the blocked schedule the
// reloads hit the first request of each chunk, on both sides alike, and
// are not flagged.
func TestInterferenceCalibration(t *testing.T) {
	const runs = 400
	for _, tt := range []struct {
		name                 string
		block                int
		sigma, x, drift, rho float64
		spiky                bool
		atLeast, atMost, all float64 // rates: flagged at least, at most
	}{
		{name: "none σ0.1", sigma: 0.1, x: 1, atMost: 0.02},
		{name: "none σ0.3", sigma: 0.3, x: 1, atMost: 0.02},
		{name: "none σ0.6", sigma: 0.6, x: 1, atMost: 0.02},
		{name: "none σ0.3 spikes", sigma: 0.3, x: 1, spiky: true, atMost: 0.02},
		{name: "none σ0.3 drift +50%", sigma: 0.3, x: 1, drift: 0.5, atMost: 0.02},
		{name: "none σ0.3 blocks of 10", block: 10, sigma: 0.3, x: 1, atMost: 0.02},
		{name: "none σ0.1 correlated level ρ0.9", sigma: 0.1, x: 1, rho: 0.9, atMost: 0.02},
		{name: "reload ×30 σ0.3", sigma: 0.3, x: 30, atLeast: 1},
		{name: "reload ×2 σ0.3", sigma: 0.3, x: 2, atLeast: 0.8},
		{name: "reload ×1.5 σ0.3", sigma: 0.3, x: 1.5, atLeast: 0.3},
		// Blocked, the reloads hit the 6 chunk starts a side, which pair
		// with each other: too few to test, and nothing to warn about.
		{name: "reload ×30 σ0.3 blocks of 10", block: 10, sigma: 0.3, x: 30, atMost: 0.02},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(len(tt.name))))
			flagged := 0
			for range runs {
				b, c := abTimeline(rng, 60, tt.block, tt.sigma, tt.x, tt.drift, tt.rho, tt.spiky)
				if len(Interference(b, c)) > 0 {
					flagged++
				}
			}
			rate := float64(flagged) / runs
			t.Logf("%s: flagged %d of %d runs (%.1f%%)", tt.name, flagged, runs, 100*rate)
			if tt.atMost > 0 && rate > tt.atMost || tt.atLeast > 0 && rate < tt.atLeast {
				t.Errorf("flagged %d of %d runs (%.1f%%); want %s", flagged, runs, 100*rate, bounds(tt.atLeast, tt.atMost))
			}
		})
	}
}

func bounds(least, most float64) string {
	if most > 0 {
		return fmt.Sprintf("at most %.0f%%", 100*most)
	}
	return fmt.Sprintf("at least %.0f%%", 100*least)
}

// TestInterferenceFigures: a flagged side carries the figures a reader
// needs: both P50s, the counts, the ratio with its interval.
func TestInterferenceFigures(t *testing.T) {
	b, c := abTimeline(rand.New(rand.NewPCG(3, 4)), 60, 0, 0.2, 30, 0, 0, false)
	got := Interference(b, c)
	if len(got) != 2 {
		t.Fatalf("%d sides flagged, want both: %+v", len(got), got)
	}
	for _, g := range got {
		if g.Pair != "small ⇄ large" || g.NOther+g.NOwn < 100 || g.NOwn < minInterference ||
			g.AfterOther < 10*g.AfterOwn || g.Lo < InterferenceRatio || g.Lo > g.Ratio || g.Hi < g.Ratio || g.Ratio < 20 || g.Ratio > 45 {
			t.Errorf("%+v: want the pair named, both P50s ~30× apart, the ratio ~30 inside its interval", g)
		}
	}
}
