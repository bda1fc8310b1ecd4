package compare

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestChangeAllowed: a progress or warning line states a check's change in
// the scale it was decided on. On the difference scale (a baseline near
// 0 ms, as Ollama's ITL P50 when it sends several tokens in one read) a
// ratio's percentages are meaningless: a 0.08 → 0.65 ms ITL printed as
// "+652% [-110%, -31%]", an interval outside its own estimate and below
// -100%.
func TestChangeAllowed(t *testing.T) {
	tests := []struct {
		name          string
		c             Check
		change, allow string
	}{
		{"ratio", Check{Metric: "ttft", Ratio: 1.12, Lo: 0.97, Hi: 1.31, Threshold: 1.35}, "+12% [-3%, +31%]", "+35%"},
		{"ratio bound at its tolerance", Check{Metric: "ttft", Ratio: 1.3, Lo: 1.152, Hi: 1.4, Threshold: 1.15}, "+30% [+15.2%, +40%]", "+15%"},
		{"improved", Check{Metric: "ttft", Ratio: 0.5, Lo: 0.4, Hi: 0.6, Threshold: 1.25, Verdict: Improved}, "-50% [-60%, -40%]", "-20%"},
		{"difference", Check{Metric: "itl", Scale: ScaleDifference, Baseline: 0.08, Current: 0.65, Ratio: 8.1, Lo: 0.06, Hi: 0.69, Margin: 0.25}, "+0.57 ms [+0.06, +0.69 ms]", "±0.25 ms"},
		{"difference, faster", Check{Metric: "itl", Scale: ScaleDifference, Baseline: 0.66, Current: 0, Lo: -0.73, Hi: -0.55, Margin: 0.25}, "-0.66 ms [-0.73, -0.55 ms]", "±0.25 ms"},
		{"limit", Check{Metric: "ttft", Max: 800, Current: 812, Lo: 790, Hi: 840}, "812 ms [790, 840 ms]", "max 800 ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := []string{tt.c.Change(), tt.c.Allowed()}
			if diff := cmp.Diff([]string{tt.change, tt.allow}, got); diff != "" {
				t.Errorf("Change, Allowed (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDriftSummaryDifference: a drift found on the difference scale is
// reported in milliseconds, not as an impossible percentage.
func TestDriftSummaryDifference(t *testing.T) {
	c := Check{Target: "local", Prompt: "summarize", Metric: "itl", Stat: "p50", Scale: ScaleDifference,
		Baseline: 0.66, Current: 0, Lo: -0.73, Hi: -0.55, Margin: 0.25}
	got := DriftSummary([]Check{c})
	want := "local/summarize itl p50 -0.66 ms [-0.73, -0.55 ms] (0.66 ms in the first half → 0.00 ms in the second)"
	if got != want {
		t.Errorf("DriftSummary = %q, want %q", got, want)
	}
	if strings.Contains(got, "%") {
		t.Errorf("a difference-scale drift printed as a percentage: %s", got)
	}
}
