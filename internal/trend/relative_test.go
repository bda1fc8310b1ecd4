package trend

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/latgate/latgate/internal/history"
)

// sharedNights is a history of n nights × prompts: every prompt's ttft p50
// is 100 ms × the night's shared factor (lognormal σ shared) × its own
// measurement noise (σ own) × scale(prompt, night).
func sharedNights(seed uint64, n, prompts int, shared, own float64, scale func(p, i int) float64) ([]history.Record, Spec) {
	rng := rand.New(rand.NewPCG(seed, 11))
	var spec Spec
	ids := make([]string, prompts)
	for p := range ids {
		ids[p] = fmt.Sprintf("p%d", p)
		spec.Series = append(spec.Series, SeriesSpec{Target: "t", Prompt: ids[p], Metric: "ttft", Stat: mustStat("p50"), Tolerance: 0.15, FloorMS: 1})
	}
	recs := make([]history.Record, n)
	for i := range recs {
		night := math.Exp(shared * rng.NormFloat64())
		recs[i] = history.Record{Schema: history.Schema, At: night0.AddDate(0, 0, i+1), Commit: commitOf(i + 1), Targets: []history.Target{{Name: "t"}}}
		for p, id := range ids {
			v := 100 * night * math.Exp(own*rng.NormFloat64()) * scale(p, i)
			recs[i].Targets[0].Prompts = append(recs[i].Targets[0].Prompts, history.Prompt{ID: id,
				Metrics: map[string]history.Stats{"ttft": history.MakeStats(60, map[string]float64{"p50": v})}})
		}
	}
	return recs, spec
}

// TestRelative (#30): a +30% step on one prompt of five, hidden in 15%
// night-to-night noise shared by all of them, fails that prompt against
// the other prompts within three nights of it, and no other; the same step
// on every prompt is no prompt's relative change; the others getting
// faster while the prompt holds is not tested as the prompt's slowdown.
func TestRelative(t *testing.T) {
	const n, stepAt = 25, 20
	onePrompt := func(p, i int) float64 {
		if p == 0 && i >= stepAt {
			return 1.3
		}
		return 1
	}
	everyPrompt := func(p, i int) float64 {
		if i >= stepAt {
			return 1.3
		}
		return 1
	}
	othersFaster := func(p, i int) float64 {
		if p != 0 && i >= stepAt {
			return 0.6
		}
		return 1
	}
	for seed := uint64(1); seed <= 5; seed++ {
		recs, spec := sharedNights(seed, n, 5, 0.15, 0.01, onePrompt)
		rep := Analyze(recs[:stepAt+3], spec, Options{})
		for i, s := range rep.Series {
			if got, want := s.Verdict == Regressed, i == 0; got != want {
				t.Errorf("seed %d, one prompt +30%%, 3 nights after: %s is %s (%s)", seed, s.Prompt, s.Verdict, s.Why)
			}
		}
		r := rep.Series[0].Relative
		if r == nil || !r.Regression || r.Index != stepAt || r.Others != 4 || !(r.Lo > r.Limit) {
			t.Errorf("seed %d: relative change %+v, want a regression at run %d against 4 others, its interval beyond the limit", seed, r, stepAt)
		}
		if r != nil && !(math.Abs(r.Ratio-1.3) < 0.05) {
			t.Errorf("seed %d: relative change ×%.3f, want about ×1.3 (the shared noise cancelled)", seed, r.Ratio)
		}

		recs, spec = sharedNights(seed, n, 5, 0.15, 0.01, everyPrompt)
		for _, s := range Analyze(recs, spec, Options{}).Series {
			if r := s.Relative; r != nil && r.Regression {
				t.Errorf("seed %d, every prompt +30%%: %s regressed against the others (×%.2f)", seed, s.Prompt, r.Ratio)
			}
		}

		recs, spec = sharedNights(seed, n, 5, 0.01, 0.01, othersFaster)
		if r := Analyze(recs, spec, Options{}).Series[0].Relative; r != nil {
			t.Errorf("seed %d, the others 40%% faster: prompt 0 tested against them (×%.2f); they moved, so its own series decides", seed, r.Ratio)
		}
	}
}

// TestRelativeWhy: the report says what decided it.
func TestRelativeWhy(t *testing.T) {
	recs, spec := sharedNights(3, 23, 3, 0.15, 0.01, func(p, i int) float64 {
		if p == 0 && i >= 20 {
			return 1.4
		}
		return 1
	})
	s := Analyze(recs, spec, Options{}).Series[0]
	if s.Verdict != Regressed || !strings.Contains(s.Why, "against the other prompts") {
		t.Errorf("verdict %s (%s), want regressed against the other prompts", s.Verdict, s.Why)
	}
}
