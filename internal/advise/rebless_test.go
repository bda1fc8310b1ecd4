package advise

import (
	"testing"

	"github.com/latgate/latgate/pkg/compare"
)

// TestRebless: blessing again is suggested when at least half the checks
// improved and none regressed; new prompts and limits do not count (the
// words are internal/report's TestImprovementText).
func TestRebless(t *testing.T) {
	check := func(prompt string, v compare.Verdict, ratio float64) compare.Check {
		return compare.Check{Target: "t", Prompt: prompt, Metric: "ttft", Stat: "p50", Verdict: v, Ratio: ratio}
	}
	limit := check("a", compare.Improved, 0.5)
	limit.Max = 800
	tests := []struct {
		name     string
		checks   []compare.Check
		ok       bool
		improved int
		of       int
	}{
		{"most improved", []compare.Check{check("a", compare.Improved, 0.15), check("b", compare.Improved, 0.30), check("c", compare.OK, 0.9), check("d", compare.Improved, 0.2)}, true, 3, 4},
		{"half improved", []compare.Check{check("a", compare.Improved, 0.5), check("b", compare.OK, 1)}, true, 1, 2},
		{"one regressed", []compare.Check{check("a", compare.Improved, 0.15), check("b", compare.Improved, 0.3), check("c", compare.Regressed, 1.5)}, false, 0, 0},
		{"a minority improved", []compare.Check{check("a", compare.Improved, 0.5), check("b", compare.OK, 1), check("c", compare.Inconclusive, 1)}, false, 0, 0},
		{"nothing improved", []compare.Check{check("a", compare.OK, 1)}, false, 0, 0},
		{"new and limits do not count", []compare.Check{check("a", compare.OK, 1), check("b", compare.Unbaselined, 0), limit}, false, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			im, ok := Rebless(compare.Report{Checks: tt.checks})
			if ok != tt.ok || ok && (im.Improved != tt.improved || im.Checks != tt.of || len(im.Changes) != tt.improved) {
				t.Errorf("Rebless = %+v, %v; want %v, %d of %d improved", im, ok, tt.ok, tt.improved, tt.of)
			}
		})
	}
}
