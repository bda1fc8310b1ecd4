package compare

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// TestOverBudget: a target is held to its own config target's
// max_error_rate, found by name and region; a config target without a
// region stands for every region of that name.
func TestOverBudget(t *testing.T) {
	target := func(name, region string, rate float64) results.Target {
		return results.Target{Name: name, Region: region, Requests: 100, ErrorRate: rate}
	}
	s := Side{Targets: []results.Target{target("a", "eu", 0.08), target("a", "us", 0.02), target("b", "", 0.5)}}
	tests := []struct {
		name    string
		targets []config.Target
		want    []string
	}{
		{"one config target for every region", []config.Target{{Name: "a", MaxErrorRate: 0.05}}, []string{
			`target "a@eu": error rate 8.0% is over max_error_rate 5.0%`,
		}},
		{"each region its own", []config.Target{{Name: "a", Region: "eu", MaxErrorRate: 0.1}, {Name: "b", MaxErrorRate: 0.4}}, []string{
			`target "b": error rate 50.0% is over max_error_rate 40.0%`,
		}},
		{"by region, not by name", []config.Target{{Name: "a", Region: "us", MaxErrorRate: 0.01}}, []string{
			`target "a@us": error rate 2.0% is over max_error_rate 1.0%`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, OverBudget(s, tt.targets)); diff != "" {
				t.Errorf("OverBudget (-want +got):\n%s", diff)
			}
		})
	}
}
