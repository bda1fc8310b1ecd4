package trend

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/latgate/latgate/internal/history"
)

// ar1 returns n values of AR(1) noise with autocorrelation rho and marginal
// σ sigma, plus trend(i).
func ar1(rng *rand.Rand, n int, rho, sigma float64, trend func(i int) float64) []float64 {
	x := make([]float64, n)
	u := sigma * rng.NormFloat64()
	for i := range x {
		if i > 0 {
			u = rho*u + math.Sqrt(1-rho*rho)*sigma*rng.NormFloat64()
		}
		x[i] = u + trend(i)
	}
	return x
}

// TestEstimateNoise: over many seeded series the estimator recovers σ and
// ρ of AR(1) noise around segment levels — a step (with its change point
// given) and a slow drift (a line) are level, not noise — where the median
// of consecutive differences it replaces read AR(1) noise as far smaller.
func TestEstimateNoise(t *testing.T) {
	flat := func(int) float64 { return 0 }
	tests := []struct {
		name       string
		rho, sigma float64
		trend      func(int) float64
		bounds     []int
	}{
		{"independent", 0, 0.05, flat, []int{0, 40}},
		{"AR(1) 0.5", 0.5, 0.05, flat, []int{0, 40}},
		{"AR(1) 0.7", 0.7, 0.10, flat, []int{0, 40}},
		{"step, cut at it", 0.3, 0.05, func(i int) float64 { return map[bool]float64{true: 0.3}[i >= 20] }, []int{0, 20, 40}},
		{"drift of 1.5% a night", 0, 0.05, func(i int) float64 { return 0.015 * float64(i) }, []int{0, 40}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 4))
			const reps = 400
			var sig, rho, mad float64
			for range reps {
				x := ar1(rng, 40, tt.rho, tt.sigma, tt.trend)
				nz := estimateNoise(x, tt.bounds)
				sig += nz.Sigma / reps
				rho += nz.Rho / reps
				d := make([]float64, len(x)-1)
				for i := range d {
					d[i] = math.Abs(x[i+1] - x[i])
				}
				mad += median(d) / (0.6744897501960817 * math.Sqrt2) / reps
			}
			t.Logf("σ %.4f (true %.4f; median of differences: %.4f), ρ %.3f (true %.1f)", sig, tt.sigma, mad, rho, tt.rho)
			if math.Abs(sig/tt.sigma-1) > 0.12 {
				t.Errorf("mean σ̂ %.4f, want %.4f ± 12%%", sig, tt.sigma)
			}
			if math.Abs(rho-tt.rho) > 0.12 {
				t.Errorf("mean ρ̂ %.3f, want %.1f ± 0.12", rho, tt.rho)
			}
		})
	}
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// TestSplitSearchBothEnds: a change that reverts — a bump — is found, both
// its start and its end: the split search moves the right end too (as
// Apache Otava does). With the right end fixed at the segment's end the
// bump's start is compared against everything after it, the bump and the
// return alike, and its size is diluted.
func TestSplitSearchBothEnds(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := ar1(rng, 40, 0, 0.03, func(i int) float64 { return map[bool]float64{true: 0.25}[i >= 14 && i < 20] })
	cuts := segment(x, DefaultMinSegment, DefaultAlpha, &splitter{})
	var got []int
	for _, c := range cuts {
		got = append(got, c.Index)
	}
	if len(got) != 2 || got[0] != 14 || got[1] != 20 {
		t.Errorf("change points %v, want [14 20]", got)
	}
	// The candidate of the whole series ends at the bump's end.
	tau, kappa, _ := (&splitter{}).best(x, DefaultMinSegment)
	if tau != 14 || kappa != 20 {
		t.Errorf("candidate (τ, κ) = (%d, %d), want (14, 20)", tau, kappa)
	}
}

// TestSplitSignificanceCalibrated: on independent noise without a change,
// a segment shows a change point in about alpha of analyses (the critical
// values come from simulating the search itself).
func TestSplitSignificanceCalibrated(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	const reps = 3000
	found := 0
	sp := &splitter{}
	for range reps {
		x := ar1(rng, 30, 0, 1, func(int) float64 { return 0 })
		if len(segment(x, DefaultMinSegment, DefaultAlpha, sp)) > 0 {
			found++
		}
	}
	rate := float64(found) / reps
	t.Logf("change points in %d of %d flat 30-run series (%.2f%%; alpha %g)", found, reps, 100*rate, DefaultAlpha)
	if rate > 2.5*DefaultAlpha || rate < DefaultAlpha/4 {
		t.Errorf("false change-point rate %.3f, want about %g", rate, DefaultAlpha)
	}
}

// recsOf makes one record per value of ttft p50 (metric "ttft") or, for
// a rate, tokens_per_s p50.
func recsOf(metric string, values []float64) []history.Record {
	out := make([]history.Record, len(values))
	for i, v := range values {
		out[i] = history.Record{Schema: history.Schema, At: night0.AddDate(0, 0, i+1), Commit: commitOf(i + 1),
			Targets: []history.Target{{Name: "t", Prompts: []history.Prompt{{ID: "p",
				Metrics: map[string]history.Stats{metric: history.MakeStats(60, map[string]float64{"p50": v})}}}}}}
	}
	return out
}

// TestRegressionOnItsInterval: a change point is a regression when its
// interval is beyond the tolerance, not its estimate: a +22% step against a
// 20% tolerance, estimated about +22%, is a change, not a failure; +45% is.
func TestRegressionOnItsInterval(t *testing.T) {
	for _, tt := range []struct {
		factor float64
		want   Verdict
	}{{1.22, Changed}, {1.45, Regressed}} {
		values := noisy(11, 24, 0.02, func(i int) float64 { return map[bool]float64{true: tt.factor, false: 1}[i >= 16] })
		spec := Spec{Series: []SeriesSpec{{Target: "t", Prompt: "p", Metric: "ttft", Stat: mustStat("p50"), Tolerance: 0.20, FloorMS: 1}}}
		rep := Analyze(recsOf("ttft", values), spec, Options{})
		s := rep.Series[0]
		if s.Verdict != tt.want || len(s.Changes) != 1 {
			t.Fatalf("×%.2f: %s (%s), %d changes; want %s", tt.factor, s.Verdict, s.Why, len(s.Changes), tt.want)
		}
		c := s.Changes[0]
		if !c.Tested || c.Regression != (c.Lo > c.Limit) || (tt.want == Changed) != (c.Ratio > c.Limit && c.Lo <= c.Limit) {
			t.Errorf("×%.2f: ratio %.3f [%.3f, %.3f] at %.4g, limit %.2f, regression %v", tt.factor, c.Ratio, c.Lo, c.Hi, c.Level, c.Limit, c.Regression)
		}
	}
}

// TestAlarmOncePerChange: re-analysed every night, a regression change
// point is decided on the looks after it with the level spent over them:
// its p-value never rises as nights accrue (an alarm, once raised, stays),
// and a night's noise cannot re-roll a change that did not cross into one.
func TestAlarmOncePerChange(t *testing.T) {
	values := noisy(12, 40, 0.03, func(i int) float64 { return map[bool]float64{true: 1.5, false: 1}[i >= 20] })
	spec := Spec{Series: []SeriesSpec{{Target: "t", Prompt: "p", Metric: "ttft", Stat: mustStat("p50"), Tolerance: 0.20, FloorMS: 1}}}
	recs := recsOf("ttft", values)
	prev, first := 2.0, 0
	for night := 23; night <= 40; night++ {
		s := Analyze(recs[:night], spec, Options{}).Series[0]
		if len(s.Changes) == 0 || s.Changes[len(s.Changes)-1].Index != 20 {
			t.Fatalf("night %d: changes %+v", night, s.Changes)
		}
		c := s.Changes[len(s.Changes)-1]
		if c.P > prev+1e-12 {
			t.Errorf("night %d: p %.3g rose from %.3g", night, c.P, prev)
		}
		prev = c.P
		if s.Verdict == Regressed && first == 0 {
			first = night
		}
		if first != 0 && s.Verdict != Regressed {
			t.Errorf("night %d: %s after the alarm on night %d", night, s.Verdict, first)
		}
	}
	if first != 23 {
		t.Errorf("first alarm on night %d, want 23 (3 runs after the step)", first)
	}
}

// TestFamilyAcrossSeries: 40 unchanged series and one that regressed: the
// regressed one fails, and the family's level shows in its interval.
func TestFamilyAcrossSeries(t *testing.T) {
	var spec Spec
	recs := make([]history.Record, 24)
	for i := range recs {
		recs[i] = history.Record{Schema: history.Schema, At: night0.AddDate(0, 0, i+1), Targets: []history.Target{{Name: "t"}}}
	}
	for p := range 41 {
		id := string(rune('a'+p%26)) + string(rune('a'+p/26))
		factor := 1.0
		if p == 0 {
			factor = 1.6
		}
		values := noisy(uint64(100+p), 24, 0.04, func(i int) float64 { return map[bool]float64{true: factor, false: 1}[i >= 15] })
		for i, v := range values {
			recs[i].Targets[0].Prompts = append(recs[i].Targets[0].Prompts, history.Prompt{ID: id,
				Metrics: map[string]history.Stats{"ttft": history.MakeStats(60, map[string]float64{"p50": v})}})
		}
		spec.Series = append(spec.Series, SeriesSpec{Target: "t", Prompt: id, Metric: "ttft", Stat: mustStat("p50"), Tolerance: 0.2, FloorMS: 1})
	}
	rep := Analyze(recs, spec, Options{})
	for i, s := range rep.Series {
		if (s.Verdict == Regressed) != (i == 0) {
			t.Errorf("series %d: %s (%s)", i, s.Verdict, s.Why)
		}
	}
	if rep.Rejected < 1 || rep.Rejected > 3 || rep.Tests < 41 {
		t.Errorf("%d of %d tests rejected, want the regressed series' (its change, its level since the start, its change against the other prompts)", rep.Rejected, rep.Tests)
	}
	c := rep.Series[0].Changes[0]
	if want := 1 - 2*DefaultFalseAlarm*float64(rep.Rejected)/float64(rep.Tests); math.Abs(c.Level-want) > 1e-12 {
		t.Errorf("interval level %.6f, want the family's %.6f", c.Level, want)
	}
}

// TestRateSeries: tokens_per_s is trended with higher better: a fall beyond
// the tolerance is a regression, a rise a change.
func TestRateSeries(t *testing.T) {
	for _, tt := range []struct {
		factor float64
		want   Verdict
	}{{0.6, Regressed}, {1.6, Changed}} {
		values := noisy(13, 24, 0.02, func(i int) float64 { return map[bool]float64{true: tt.factor, false: 1}[i >= 15] })
		spec := Spec{Series: []SeriesSpec{{Target: "t", Prompt: "p", Metric: "tokens_per_s", Stat: mustStat("p50"), Tolerance: 0.15}}}
		s := Analyze(recsOf("tokens_per_s", values), spec, Options{}).Series[0]
		if s.Verdict != tt.want || len(s.Changes) != 1 {
			t.Fatalf("rate ×%.1f: %s (%s), %d changes", tt.factor, s.Verdict, s.Why, len(s.Changes))
		}
		c := s.Changes[0]
		if math.Abs(c.After/c.Before-tt.factor) > 0.05 || (tt.factor < 1) != (c.Ratio > 1) {
			t.Errorf("rate ×%.1f: before %.1f after %.1f, ratio (worse) %.3f", tt.factor, c.Before, c.After, c.Ratio)
		}
	}
}

// TestZeroValuesSaid: a 0 ms statistic (a token gap below the timing
// resolution) cannot go on the log scale: it is left out and counted.
func TestZeroValuesSaid(t *testing.T) {
	spec := Spec{Series: []SeriesSpec{{Target: "t", Prompt: "p", Metric: "itl", Stat: mustStat("p50"), Tolerance: 0.15}}}
	s := Analyze(recsOf("itl", []float64{0, 4, 0, 4.1, 0}), spec, Options{}).Series[0]
	if s.Zeros != 3 || len(s.Points) != 2 || s.Verdict != Insufficient || !strings.Contains(s.Why, "3 more at 0") {
		t.Errorf("zeros %d, points %d, %s: %s", s.Zeros, len(s.Points), s.Verdict, s.Why)
	}
}

// TestCalibrationRecord: the calibrations' shortcut record holds what
// history.FromResults keeps for the metrics they read.
func TestCalibrationRecord(t *testing.T) {
	f := nightRun(func(int) float64 { return 1.1 }, 3, []string{"a", "b"}, 20)
	want := history.FromResults(f, history.Meta{At: night0, Commit: "c", Command: "check"})
	got := record(f, night0, "c")
	for i, p := range want.Targets[0].Prompts {
		for _, m := range []string{"ttft", "itl"} {
			if !p.Metrics[m].Equal(got.Targets[0].Prompts[i].Metrics[m]) {
				t.Errorf("%s %s: %+v, want %+v", p.ID, m, got.Targets[0].Prompts[i].Metrics[m], p.Metrics[m])
			}
		}
	}
}

// TestLookSchedule: a change is read on a fixed schedule — minSeg runs after
// it, then about √2 times as many each look, never the same count twice (a
// repeated look would spend level on a test already made).
func TestLookSchedule(t *testing.T) {
	tests := []struct {
		minSeg int
		want   []int
	}{
		{3, []int{3, 5, 6, 9, 12, 17, 24, 34, 48}},
		{1, []int{1, 2, 3, 4, 5, 6, 8, 12, 16}},
		{2, []int{2, 3, 4, 6, 8, 12, 16, 23, 32}},
	}
	for _, tt := range tests {
		var got []int
		for look := 1; look <= len(tt.want); look++ {
			got = append(got, lookRuns(tt.minSeg, look))
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("minSeg %d: looks (-want +got):\n%s", tt.minSeg, diff)
		}
		for look := 2; look <= 30; look++ {
			if a, b := lookRuns(tt.minSeg, look-1), lookRuns(tt.minSeg, look); b <= a {
				t.Errorf("minSeg %d: look %d reads %d runs, look %d %d", tt.minSeg, look-1, a, look, b)
			}
		}
	}
}
