package trend

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/internal/history"
)

// recs makes one record per value: target t, prompt p, ttft p50 = value.
func recs(values ...float64) []history.Record {
	out := make([]history.Record, len(values))
	for i, v := range values {
		out[i] = history.Record{
			Schema: history.Schema, At: night0.AddDate(0, 0, i), Commit: commitOf(i + 1),
			Targets: []history.Target{{Name: "t", Prompts: []history.Prompt{{ID: "p", Hash: "h1",
				Metrics: map[string]history.Stats{"ttft": history.MakeStats(60, map[string]float64{"p50": v, "p95": v * 1.5})}}}}},
		}
	}
	return out
}

// noisy returns n values around level·scale(i) with lognormal noise σ.
func noisy(seed uint64, n int, sigma float64, scale func(i int) float64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([]float64, n)
	for i := range out {
		out[i] = 100 * scale(i) * math.Exp(sigma*rng.NormFloat64())
	}
	return out
}

func ttftSpec(baseline float64) SeriesSpec {
	return SeriesSpec{Target: "t", Prompt: "p", PromptHash: "h1", Metric: "ttft", Stat: mustStat("p50"), Tolerance: 0.15, FloorMS: 5, Baseline: baseline}
}

func TestAnalyze(t *testing.T) {
	stepAt := func(k int, f float64) func(int) float64 {
		return func(i int) float64 { return map[bool]float64{true: f, false: 1}[i >= k] }
	}
	one := func(int) float64 { return 1 }
	tests := []struct {
		name      string
		values    []float64
		blessedAt time.Time
		baseline  float64
		want      Verdict
		changes   []int // indices of the change points
	}{
		{"flat", noisy(1, 20, 0.03, one), time.Time{}, 100, OK, nil},
		{"step up", noisy(2, 20, 0.03, stepAt(12, 1.4)), time.Time{}, 100, Regressed, []int{12}},
		{"step up, blessed after", noisy(2, 20, 0.03, stepAt(12, 1.4)), night0.AddDate(0, 0, 15), 140, Changed, []int{12}},
		{"step down", noisy(3, 20, 0.03, stepAt(10, 0.6)), time.Time{}, 100, Changed, []int{10}},
		{"small step under the tolerance", noisy(4, 30, 0.01, stepAt(15, 1.08)), time.Time{}, 100, Changed, []int{15}},
		{"drift from an old baseline", noisy(5, 8, 0.02, one), time.Time{}, 70, Regressed, nil},
		{"too few runs", []float64{100, 101}, time.Time{}, 100, Insufficient, nil},
		{"constant", []float64{100, 100, 100, 100, 100, 100, 100}, time.Time{}, 100, OK, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := Analyze(recs(tt.values...), Spec{Series: []SeriesSpec{ttftSpec(tt.baseline)}, BlessedAt: tt.blessedAt}, Options{})
			s := rep.Series[0]
			if s.Verdict != tt.want || rep.Verdict != tt.want {
				t.Errorf("verdict %s (report %s, %s), want %s", s.Verdict, rep.Verdict, s.Why, tt.want)
			}
			var got []int
			for _, c := range s.Changes {
				got = append(got, c.Index)
			}
			if diff := cmp.Diff(tt.changes, got); diff != "" {
				t.Errorf("change points (-want +got):\n%s", diff)
			}
		})
	}
}

func TestChangeDetails(t *testing.T) {
	values := noisy(2, 20, 0.03, func(i int) float64 { return map[bool]float64{true: 1.4, false: 1}[i >= 12] })
	rep := Analyze(recs(values...), Spec{Series: []SeriesSpec{ttftSpec(100)}}, Options{})
	c := rep.Series[0].Changes[0]
	if c.Commit != commitOf(13) || !c.At.Equal(night0.AddDate(0, 0, 12)) {
		t.Errorf("change at %v commit %s", c.At, c.Commit)
	}
	if !(c.Lo < 1.4 && 1.4 < c.Hi && c.Lo < c.Ratio && c.Ratio < c.Hi) {
		t.Errorf("ratio %.3f [%.3f, %.3f] should hold 1.4", c.Ratio, c.Lo, c.Hi)
	}
	if !c.Regression || c.Blessed || c.P > DefaultAlpha {
		t.Errorf("%+v", c)
	}
	if rep.Headline == nil {
		t.Fatal("no headline")
	}
	// The same input and seed give the same report.
	again := Analyze(recs(values...), Spec{Series: []SeriesSpec{ttftSpec(100)}}, Options{})
	if diff := cmp.Diff(rep, again, cmp.Comparer(func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) })); diff != "" {
		t.Errorf("not deterministic (-first +second):\n%s", diff)
	}
}

func TestEditedPromptStartsNewSeries(t *testing.T) {
	rs := recs(noisy(1, 10, 0.02, func(int) float64 { return 1 })...)
	for i := range 6 {
		rs[i].Targets[0].Prompts[0].Hash = "old"
	}
	rep := Analyze(rs, Spec{Series: []SeriesSpec{ttftSpec(100)}}, Options{})
	if n := len(rep.Series[0].Points); n != 4 {
		t.Errorf("%d points, want the 4 runs of the current prompt text", n)
	}
}

func TestLimit(t *testing.T) {
	s := SeriesSpec{Tolerance: 0.15, FloorMS: 20}
	if got := s.Limit(100); math.Abs(got-1.2) > 1e-12 {
		t.Errorf("floor 20 ms on 100 ms: %v, want 1.2", got)
	}
	if got := s.Limit(1000); math.Abs(got-1.15) > 1e-12 {
		t.Errorf("tolerance on 1000 ms: %v, want 1.15", got)
	}
}

func commitOf(night int) string { return fmt.Sprintf("c%05d", night) }
