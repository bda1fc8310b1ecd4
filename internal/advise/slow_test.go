package advise

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/results"
)

func TestSlowLimits(t *testing.T) {
	totals := func(ms ...float64) []results.Sample {
		s := make([]results.Sample, len(ms))
		for i, v := range ms {
			s[i] = results.Sample{Seq: i + 1, TTFT: v / 2, Total: v}
		}
		return s
	}
	many := func(v float64, n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	base := compare.Side{Targets: []results.Target{
		{Name: "a", Prompts: []results.Prompt{
			{ID: "slowish", Samples: totals(many(300, 100)...)},                 // 20 × 300 ms = 6 s
			{ID: "quick", Samples: totals(many(10, 100)...)},                    // 200 ms: the 1 s floor
			{ID: "long", Samples: totals(append(many(100, 98), 4000, 4000)...)}, // 20 × 4 s > 60 s: run.timeout
			{ID: "empty"}, // no samples, no limit
		}},
		{Name: "a", Region: "eu", Prompts: []results.Prompt{{ID: "slowish", Samples: totals(many(150, 10)...)}}},
	}}
	got := SlowLimits(base, 60*time.Second)
	want := map[compare.TargetID]map[string]SlowLimit{
		{Name: "a"}:               {"slowish": {After: 6 * time.Second, P99: 300}, "quick": {After: time.Second, P99: 10}},
		{Name: "a", Region: "eu"}: {"slowish": {After: 3 * time.Second, P99: 150}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SlowLimits (-want +got):\n%s", diff)
	}
	if got := SlowLimits(base, 5*time.Second); got[compare.TargetID{Name: "a"}]["slowish"].After != 0 {
		t.Errorf("a limit above run.timeout was kept: %v", got)
	}
}

func TestSlowed(t *testing.T) {
	for _, tt := range []struct {
		byClass map[string]int
		want    bool
	}{
		{map[string]int{"slow": 5}, true},
		{map[string]int{"slow": 2, "connect": 2}, true},
		{map[string]int{"slow": 1, "connect": 2}, false},
		{map[string]int{"timeout": 5}, false},
		{nil, false},
	} {
		if got := Slowed(tt.byClass); got != tt.want {
			t.Errorf("Slowed(%v) = %v, want %v", tt.byClass, got, tt.want)
		}
	}
}
