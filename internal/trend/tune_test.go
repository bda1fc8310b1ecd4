package trend

import (
	"math"
	"testing"
)

func TestNiceUp(t *testing.T) {
	for _, tt := range []struct{ in, want float64 }{{1.25, 1.3}, {23.1, 24}, {0.042, 0.042}, {120, 120}, {0, 0}} {
		if got := niceUp(tt.in); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("niceUp(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestTuneConstantSeries(t *testing.T) {
	values := make([]float64, 12)
	for i := range values {
		values[i] = 100
	}
	rep := Tune(recs(values...), Spec{Series: []SeriesSpec{ttftSpec(100)}}, TuneOptions{})
	if len(rep.Proposals) != 1 {
		t.Fatalf("%d proposals", len(rep.Proposals))
	}
	p := rep.Proposals[0]
	if p.Tolerance != MinTolerance || p.FloorMS != 1 || p.Rate != 0 {
		t.Errorf("a series that never moved: tolerance %v floor %v rate %v; want %v, 1 ms, 0", p.Tolerance, p.FloorMS, p.Rate, MinTolerance)
	}
	if few := Tune(recs(values[:5]...), Spec{Series: []SeriesSpec{ttftSpec(100)}}, TuneOptions{}); len(few.Skipped) != 1 {
		t.Errorf("5 runs: not skipped: %+v", few)
	}
}

// TestTuneRefusesAboveMaxTolerance (#30): a series too noisy for its few
// runs gets no proposal above +100% (the rehearsal history once proposed
// 813%): it keeps its configured tolerance and says how many runs would
// support one; a steadier series of as many runs is proposed as before.
func TestTuneRefusesAboveMaxTolerance(t *testing.T) {
	for _, tt := range []struct {
		name    string
		sigma   float64
		runs    int
		refused bool
	}{
		{"steady", 0.05, 14, false},
		{"noisy, few runs", 0.45, 14, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rep := Tune(recs(noisy(7, tt.runs, tt.sigma, func(int) float64 { return 1 })...), Spec{Series: []SeriesSpec{ttftSpec(100)}}, TuneOptions{})
			if len(rep.Proposals) != 1 {
				t.Fatalf("%d proposals, %d skipped", len(rep.Proposals), len(rep.Skipped))
			}
			p := rep.Proposals[0]
			if p.Refused != tt.refused {
				t.Fatalf("refused %v (tolerance %v, σ %v ≤ %v), want %v", p.Refused, p.Tolerance, p.Noise.Sigma, p.Upper, tt.refused)
			}
			if p.Tolerance > MaxTolerance {
				t.Errorf("proposed %v, above MaxTolerance", p.Tolerance)
			}
			if p.Refused && (p.Tolerance != 0.15 || p.FloorMS != 5 || p.NeedRuns != 0 && p.NeedRuns <= tt.runs) {
				t.Errorf("refused: tolerance %v floor %v need %d; want the configured 15%% and 5 ms, and more runs than %d (or 0: none would)", p.Tolerance, p.FloorMS, p.NeedRuns, tt.runs)
			}
		})
	}
}
