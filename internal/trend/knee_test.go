package trend

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/latgate/latgate/internal/history"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

var kneeHistories = flag.Int("knee-histories", 200, "histories a row of the knee calibration")

// kneeGrid is the rates a simulated sweep measures, requests/s.
var kneeGrid = []float64{20, 25, 30, 35, 40, 45, 50, 55, 60}

// simSweep is one night's sweep of an endpoint whose true knee is knee:
// its goodput 1 − 5% × e^((r − knee)/(4% of knee)) at rate r (95% at the
// knee, falling fast past it), each rate measured with n requests (their
// successes drawn), stopping past the knee as latgate sweep does; the knee
// found by the real estimator.
func simSweep(rng *rand.Rand, knee float64, n int) *history.Knee {
	var steps []stats.Step
	for _, r := range kneeGrid {
		g := max(0, min(1, 1-0.05*math.Exp((r-knee)/(0.04*knee))))
		met := 0
		for range n {
			if rng.Float64() < g {
				met++
			}
		}
		steps = append(steps, stats.Step{Rate: r, Met: met, N: n})
		if float64(met)/float64(n) < 0.95-0.10 {
			break
		}
	}
	k := results.KneeFrom(stats.KneeOf(steps, 0.95, 0.95), steps[len(steps)-1].Rate)
	return &history.Knee{Rate: k.Rate, Lo: k.Lo, Hi: k.Hi, Goal: 0.95, Below: k.Below, Above: k.Above, HiOpen: k.HiOpen}
}

// TestKneeCalibration is the knee rule's calibration, per history of 60
// nightly sweeps (the family users live with): an unchanged endpoint whose
// capacity varies from night to night fails on some night in few
// histories; a capacity that falls 30% from night 15 fails within 5 nights
// (nights 15–19). Counts are printed; CI runs a smaller count.
func TestKneeCalibration(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates thousands of sweeps")
	}
	const nights, dropAt, within = 60, 15, 5
	type row struct {
		name  string
		sigma float64 // night-to-night capacity noise (log SD)
		drop  float64 // capacity factor from night dropAt on (1: none)
		want  func(hits, n int) bool
		what  string
	}
	rows := []row{
		{"unchanged, σ 2%", 0.02, 1, func(h, n int) bool { return h <= n/20 }, "histories failing on some night (≤ 5%)"},
		{"unchanged, σ 5%", 0.05, 1, func(h, n int) bool { return h <= n/20 }, "histories failing on some night (≤ 5%)"},
		{"unchanged, σ 10%", 0.10, 1, nil, "histories failing on some night (no target: a 15% tolerance under 10% noise)"},
		{"capacity −30% from night 15, σ 2%", 0.02, 0.7, func(h, n int) bool { return h >= n*95/100 }, "caught within 5 nights (≥ 95%)"},
		{"capacity −30% from night 15, σ 5%", 0.05, 0.7, func(h, n int) bool { return h >= n*95/100 }, "caught within 5 nights (≥ 95%)"},
		{"capacity −30% from night 15, σ 10%", 0.10, 0.7, nil, "caught within 5 nights"},
	}
	n := *kneeHistories
	t0 := time.Date(2026, 1, 1, 3, 0, 0, 0, time.UTC)
	for ri, r := range rows {
		hits := 0
		for h := range n {
			rng := rand.New(rand.NewPCG(uint64(ri), uint64(h)))
			var recs []history.Record
			failed := false
			for night := 1; night <= nights && !failed; night++ {
				k := 42 * math.Exp(r.sigma*rng.NormFloat64())
				if night >= dropAt {
					k *= r.drop
				}
				recs = append(recs, history.Record{Command: "sweep", At: t0.AddDate(0, 0, night),
					Targets: []history.Target{{Name: "vllm", Knee: simSweep(rng, k, 120)}}})
				ks := Knees(recs, time.Time{}, 0.15)
				if len(ks) == 1 && ks[0].Regressed {
					failed = r.drop == 1 || night < dropAt+within
					if r.drop != 1 && night < dropAt {
						failed = false // a false alarm before the drop is not a catch
						break
					}
					break
				}
			}
			if failed {
				hits++
			}
		}
		fmt.Printf("knee calibration: %-36s %3d/%d %s\n", r.name, hits, n, r.what)
		if r.want != nil && !r.want(hits, n) {
			t.Errorf("%s: %d of %d %s", r.name, hits, n, r.what)
		}
	}
}

// TestKnees: a knee 30% down on two sweeps in a row, each surely below the
// reference, fails; on one, or above the rates swept, or within the
// tolerance, it does not; the reference is the median of the first sweeps
// since the bless and stays put until the next.
func TestKnees(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 3, 0, 0, 0, time.UTC)
	mk := func(ks ...history.Knee) []history.Record {
		var out []history.Record
		for i, k := range ks {
			out = append(out, history.Record{Command: "sweep", At: t0.AddDate(0, 0, i),
				Targets: []history.Target{{Name: "vllm", Knee: &k}, {Name: "nosloknee"}}})
		}
		return out
	}
	ok := history.Knee{Rate: 42, Lo: 40, Hi: 45}
	low := history.Knee{Rate: 29, Lo: 25, Hi: 30}
	open := history.Knee{Rate: 29, Lo: 25, Hi: 60, HiOpen: true}
	near := history.Knee{Rate: 38, Lo: 35, Hi: 40}
	for _, tt := range []struct {
		name      string
		recs      []history.Record
		blessedAt time.Time
		want      bool
		ref       float64
	}{
		{"two low sweeps", mk(ok, ok, ok, ok, low, low), time.Time{}, true, 42},
		{"one low sweep", mk(ok, ok, ok, ok, ok, low), time.Time{}, false, 42},
		{"low but its interval reaches beyond the sweep", mk(ok, ok, ok, ok, open, open), time.Time{}, false, 42},
		{"10% down: within 15%", mk(ok, ok, ok, ok, near, near), time.Time{}, false, 42},
		{"too few sweeps for a reference", mk(ok, ok, low, low), time.Time{}, false, 0},
		{"stays failed: the reference is the first sweeps'", mk(ok, ok, ok, low, low, low, low, low, low, low, low, low), time.Time{}, true, 42},
		{"a bless after the drop: the low knee is the reference", mk(ok, ok, ok, low, low, low, low, low, low), t0.AddDate(0, 0, 3), false, 29},
	} {
		ks := Knees(tt.recs, tt.blessedAt, 0.15)
		if len(ks) != 1 {
			t.Fatalf("%s: %d series, want 1 (a target without a knee has none)", tt.name, len(ks))
		}
		if ks[0].Regressed != tt.want || ks[0].Ref != tt.ref {
			t.Errorf("%s: regressed %v (ref %v of %d), want %v (ref %v)", tt.name, ks[0].Regressed, ks[0].Ref, ks[0].RefN, tt.want, tt.ref)
		}
	}
}
