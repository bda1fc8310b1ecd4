package results

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestAppendRound(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	mk := func(seq int, ttft float64) Sample {
		return Sample{Seq: seq, AtMS: float64(seq), TTFT: ttft, TTFB: ttft, Total: ttft}
	}
	f := &File{StartedAt: t0, FinishedAt: t0.Add(time.Second), Targets: []Target{{
		Name: "t", Requests: 3, Errors: 1, ByClass: map[string]int{"http_500": 1},
		Prompts: []Prompt{
			{ID: "a", Requests: 2, Samples: []Sample{mk(1, 10), mk(3, 12)}},
			{ID: "b", Requests: 1, Errors: 1, ByClass: map[string]int{"http_500": 1}, Failures: []Failure{{Seq: 2, Class: "http_500"}}},
		},
	}}}
	round := &File{StartedAt: t0.Add(2 * time.Second), FinishedAt: t0.Add(3 * time.Second), Targets: []Target{
		{Name: "t", Requests: 2, Errors: 1, ByClass: map[string]int{"cut": 1}, ReturnedModels: []string{"m"}, Prompts: []Prompt{
			{ID: "b", Requests: 2, Errors: 1, ByClass: map[string]int{"cut": 1}, Samples: []Sample{mk(1, 20)}, Failures: []Failure{{Seq: 2, AtMS: 2, Class: "cut"}}},
		}},
		{Name: "other", Requests: 5},
	}}
	AppendRound(f, round)
	got := f.Targets[0]
	if got.Requests != 5 || got.Errors != 2 || got.ErrorRate != 0.4 {
		t.Errorf("target counts = %d requests, %d errors, rate %v; want 5, 2, 0.4", got.Requests, got.Errors, got.ErrorRate)
	}
	if diff := cmp.Diff(map[string]int{"http_500": 1, "cut": 1}, got.ByClass); diff != "" {
		t.Errorf("by class (-want +got):\n%s", diff)
	}
	b := got.Prompts[1]
	wantSamples := []Sample{{Seq: 4, AtMS: 2001, TTFT: 20, TTFB: 20, Total: 20}}
	if diff := cmp.Diff(wantSamples, b.Samples); diff != "" {
		t.Errorf("appended samples (-want +got):\n%s", diff)
	}
	if b.Requests != 3 || b.Errors != 2 || len(b.Failures) != 2 || b.Failures[1].Seq != 5 || b.Failures[1].AtMS != 2002 {
		t.Errorf("prompt b = %+v", b)
	}
	if b.Metrics.TTFT == nil || b.Metrics.TTFT.N != 1 || got.Overall.Metrics.TTFT.N != 3 {
		t.Errorf("summaries not recomputed: b %+v overall %+v", b.Metrics.TTFT, got.Overall.Metrics.TTFT)
	}
	if len(f.Targets) != 1 || !f.FinishedAt.Equal(t0.Add(3*time.Second)) || got.ReturnedModels[0] != "m" {
		t.Errorf("file = %d targets, finished %v, models %v", len(f.Targets), f.FinishedAt, got.ReturnedModels)
	}
	if len(got.Prompts[0].Samples) != 2 {
		t.Errorf("prompt a changed: %+v", got.Prompts[0])
	}
}
