package compare

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/latgate/latgate/pkg/results"
)

// TestBusyRunner (#29): a regression within what latgate's own runner delay
// explains is undecided (runner), not blamed on the endpoint; one far
// beyond it still fails; a quiet runner changes nothing; a busy runner is
// said whatever the verdicts.
func TestBusyRunner(t *testing.T) {
	// A runner that holds latgate off the CPU for milliseconds: reads about
	// 3 ms late in the middle, 11 ms in the worst 5%.
	busy := &results.Lateness{Probes: 2000, P50MS: 3.5, P95MS: 12, P99MS: 20, MaxMS: 40}
	// Busy in its tail only (lag 3 ms), on time in the middle: it cannot
	// explain a 4 ms move of a median.
	mild := &results.Lateness{Probes: 2000, P50MS: 0.6, P95MS: 3, P99MS: 4, MaxMS: 9}
	quiet := &results.Lateness{Probes: 2000, P50MS: 0.55, P95MS: 1.03, P99MS: 1.1, MaxMS: 2}
	tests := []struct {
		name        string
		itl, ttft   float64 // factors on the current run's ITL and TTFT medians
		late        *results.Lateness
		want        Verdict
		runnerStuck bool // some ITL check is undecided on the runner
		warned      bool
	}{
		{"ITL +50%, quiet runner", 1.5, 1, quiet, Regressed, false, false},
		{"ITL +50%, no probe (an older file)", 1.5, 1, nil, Regressed, false, false},
		{"ITL +50% (4 ms), busy runner (reads 3 ms late at p50)", 1.5, 1, busy, Inconclusive, true, true},
		{"ITL +50% (4 ms), runner busy in its tail only", 1.5, 1, mild, Regressed, false, true},
		{"TTFT +50% (100 ms), busy runner", 1, 1.5, busy, Regressed, false, true},
		{"unchanged, busy runner", 1, 1, busy, OK, false, true},
	}
	ms := defaultMatrixSetup()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := matrixRow{Noise: lognormal(0.1), Change: change{Name: "none", TTFT: 1, All: 1}, Prompts: 2}
			r.Noise.Bounded = 0
			cr := r
			cr.Noise.ITL.Median = time.Duration(float64(r.Noise.ITL.Median) * tt.itl)
			cr.Noise.TTFT.Median = time.Duration(float64(r.Noise.TTFT.Median) * tt.ttft)
			rng := rand.New(rand.NewPCG(1, 2))
			bp, cp := newPrompts(2), newPrompts(2)
			newSimTarget(r, rng.Uint64(), 1, false).measure(bp, fill(2, 150))
			newSimTarget(cr, rng.Uint64(), 1, false).measure(cp, fill(2, 150))
			bs, cs := side(bp...), side(cp...)
			cs.Targets[0].Lateness = tt.late
			rep := CompareWith(bs, cs, ms.Gate, Setup{Design: ms.Design})
			if rep.Verdict != tt.want {
				t.Errorf("verdict %s, want %s", rep.Verdict, tt.want)
			}
			all := slices.Concat(rep.Checks, rep.Aggregates)
			stuck := slices.ContainsFunc(all, func(c Check) bool {
				return c.Stuck == StuckRunner && c.Metric == results.ITL && c.Verdict == Inconclusive && !c.Diagnostic && c.RunnerLag == 19
			})
			if stuck != tt.runnerStuck {
				t.Errorf("an ITL check undecided on the runner: %v, want %v", stuck, tt.runnerStuck)
			}
			if tt.runnerStuck {
				if slices.ContainsFunc(all, func(c Check) bool { return c.Metric == results.ITL && c.Verdict == Regressed }) {
					t.Errorf("an ITL check within the runner's delay still regressed")
				}
				if rd, more := NextRound(rep, ms.Design); more && slices.ContainsFunc(rd.Why, func(c Check) bool { return c.Stuck == StuckRunner }) {
					t.Errorf("a round was asked for a check stuck on the runner: %+v", rd.Why)
				}
			}
			i := slices.IndexFunc(rep.Found, func(w Warning) bool { return w.Kind == WarnRunnerBusy })
			if (i >= 0) != tt.warned {
				t.Fatalf("runner warning %v, want %v: %+v", i >= 0, tt.warned, rep.Found)
			}
			if i >= 0 && (rep.Found[i].Lateness != *tt.late || (rep.Found[i].Count > 0) != tt.runnerStuck) {
				t.Errorf("warning %+v: want the probe's figures and a count of the undecided", rep.Found[i])
			}
		})
	}
}

// TestBusyRunnerRate: a drop of tokens_per_s is the runner's when the time
// it adds to the baseline's streaming span is within its delay, and the
// endpoint's beyond it (a run gating only the rate once failed an
// unchanged endpoint on a runner 45 ms late).
func TestBusyRunnerRate(t *testing.T) {
	// The baseline streams 60 ms from its first token to the end.
	base := Side{Targets: []results.Target{{Name: "t", Overall: results.Prompt{Metrics: results.Metrics{
		TTFT: &results.Summary{P50: 100}, Total: &results.Summary{P50: 160}}}}}}
	late := &results.Lateness{Probes: 500, P50MS: 11, P95MS: 35, P99MS: 45, MaxMS: 48}
	for _, tt := range []struct {
		name      string
		cur, min  float64
		lateness  *results.Lateness
		explained bool
	}{
		{"-24%: the span 19 ms longer, within 2 × 10 ms", 184, 0, late, true},
		{"-50%: 60 ms longer", 122, 0, late, false},
		{"a min passed by 10%: 6 ms", 200, 220, late, true},
		{"-24% on a quiet runner", 184, 0, &results.Lateness{Probes: 500, P50MS: 0.55, P95MS: 1, P99MS: 1.1, MaxMS: 2}, false},
	} {
		c := Check{Target: "t", Metric: results.TokensPerS, Stat: "p50", Baseline: 244, Current: tt.cur, Min: tt.min}
		if got := explains(c, tt.lateness, nil, base); got != tt.explained {
			t.Errorf("%s: explained %v, want %v", tt.name, got, tt.explained)
		}
	}
}

// TestMissedSchedule: an arrival-rate run whose sends fell behind the
// schedule decides nothing of its target, a regression (TTFT +50%) or an
// unchanged endpoint alike: every gated check is undecided on the
// schedule, no round is asked for, and the target is warned of with its
// send figures. A schedule held leaves the verdicts alone.
func TestMissedSchedule(t *testing.T) {
	missed := &results.Sends{Scheduled: 300, LateP50MS: 9, LateP99MS: 14, LateMaxMS: 30, SentRate: 7.2}
	held := &results.Sends{Scheduled: 300, LateP50MS: 0.05, LateP99MS: 0.4, LateMaxMS: 1.1, SentRate: 8}
	tests := []struct {
		name  string
		ttft  float64
		sends *results.Sends
		want  Verdict
	}{
		{"TTFT +50%, schedule held", 1.5, held, Regressed},
		{"unchanged, schedule held", 1, held, OK},
		{"TTFT +50%, schedule missed", 1.5, missed, Inconclusive},
		{"unchanged, schedule missed", 1, missed, Inconclusive},
		// Late in the tail only: the schedule held, and 100 ms is far
		// beyond what 14 ms late sends explain.
		{"TTFT +50%, a late tail only", 1.5, &results.Sends{Scheduled: 300, LateP50MS: 0.2, LateP99MS: 14, LateMaxMS: 30, SentRate: 8}, Regressed},
	}
	ms := defaultMatrixSetup()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := matrixRow{Noise: lognormal(0.1), Change: change{Name: "none", TTFT: 1, All: 1}, Prompts: 2}
			r.Noise.Bounded = 0
			cr := r
			cr.Noise.TTFT.Median = time.Duration(float64(r.Noise.TTFT.Median) * tt.ttft)
			rng := rand.New(rand.NewPCG(3, 4))
			bp, cp := newPrompts(2), newPrompts(2)
			newSimTarget(r, rng.Uint64(), 1, false).measure(bp, fill(2, 150))
			newSimTarget(cr, rng.Uint64(), 1, false).measure(cp, fill(2, 150))
			bs, cs := side(bp...), side(cp...)
			bs.Run.Rate, cs.Run.Rate = 8, 8
			cs.Targets[0].Sends = tt.sends
			rep := CompareWith(bs, cs, ms.Gate, Setup{Design: ms.Design})
			if rep.Verdict != tt.want {
				t.Errorf("verdict %s, want %s", rep.Verdict, tt.want)
			}
			i := slices.IndexFunc(rep.Found, func(w Warning) bool { return w.Kind == WarnScheduleMissed })
			if tt.sends.Held() {
				if i >= 0 {
					t.Errorf("warned of a held schedule: %+v", rep.Found[i])
				}
				return
			}
			for _, c := range slices.Concat(rep.Checks, rep.Aggregates) {
				if c.Verdict != Inconclusive || c.Stuck != StuckSchedule || c.RunnerLag != 14 {
					t.Errorf("%s %s %s: %s (stuck %q, lag %v), want undecided on the schedule", c.Prompt, c.Metric, c.Stat, c.Verdict, c.Stuck, c.RunnerLag)
				}
			}
			if rd, more := NextRound(rep, ms.Design); more {
				t.Errorf("a round was asked for a run whose schedule was missed: %+v", rd)
			}
			if i < 0 || rep.Found[i].Sends != *missed || rep.Found[i].Rate != 8 || rep.Found[i].Count == 0 {
				t.Errorf("schedule warning %+v, want the sends, the rate and the count of checks", rep.Found)
			}
		})
	}
}

// TestBusyRunnerGaps: on a runner 12.9 ms late at p99, an ITL p50 of 0 ms
// in the baseline (two tokens to a read) against 1.12 ms now is the
// runner's resolution, not the endpoint's; a 20 ms gap that grew 50%, or
// a 40 ms gap against a baseline of 0, is beyond it and stays a regression.
func TestBusyRunnerGaps(t *testing.T) {
	late := &results.Lateness{Probes: 1206, P50MS: 0.6, P95MS: 6.84, P99MS: 12.9, MaxMS: 29}
	for _, tt := range []struct {
		name      string
		base, cur float64
		explained bool
	}{
		{"0 → 1.12 ms", 0, 1.12, true},
		{"1 → 5 ms", 1, 5, true},
		{"20 → 30 ms", 20, 30, false},
		// A baseline tampered to 0 cannot hide a 40 ms gap behind the runner.
		{"0 → 40 ms", 0, 40, false},
	} {
		c := Check{Target: "t", Metric: results.ITL, Stat: "p50", Baseline: tt.base, Current: tt.cur}
		if got := explains(c, late, nil, Side{}); got != tt.explained {
			t.Errorf("%s: explained %v, want %v", tt.name, got, tt.explained)
		}
	}
}
