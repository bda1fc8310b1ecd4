package trend

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latgate/latgate/pkg/history"
)

// TestTuneCalibration learns tolerances from 30 simulated nights of an
// unchanged endpoint (the calibration's model: ±5% night-to-night noise, the
// example config's series), then draws fresh (baseline night, current night)
// pairs from the same endpoint and counts how often the current night's
// statistic lands beyond the proposed tolerance: that is the false-alarm rate
// the proposal claims (1% per check and run), before the gate's interval
// makes alarms rarer still. It prints the rate and the runs it took.
func TestTuneCalibration(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("calibration: seconds of CPU")
	}
	recs := series(flat, 7, 30)
	rep := Tune(recs, specFor(recs[0]), TuneOptions{})
	if len(rep.Proposals) != 8 || len(rep.Skipped) != 0 {
		t.Fatalf("%d proposals, %d skipped; want 8 and 0", len(rep.Proposals), len(rep.Skipped))
	}
	const pairs = 300
	rng := rand.New(rand.NewPCG(77, 1))
	night := func(k int) map[string]float64 {
		f := nightRun(math.Exp(nightNoise*rng.NormFloat64()), uint64(1<<30+k))
		out := map[string]float64{}
		for _, p := range f.Targets[0].Prompts {
			for _, c := range exampleChecks {
				st, _ := history.Summarize(p.Samples, c.metric)
				out[p.ID+" "+c.metric+" "+c.stat] = get(st, c.stat)
			}
		}
		return out
	}
	over, total := 0, 0
	for i := range pairs {
		base, cur := night(2*i), night(2*i+1)
		for _, p := range rep.Proposals {
			key := p.Prompt + " " + p.Metric + " " + p.Stat.String()
			lim := SeriesSpec{Tolerance: p.Tolerance, FloorMS: p.FloorMS}.Limit(base[key])
			total++
			if cur[key]/base[key] > lim {
				over++
			}
		}
	}
	rate := float64(over) / float64(total)
	t.Logf("tune calibration: tolerances learnt from 30 simulated nights; %d fresh (baseline, current) night pairs × %d series = %d comparisons: %d beyond the proposed tolerance (%.2f%%; proposed for 1%%)",
		pairs, len(rep.Proposals), total, over, 100*rate)
	for _, p := range rep.Proposals {
		t.Logf("  %s %s %s: σ %.1f%%, level %.1f ms → tolerance %.0f%%, floor %g ms (now %.1f%% false alarms per run)",
			p.Prompt, p.Metric, p.Stat, 100*p.Noise, p.Level, 100*p.Tolerance, p.FloorMS, 100*p.NowRate)
	}
	if rate > 0.04 || rate < 0.001 {
		t.Errorf("false-alarm rate %.2f%% of the proposal, want about 1%% (0.1%%–4%%)", 100*rate)
	}
}

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
