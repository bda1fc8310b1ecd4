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
