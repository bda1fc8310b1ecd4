package compare

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// driftSide is one target with prompts whose first half of requests is
// drawn from before and the second from after (each 120 requests: a bless
// at the defaults), numbered in request order.
func driftSide(seed uint64, before, after profile, prompts ...string) Side {
	rng := rand.New(rand.NewPCG(seed, 1))
	t := results.Target{Name: "local"}
	for _, id := range prompts {
		s := append(simSamples(rng, before, 120), simSamples(rng, after, 120)...)
		for i := range s {
			s[i].Seq = i + 1
		}
		t.Prompts = append(t.Prompts, results.Prompt{ID: id, Requests: len(s), Samples: s, Metrics: results.MetricsOf(s)})
	}
	return Side{Run: results.Run{Requests: 240}, Targets: []results.Target{t}}
}

func TestSelfDrift(t *testing.T) {
	steady := profile{TTFTMedian: 100, TTFTSigma: 0.25, ITLMedian: 5, ITLReqSigma: 0.1, ITLGapSigma: 0.2, Gaps: 24}
	slow := steady
	slow.TTFTMedian, slow.ITLMedian = 500, 25 // 5× slower halfway
	limited := defaultGate()
	limited.Checks = append(limited.Checks, config.Check{Metric: results.TTFT, Stat: "p50", Max: 50 * time.Millisecond, MaxOnly: true})
	busier := steady
	busier.TTFTMedian = 140 // 40% slower halfway: a change, not another endpoint
	tests := []struct {
		name   string
		side   Side
		gate   config.Gate
		want   Verdict // of every drift found; "" for none
		severe bool    // whether Severe keeps every one
	}{
		{"steady", driftSide(1, steady, steady, "a", "b"), defaultGate(), "", false},
		// A limit every half breaks is not drift: it judges a run.
		{"steady above a limit", driftSide(1, steady, steady, "a"), limited, "", false},
		{"5× slower halfway", driftSide(2, steady, slow, "a", "b"), defaultGate(), Regressed, true},
		// The first bless: minutes of cold start, then fast.
		{"slow, then fast", driftSide(3, slow, steady, "a"), defaultGate(), Improved, true},
		{"40% slower halfway", driftSide(4, steady, busier, "a", "b"), defaultGate(), Regressed, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SelfDrift(tt.side, tt.gate)
			if tt.want == "" {
				if len(got) != 0 {
					t.Fatalf("SelfDrift found %d changes in a steady run: %+v", len(got), got)
				}
				return
			}
			if len(got) == 0 {
				t.Fatal("SelfDrift found no drift")
			}
			for _, c := range got {
				if c.Verdict != tt.want {
					t.Errorf("%s %s %s: verdict %s, want %s", c.Prompt, c.Metric, c.Stat, c.Verdict, tt.want)
				}
			}
			if n := len(Severe(got)); tt.severe && n != len(got) || !tt.severe && n != 0 {
				t.Errorf("Severe kept %d of %d changes (largest %.2f×), want all: %v", n, len(got), got[0].Ratio, tt.severe)
			}
			// Largest change first; a 5× step comes out about 5× either way.
			if r := distance(got[0].Ratio); tt.severe && (r < 4 || r > 6.5) {
				t.Errorf("largest change first: ratio %.2f, want about 5× either way", got[0].Ratio)
			}
		})
	}
}

// TestSelfDriftCalibration: how often a steady run is refused, by seeded
// draws of a bless at the defaults (2 prompts × 240 requests, lognormal
// TTFT σ 0.3 and correlated ITL gaps, aggregates on), for the config's
// default checks (no floors: latgate's resolution) and the example's
// (with floors): the family is one bless. The checks between halves fail
// only beyond their tolerance, so a steady run is refused far less often
// than a check's 2.5% error rate at its tolerance.
func TestSelfDriftCalibration(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("bootstraps 2 × 60 runs")
	}
	steady := profile{TTFTMedian: 100, TTFTSigma: 0.3, ITLMedian: 5, ITLReqSigma: 0.15, ITLGapSigma: 0.3, Gaps: 24}
	noFloors := defaultGate()
	for i := range noFloors.Checks {
		noFloors.Checks[i].Tolerance.Floor = 0
	}
	const runs = 60
	for name, gate := range map[string]config.Gate{"default checks": noFloors, "with floors": defaultGate()} {
		refused := 0
		for seed := range uint64(runs) {
			if len(SelfDrift(driftSide(100+seed, steady, steady, "a", "b"), gate)) > 0 {
				refused++
			}
		}
		t.Logf("%s: steady blesses refused for drift: %d of %d", name, refused, runs)
		if refused > 1 {
			t.Errorf("%s: %d of %d steady blesses refused, want at most 1", name, refused, runs)
		}
	}
}

// TestSevereOnTheDifference (#29): a check decided on the difference (its
// bounds are milliseconds: itl p50 of tokens sharing one read, 0.00 ms in a
// half) is never a refusal — a bless on a busy machine was refused for
// "itl p50 +0.00 ms [+0.00, +0.10 ms] (0.00 ms → 0.00 ms)", its 0.10 ms read
// as ×⅓, and for "+3.43 ms [+3.25, +3.63 ms]" read as ×3. A ratio past ×3
// still is.
func TestSevereOnTheDifference(t *testing.T) {
	drift := []Check{
		{Prompt: "zero", Metric: results.ITL, Stat: "p50", Scale: ScaleDifference, Lo: 0, Hi: 0.1, Verdict: Improved},
		{Prompt: "ms", Metric: results.ITL, Stat: "p50", Scale: ScaleDifference, Lo: 3.25, Hi: 3.63, Verdict: Regressed},
		{Prompt: "ratio", Metric: results.TTFT, Stat: "p50", Ratio: 3.5, Lo: 3.2, Hi: 3.9, Verdict: Regressed},
	}
	got := Severe(drift)
	if len(got) != 1 || got[0].Prompt != "ratio" {
		t.Errorf("Severe kept %+v, want only the ratio past ×3", got)
	}
}
