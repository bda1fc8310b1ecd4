package baseline

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/latgate/latgate/pkg/results"
)

func TestDiff(t *testing.T) {
	nan := math.NaN()
	primary := func(prompt string) Change { return Change{Target: "primary", Prompt: prompt} }
	metric := func(c Change, m, stat string, old, new float64) Change {
		c.Kind, c.Metric, c.Stat, c.Old, c.New = MetricChanged, m, stat, old, new
		return c
	}
	kind := func(c Change, k ChangeKind, from, to string) Change {
		c.Kind, c.From, c.To = k, from, to
		return c
	}
	tests := []struct {
		name string
		edit func(f *File) // applied to the new baseline
		want []Change
	}{
		{name: "identical", edit: func(*File) {}},
		{
			name: "metrics moved",
			edit: func(f *File) {
				m := &f.Targets[0].Prompts[0].Metrics
				m.TTFT.P95 = 455
				m.ITL.P50 = 3.5
				m.TokensPerS.P50 = 180
				m.TokensPerS.P95 = 1 // not compared
				m.TTFB.P50 = 1       // not compared
				m.TTFT.P99 = 1       // not compared
			},
			want: []Change{
				metric(primary("greeting"), "ttft", "p95", 400+19.1111111, 455),
				metric(primary("greeting"), "itl", "p50", 4+10.1234567, 3.5),
				metric(primary("greeting"), "tokens_per_s", "p50", 210.123456, 180),
			},
		},
		{
			name: "metric gone and metric new",
			edit: func(f *File) {
				f.Targets[0].Prompts[1].Metrics.TPOT = nil
				f.Targets[1].Prompts[0].Metrics.Total = nil
			},
			want: []Change{
				metric(primary("summary"), "tpot", "p50", 4.7+10.1234567, nan),
				metric(primary("summary"), "tpot", "p95", 4.7+19.1111111, nan),
				metric(Change{Target: "fallback", Region: "eu", Prompt: "greeting"}, "total", "p50", 1200+10.1234567, nan),
				metric(Change{Target: "fallback", Region: "eu", Prompt: "greeting"}, "total", "p95", 1200+19.1111111, nan),
			},
		},
		{
			name: "model and base url",
			edit: func(f *File) {
				f.Targets[1].Model = "llama3.1"
				f.Targets[1].BaseURL = "http://127.0.0.1:9090/v1"
			},
			want: []Change{
				kind(Change{Target: "fallback", Region: "eu"}, ModelChanged, "llama3", "llama3.1"),
				kind(Change{Target: "fallback", Region: "eu"}, BaseURLChange, "http://127.0.0.1:8080/v1", "http://127.0.0.1:9090/v1"),
			},
		},
		{
			name: "prompts added, removed and edited",
			edit: func(f *File) {
				p := &f.Targets[0].Prompts
				(*p)[1].Hash = "0000000000000000"
				*p = append([]results.Prompt{fixturePrompt("farewell", "ffff", 400)}, (*p)[1:]...) // drops greeting
			},
			want: []Change{
				kind(primary("farewell"), PromptAdded, "", ""),
				kind(primary("summary"), PromptEdited, "9f8e7d6c5b4a3928", "0000000000000000"),
				kind(primary("greeting"), PromptRemoved, "", ""),
			},
		},
		{
			name: "targets added and removed; region is part of a target",
			edit: func(f *File) {
				f.Targets[1].Region = "us"
				f.Targets = append(f.Targets, fixtureTarget("canary", "", "sim", "sim-small", 400))
			},
			want: []Change{
				kind(Change{Target: "fallback", Region: "us"}, TargetAdded, "", ""),
				kind(Change{Target: "canary"}, TargetAdded, "", ""),
				kind(Change{Target: "fallback", Region: "eu"}, TargetRemoved, "", ""),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, new := fixture(), fixture()
			tt.edit(new)
			got := Diff(old, new)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateNaNs(), cmpopts.EquateApprox(1e-12, 0)); diff != "" {
				t.Errorf("Diff (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(fixture(), old); diff != "" {
				t.Errorf("Diff modified its input (-want +got):\n%s", diff)
			}
		})
	}
}

func TestChangeString(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		c    Change
		want string
	}{
		{Change{Kind: MetricChanged, Target: "primary", Prompt: "greeting", Metric: "ttft", Stat: "p95", Old: 412.1, New: 455},
			"primary/greeting ttft p95: 412.1 ms → 455.0 ms (+10.4%)"},
		{Change{Kind: MetricChanged, Target: "fallback", Region: "eu", Prompt: "summary", Metric: "itl", Stat: "p50", Old: 4.5, New: 0.35},
			"fallback@eu/summary itl p50: 4.50 ms → 0.350 ms (-92.2%)"},
		{Change{Kind: MetricChanged, Target: "t", Prompt: "p", Metric: "tokens_per_s", Stat: "p50", Old: 50, New: 55},
			"t/p tokens_per_s p50: 50.0 tok/s → 55.0 tok/s (+10.0%)"},
		{Change{Kind: MetricChanged, Target: "t", Prompt: "p", Metric: "tpot", Stat: "p95", Old: nan, New: 4.76},
			"t/p tpot p95: none → 4.76 ms"},
		{Change{Kind: MetricChanged, Target: "t", Prompt: "p", Metric: "ttft", Stat: "p50", Old: 0, New: 4},
			"t/p ttft p50: 0.000 ms → 4.00 ms"},
		{Change{Kind: ModelChanged, Target: "t", From: "a", To: "b"}, "t: model a → b"},
		{Change{Kind: BaseURLChange, Target: "t", Region: "us", From: "sim", To: "http://h/v1"}, "t@us: base_url sim → http://h/v1"},
		{Change{Kind: PromptAdded, Target: "t", Prompt: "p"}, "t/p: prompt added"},
		{Change{Kind: PromptRemoved, Target: "t", Prompt: "p"}, "t/p: prompt removed"},
		{Change{Kind: PromptEdited, Target: "t", Prompt: "p", From: "aa", To: "bb"}, "t/p: prompt text changed (hash aa → bb)"},
		{Change{Kind: TargetAdded, Target: "t"}, "t: target added"},
		{Change{Kind: TargetRemoved, Target: "t"}, "t: target removed"},
	}
	for _, tt := range tests {
		if got := tt.c.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

func TestChangeRel(t *testing.T) {
	tests := []struct {
		old, new, want float64
	}{
		{100, 110, 0.1},
		{100, 50, -0.5},
		{0, 5, math.NaN()},
		{math.NaN(), 5, math.NaN()},
		{5, math.NaN(), math.NaN()},
	}
	for _, tt := range tests {
		got := Change{Kind: MetricChanged, Old: tt.old, New: tt.new}.Rel()
		if !cmp.Equal(tt.want, got, cmpopts.EquateNaNs(), cmpopts.EquateApprox(0, 1e-12)) {
			t.Errorf("Rel(%v → %v) = %v, want %v", tt.old, tt.new, got, tt.want)
		}
	}
}
