package trend

import (
	"flag"
	"fmt"
	"slices"
	"testing"

	"github.com/latgate/latgate/pkg/history"
)

var nightlySeries = flag.Int("nightly-series", 30, "seeded series per scenario in TestNightlyCalibration (CI: 100)")

const nights = 24

// firstAlarm analyses nights 1..k for k = from..n and returns the first k
// whose verdict is Regressed (0 for none), and the report at night n.
func firstAlarm(recs []history.Record, from int, opts Options) (int, Report) {
	spec := specFor(recs[0])
	first := 0
	var last Report
	for k := from; k <= len(recs); k++ {
		rep := Analyze(recs[:k], spec, opts)
		if rep.Verdict == Regressed && first == 0 {
			first = k
		}
		last = rep
	}
	return first, last
}

// placed reports whether rep's headline change is a regression at night
// want ± 1, and how many of the series' regression change points are.
func placed(rep Report, want int) (headline bool, near, all int) {
	for _, s := range rep.Series {
		for _, c := range s.Changes {
			if c.Regression {
				all++
				if n := c.Index + 1; n >= want-1 && n <= want+1 { // nights are 1-based
					near++
				}
			}
		}
	}
	if rep.Headline == nil {
		return false, near, all
	}
	_, c := rep.Headline.Get(rep)
	return c.Regression && c.Index+1 >= want-1 && c.Index+1 <= want+1, near, all
}

// TestNightlyCalibration is the calibration behind the README's "Nightly"
// figures: seeded simulated series of 24 nights (see nightly_test.go), each
// analysed as the nightly job would after every night from the 6th on.
//
//	flat:  no change; the verdict at night 24 must be pass in ≥ 95%
//	step:  +30% from night 15; at night 24 it must fail, with the change
//	       placed at night 15 ± 1
//	drift: +1.5% a night; it must fail by night 24
func TestNightlyCalibration(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("calibration: seconds of CPU (CI runs it without -race: go test -run NightlyCalibration -v ./pkg/trend/ -args -nightly-series 100)")
	}
	n := *nightlySeries
	opts := Options{Seed: 1}
	var flatPass, flatAnyAlarm, stepFail, stepPlaced, driftFail int
	var stepFirst, driftFirst []int
	var seriesNear, seriesAll, flatSeries, flatChanged int
	for id := range n {
		first, rep := firstAlarm(series(flat, id, nights), 6, opts)
		if rep.Verdict != Regressed {
			flatPass++
		}
		if first != 0 {
			flatAnyAlarm++
		}
		for _, s := range rep.Series {
			flatSeries++
			if len(s.Changes) > 0 {
				flatChanged++
			}
		}

		first, rep = firstAlarm(series(step, 1000+id, nights), 6, opts)
		if rep.Verdict == Regressed {
			stepFail++
		}
		ok, near, all := placed(rep, 15)
		if ok {
			stepPlaced++
		}
		seriesNear += near
		seriesAll += all
		if first != 0 {
			stepFirst = append(stepFirst, first)
		}

		first, _ = firstAlarm(series(drift, 2000+id, nights), 6, opts)
		if first != 0 {
			driftFail++
			driftFirst = append(driftFirst, first)
		}
	}
	pct := func(k int) string { return fmt.Sprintf("%d/%d = %.0f%%", k, n, 100*float64(k)/float64(n)) }
	t.Logf("nightly calibration: %d seeded series per scenario × %d nights, each analysed after every night from the 6th (%d analyses); 2 prompts × 4 default checks, %d requests a night, ±%.0f%% night-to-night noise, %d permutations, alpha %g",
		n, nights, 3*n*(nights-5), nightRequests, 100*nightNoise, DefaultPermutations, DefaultAlpha)
	t.Logf("  flat:            pass at night 24 in %s; an alarm on any night 6..24 in %s; a change point of any size in %d of %d series (%.1f%%, the test's false-positive rate per series)", pct(flatPass), pct(flatAnyAlarm), flatChanged, flatSeries, 100*float64(flatChanged)/float64(flatSeries))
	t.Logf("  +30%% step @15:   fail at night 24 in %s; headline change placed at night 15±1 in %s (%d of %d series' regression change points); first alarm at night %s", pct(stepFail), pct(stepPlaced), seriesNear, seriesAll, quartiles(stepFirst))
	t.Logf("  +1.5%%/night:     fail by night 24 in %s; first alarm at night %s", pct(driftFail), quartiles(driftFirst))
	if flatPass*100 < 95*n {
		t.Errorf("flat series passed in %s, want ≥ 95%%", pct(flatPass))
	}
	if stepFail*100 < 95*n || stepPlaced*100 < 90*n {
		t.Errorf("step: failed in %s (want ≥ 95%%), placed at 15±1 in %s (want ≥ 90%%)", pct(stepFail), pct(stepPlaced))
	}
	if driftFail*100 < 90*n {
		t.Errorf("drift: failed by night 24 in %s, want ≥ 90%%", pct(driftFail))
	}
}

// quartiles describes when alarms came: "18 (17–19)" (median, quartiles).
func quartiles(xs []int) string {
	if len(xs) == 0 {
		return "never"
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	q := func(p float64) int { return s[int(p*float64(len(s)-1)+0.5)] }
	return fmt.Sprintf("%d (quartiles %d–%d)", q(0.5), q(0.25), q(0.75))
}
