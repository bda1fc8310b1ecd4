package compare

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

func TestPair(t *testing.T) {
	s := ttftSamples(grid(30, 400, 0.3, 1)...)
	mk := func() Side { return side(prompt("a", s), prompt("b", s)) }
	tests := []struct {
		name       string
		change     func(cur *Side)
		wantPairs  int
		wantLabels []string // changeKey of each change, in order
	}{
		{"identical", func(*Side) {}, 2, nil},
		{"model and endpoint", func(c *Side) {
			c.Targets[0].Model = "m2"
			c.Targets[0].BaseURL = "https://other.example.com/v1/"
		}, 2, []string{"model m → m2", "base_url 127.0.0.1:8080/v1 → other.example.com/v1"}},
		{"request parameters and concurrency", func(c *Side) {
			c.Run.Concurrency = 4
			c.Targets[0].Params.MaxTokens = 128
			c.Targets[0].Params.ExtraHash = "x"
		}, 2, []string{"concurrency 1 → 4", "max_tokens 64 → 128", "extra_hash (none) → x"}},
		{"edited, removed and new prompts", func(c *Side) {
			c.Targets[0].Prompts = []results.Prompt{{ID: "a", Hash: "other"}, {ID: "c", Hash: "h-c"}}
		}, 1, []string{"edited", "removed", "new"}},
		{"nothing in common", func(c *Side) { c.Targets[0].Name = "u" }, 0, []string{"removed", "new"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cur := mk()
			tt.change(&cur)
			p := Pair(mk(), cur)
			got := changeKeys(p.Changes)
			if diff := cmp.Diff(tt.wantLabels, got); diff != "" {
				t.Errorf("labels (-want +got):\n%s", diff)
			}
			if p.Pairs != tt.wantPairs || p.Comparable() != (tt.wantPairs > 0) {
				t.Errorf("Pairs = %d, Comparable = %v; want %d", p.Pairs, p.Comparable(), tt.wantPairs)
			}
		})
	}
}

// TestCompareLabelsChanges: a changed run is compared, not refused; every
// check carries what changed, and a new prompt is measured but not gated.
func TestCompareLabelsChanges(t *testing.T) {
	base := side(prompt("a", ttftSamples(grid(60, 400, 0.3, 1)...)), prompt("b", ttftSamples(grid(60, 400, 0.3, 1)...)),
		prompt("gone", ttftSamples(grid(60, 400, 0.3, 1)...)))
	cur := side(prompt("a", ttftSamples(grid(60, 400, 0.3, 2)...)), prompt("b", ttftSamples(grid(60, 400, 0.3, 2)...)),
		prompt("fresh", ttftSamples(grid(60, 900, 0.3, 1)...)))
	cur.Targets[0].Model = "m-slow"
	cur.Targets[0].Prompts[1].Hash = "edited"
	gate := gateWith(config.Check{Metric: results.TTFT, Stat: "p50", Tolerance: config.Tolerance{Rel: 0.15}})
	gate.Aggregate = true
	r := Compare(base, cur, gate)

	if r.Verdict != Regressed {
		t.Fatalf("verdict %s, want regressed: a 2× slower model is gated, not refused", r.Verdict)
	}
	got := map[string][]string{}
	for _, c := range append(r.Checks, r.Aggregates...) {
		got[c.Prompt] = changeKeys(c.Changed)
	}
	want := map[string][]string{
		"a": {"model m → m-slow"},
		"b": {"model m → m-slow", "edited"},
		"":  {"model m → m-slow", "edited: b"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("labels by prompt (-want +got):\n%s", diff)
	}
	if len(r.New) != 1 || r.New[0].Prompt != "fresh" || r.New[0].Verdict != Unbaselined || r.New[0].NCur != 60 || r.New[0].NBase != 0 {
		t.Fatalf("New = %+v, want one unbaselined check of prompt fresh from 60 requests", r.New)
	}
	if c := r.New[0].Current; c < 800 || c > 1000 {
		t.Errorf("new prompt's ttft p50 = %v ms, want its measured value near 900", c)
	}
	var kinds []ChangeKind
	for _, c := range r.Changes {
		kinds = append(kinds, c.Kind)
	}
	if diff := cmp.Diff([]ChangeKind{ChangeSetting, ChangeEdited, ChangeRemoved, ChangeNew}, kinds); diff != "" {
		t.Errorf("change kinds (-want +got):\n%s", diff)
	}
}

// changeKeys names each change by its fields, for comparing what a check
// was found to carry (internal/report words them).
func changeKeys(cs []Change) []string {
	var out []string
	for _, c := range cs {
		switch {
		case c.Kind == ChangeSetting:
			out = append(out, c.Field+" "+c.Baseline+" → "+c.Current)
		case len(c.Prompts) > 0:
			out = append(out, string(c.Kind)+": "+strings.Join(c.Prompts, ", "))
		default:
			out = append(out, string(c.Kind))
		}
	}
	return out
}
