package trend

import (
	"slices"
	"testing"
	"time"
)

// standingFixture: 15 steady nights, a step of +45% held tight for 4
// nights (decided a regression), then nights that scatter widely around
// +25%: tonight's analysis alone no longer decides the change.
func standingFixture() ([]float64, Spec) {
	values := noisy(21, 15, 0.02, func(int) float64 { return 1 })
	values = append(values, noisy(22, 4, 0.02, func(int) float64 { return 1.45 })...)
	values = append(values, 100, 150, 100, 150, 100, 150, 100, 150)
	spec := Spec{Series: []SeriesSpec{{Target: "t", Prompt: "p", Metric: "ttft", Stat: mustStat("p50"), Tolerance: 0.20, FloorMS: 1}}}
	return values, spec
}

// TestAlarmStands: a regression raised on an earlier night stays raised on
// later nights while its change point is there, even when the night's own
// test, with the wider noise of the nights since, would call it a change.
func TestAlarmStands(t *testing.T) {
	values, spec := standingFixture()
	recs := recsOf("ttft", values)
	opts := Options{}.withDefaults()
	raised := 0
	for night := 2 * opts.MinSegment; night <= len(recs); night++ {
		if analyzeNight(recs[:night], spec, opts).Verdict == Regressed {
			raised = night
		}
	}
	tonight := analyzeNight(recs, spec, opts)
	if raised == 0 || tonight.Verdict == Regressed {
		t.Fatalf("fixture: the newest night that alone regressed is %d, tonight alone %s (%s): want an alarm raised and then undecided", raised, tonight.Verdict, tonight.Series[0].Why)
	}
	rep := Analyze(recs, spec, Options{})
	s := rep.Series[0]
	if rep.Verdict != Regressed || s.Verdict != Regressed || rep.Standing != 1 {
		t.Fatalf("Analyze: %s, series %s (%s), standing %d; want the alarm of night %d to stand", rep.Verdict, s.Verdict, s.Why, rep.Standing, raised)
	}
	c := s.Changes[len(s.Changes)-1]
	if c.Raised == nil || c.Raised.Runs != raised || c.Regression || !c.Fails() || !(c.Raised.Lo > c.Limit) {
		t.Errorf("change %+v raised %+v: want raised at %d runs, with that night's interval beyond the limit %.2f", c, c.Raised, raised, c.Limit)
	}
	if rep.Headline == nil || rep.Headline.Series != 0 {
		t.Errorf("headline %+v: want the standing change", rep.Headline)
	}

	// A bless after the change takes it into the baseline: nothing stands.
	blessed := spec
	blessed.BlessedAt = recs[len(recs)-1].At.Add(time.Hour)
	if got := Analyze(recs, blessed, Options{}); got.Verdict == Regressed || got.Standing != 0 {
		t.Errorf("blessed after the change: %s, standing %d; want no alarm", got.Verdict, got.Standing)
	}

	// The change reverts: the newest change point is a speedup, and the
	// alarm ends with it.
	back := append(slices.Clone(values), noisy(23, 8, 0.02, func(int) float64 { return 1 })...)
	if got := Analyze(recsOf("ttft", back), spec, Options{}); got.Verdict == Regressed {
		t.Errorf("reverted: %s (%s); want the alarm gone with the change", got.Verdict, got.Series[0].Why)
	}
}

// TestStandingKeepsFirstAlarms: carrying alarms forward changes no night
// on which a history first fails — the nightly calibration's families
// (fails on some night, first alarm after a change) — so the calibration,
// which analyses night by night without the replay, holds for Analyze.
func TestStandingKeepsFirstAlarms(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("re-analyses seeded 60-night histories every night with the replay")
	}
	opts := Options{}.withDefaults()
	scenarios := []scenario{stepScenario(30, 1.3, noiseModel{Sigma: 0.05}), flatScenario(noiseModel{Sigma: 0.15, Rho: 0.7}),
		onePromptStep(30, 1.3, noiseModel{Sigma: 0.10})} // an alarm against the other prompts
	for si, sc := range scenarios {
		// Two histories of each that fail on some night (a false alarm, in
		// the flat one): those are where the replay could change anything.
		for k, id := 0, 50000+1000*si; k < 2 && id < 50000+1000*si+40; id++ {
			h := simulate(sc, id, calNights, calPrompts)
			plain, _, _ := alarms(h, opts)
			if len(plain) == 0 {
				continue
			}
			k++
			var carried []int
			for night := calFrom; night <= len(h.records); night++ {
				if Analyze(h.records[:night], h.spec, Options{}).Verdict == Regressed {
					carried = append(carried, night)
				}
			}
			for _, n := range plain {
				if !slices.Contains(carried, n) {
					t.Errorf("%s #%d: night %d fails alone but not with the replay", sc.name, k, n)
				}
			}
			if len(plain) > 0 != (len(carried) > 0) || len(plain) > 0 && plain[0] != carried[0] {
				t.Errorf("%s #%d: first failing night %v alone, %v with the replay", sc.name, k, plain, carried)
			}
			t.Logf("%s, history %d: failing nights alone %v, with standing alarms %v", sc.name, id, plain, carried)
		}
	}
}
