package report

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/internal/advise"
	"github.com/latgate/latgate/pkg/compare"
)

func TestChangeMessage(t *testing.T) {
	tests := []struct {
		c    compare.Change
		want string
	}{
		{compare.Change{Kind: compare.ChangeSetting, Target: "t", Field: compare.FieldModel, Baseline: "a", Current: "b"},
			"target t: model a → b: compared, labelled"},
		{compare.Change{Kind: compare.ChangeSetting, Field: compare.FieldConcurrency, Baseline: "1", Current: "4"},
			"the run: concurrency 1 → 4: compared, labelled"},
		{compare.Change{Kind: compare.ChangeEdited, Target: "t", Region: "eu", Prompt: "p", Baseline: "1a2b3c4d5e6f", Current: "9f8e7d6c5b4a"},
			`prompt p of target t (region eu): edited since the baseline (hash 1a2b3c4d… → 9f8e7d6c…): compared, labelled "edited"`},
		{compare.Change{Kind: compare.ChangeNew, Target: "t", Prompt: "p"}, "prompt p of target t: new, no baseline: measured and reported, not gated"},
		{compare.Change{Kind: compare.ChangeRemoved, Target: "t"}, "target t: removed: in the baseline, not in this run"},
	}
	for _, tt := range tests {
		if got := ChangeMessage(tt.c); got != tt.want {
			t.Errorf("ChangeMessage = %q\nwant        %q", got, tt.want)
		}
	}
}

func TestImprovementText(t *testing.T) {
	check := func(prompt string, v compare.Verdict, ratio float64) compare.Check {
		return compare.Check{Target: "t", Prompt: prompt, Metric: "ttft", Stat: "p50", Verdict: v, Ratio: ratio}
	}
	limit := check("a", compare.Improved, 0.5)
	limit.Max = 800
	tests := []struct {
		name   string
		checks []compare.Check
		want   string // "" for no suggestion
	}{
		{"most improved", []compare.Check{check("a", compare.Improved, 0.15), check("b", compare.Improved, 0.30), check("c", compare.OK, 0.9), check("d", compare.Improved, 0.2)},
			"3 of 4 checks improved (-85% to -70%) and none regressed"},
		{"half improved", []compare.Check{check("a", compare.Improved, 0.5), check("b", compare.OK, 1)}, "1 of 2 checks improved (-50%)"},
		{"one regressed", []compare.Check{check("a", compare.Improved, 0.15), check("b", compare.Improved, 0.3), check("c", compare.Regressed, 1.5)}, ""},
		{"a minority improved", []compare.Check{check("a", compare.Improved, 0.5), check("b", compare.OK, 1), check("c", compare.Inconclusive, 1)}, ""},
		{"nothing improved", []compare.Check{check("a", compare.OK, 1)}, ""},
		// New prompts and limits are not comparisons with the baseline.
		{"new and limits do not count", []compare.Check{check("a", compare.OK, 1), check("b", compare.Unbaselined, 0), limit}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			im, ok := advise.Rebless(compare.Report{Checks: tt.checks})
			if tt.want == "" {
				if ok {
					t.Errorf("Rebless suggested blessing again: %+v", im)
				}
				return
			}
			if !ok || !strings.HasPrefix(ImprovementText(im), tt.want) {
				t.Errorf("Rebless = %q, %v; want it to start %q", ImprovementText(im), ok, tt.want)
			}
		})
	}
}

func TestSlowLimitText(t *testing.T) {
	if w := SlowLimitText(advise.SlowLimit{After: 6 * time.Second, P99: 300}); w != "20× the baseline's total P99 (300 ms)" {
		t.Errorf("SlowLimitText = %q", w)
	}
}

// TestWithReasonsLabels: a results file's checks carry the words of what
// changed for them ("labels"), which compare leaves to report.
func TestWithReasonsLabels(t *testing.T) {
	rep := WithReasons(changedReport())
	got := map[string][]string{}
	for _, c := range slices.Concat(rep.Checks, rep.Aggregates, rep.New) {
		if c.Target == "primary" && c.Stat == "p50" && c.Metric == "ttft" {
			got[c.Prompt] = c.Labels
		}
	}
	want := map[string][]string{
		"greeting":    {"model gpt-4o-mini → gpt-4.1-mini"},
		"code-review": {"model gpt-4o-mini → gpt-4.1-mini"},
		"summarize":   {"model gpt-4o-mini → gpt-4.1-mini", "edited"},
		"":            {"model gpt-4o-mini → gpt-4.1-mini", "edited: summarize"},
		"faq":         {"new: no baseline"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("labels by prompt (-want +got):\n%s", diff)
	}
}
