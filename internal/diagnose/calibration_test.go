package diagnose

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latgate/latgate/pkg/results"
)

var calibrate = flag.Bool("calibrate", false, "run the attribution calibration at 2000 runs per row")

// noisy is a realistic side: TTFB and TTFT lognormal (σ 0.3, 2% spikes
// ×4), the run's level drawn within ±7% (day to day), 90% of requests
// hitting a cache of 1,000 of 1,200 prompt tokens, output tokens lognormal
// σ 0.3 around 150, 1% new connections, 1% of requests retried after a
// 429, 0.5% failed.
type noisy struct {
	n                            int
	hit, ttfbMS, ttftMS, retried float64
	prompt, cached               int
}

func (c noisy) side(rng *rand.Rand) Side {
	level := 0.93 + 0.14*rng.Float64()
	logn := func(m float64) float64 {
		v := m * level * math.Exp(0.3*rng.NormFloat64())
		if rng.Float64() < 0.02 {
			v *= 4
		}
		return v
	}
	s := Side{Requests: c.n, Models: []string{"m"}, Fingerprints: []string{"fp_a", "fp_b"}}
	for i := range c.n {
		if rng.Float64() < 0.005 {
			s.Failures = append(s.Failures, results.Failure{Class: results.ErrServer})
			continue
		}
		ttfb := logn(c.ttfbMS)
		smp := results.Sample{Seq: i + 1, TTFB: ttfb, TTFT: ttfb + logn(c.ttftMS-c.ttfbMS),
			PromptTokens: c.prompt, OutputTokens: int(150 * math.Exp(0.3*rng.NormFloat64())), Reused: rng.Float64() < 0.99}
		smp.Total = smp.TTFT + 10*float64(smp.OutputTokens)
		if rng.Float64() < c.hit {
			smp.CachedTokens = c.cached
		}
		if !smp.Reused {
			smp.DNS, smp.Connect, smp.TLS = 0.5*math.Exp(0.5*rng.NormFloat64()), math.Exp(0.5*rng.NormFloat64()), 30*math.Exp(0.5*rng.NormFloat64())
		}
		if rng.Float64() < c.retried {
			smp.Retries = 1
		}
		s.Samples = append(s.Samples, smp)
	}
	return s
}

// TestAttributionCalibration measures, on seeded simulated runs, how often
// an attribution names a cause when none moved (the TTFT alone got 50%
// slower: its line must be NoCause) and how often it names the one that
// did. The rate is per regression's line (one attribution, every kind
// tested); each row is its own experiment (its own seed). It fails when a
// cause that did not move is named in more than 5% of lines, or a planted
// cause with a power target is named in fewer than 95%. 200 runs per row
// (50 under -short, 2000 with -args -calibrate).
func TestAttributionCalibration(t *testing.T) {
	runs := 200
	if *calibrate {
		runs = 2000
	}
	if testing.Short() {
		runs = 50
	}
	base := noisy{n: 240, hit: 0.9, ttfbMS: 40, ttftMS: 300, retried: 0.01, prompt: 1200, cached: 1000}
	with := func(n int, f func(c *noisy)) noisy {
		c := base
		c.n, c.ttftMS = n, 450
		f(&c)
		return c
	}
	same := func(*noisy) {}
	for i, row := range []struct {
		name string
		cur  noisy
		want string // the kind that must be named, "" for none
		// power: the share of lines that must name want (0: only printed).
		power float64
	}{
		{"TTFT +50%, nothing else (60 requests)", with(60, same), "", 0},
		{"TTFT +50%, nothing else (150 requests)", with(150, same), "", 0},
		{"cache stopped hitting", with(60, func(c *noisy) { c.hit = 0 }), results.KindCache, 0.95},
		// The cache holds the same share of a longer prompt.
		{"prompt twice as long", with(60, func(c *noisy) { c.prompt, c.cached = 2400, 2000 }), results.KindPromptTokens, 0.95},
		{"prompt 20% longer", with(60, func(c *noisy) { c.prompt, c.cached = 1440, 1200 }), results.KindPromptTokens, 0.95},
		{"queueing: TTFB +160 ms of +160 ms", with(60, func(c *noisy) { c.ttfbMS, c.ttftMS = 200, 460 }), results.KindQueueing, 0.95},
		{"rate limited: 1% → 10%", with(60, func(c *noisy) { c.retried = 0.10 }), results.KindRateLimit, 0},
		{"rate limited: 1% → 20%", with(60, func(c *noisy) { c.retried = 0.20 }), results.KindRateLimit, 0.95},
	} {
		rng := rand.New(rand.NewPCG(0xa77, uint64(i)))
		falseNamed, found := 0, 0
		for range runs {
			a := Attribute(results.TTFT, base.side(rng), row.cur.side(rng))
			named, wrong := false, false
			for _, c := range a.Causes {
				named = named || c.Kind == row.want
				wrong = wrong || c.Kind != row.want
			}
			if named {
				found++
			}
			if wrong {
				falseNamed++
			}
		}
		pFalse, pFound := float64(falseNamed)/float64(runs), float64(found)/float64(runs)
		line := fmt.Sprintf("%-40s runs %4d: a cause that did not move named in %5.1f%%", row.name, runs, 100*pFalse)
		if row.want != "" {
			line += fmt.Sprintf(", %s named in %5.1f%%", row.want, 100*pFound)
		}
		t.Log(line)
		// Two standard errors of slack at the run count used.
		slack := 2 * math.Sqrt(0.05*0.95/float64(runs))
		if pFalse > 0.05+slack {
			t.Errorf("%s: false causes in %.1f%% of lines, want ≤ 5%%", row.name, 100*pFalse)
		}
		if pFound < row.power-slack {
			t.Errorf("%s: %s named in %.1f%% of lines, want ≥ %.0f%%", row.name, row.want, 100*pFound, 100*row.power)
		}
	}
}
