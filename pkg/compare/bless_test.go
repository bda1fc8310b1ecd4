package compare

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// gapSamples makes n samples of TTFT 100 ms with gaps ITL gaps of 5 ms each.
func gapSamples(n, gaps int) []results.Sample {
	out := ttftSamples(make([]float64, n)...)
	for i := range out {
		out[i].TTFT, out[i].ITL = 100, make([]float64, gaps)
		for k := range out[i].ITL {
			out[i].ITL[k] = 5
		}
	}
	return out
}

// TestUnresolved: the checks a baseline is too thin to decide, by the
// gate's own sample-size rule, itl included (its requests and its gaps).
func TestUnresolved(t *testing.T) {
	tests := []struct {
		name      string
		n, gaps   int
		want      []string
		withLimit bool
	}{
		{"8 requests", 8, 20, []string{
			"t/p: ttft p95 needs 72 requests, has 8: it will be inconclusive",
			"t/p: itl p50 needs 10 requests, has 8: it will be inconclusive",
			"t/p: itl p95 needs 10 requests, has 8: it will be inconclusive",
		}, false},
		{"12 requests of 4 gaps", 12, 4, []string{
			"t/p: ttft p95 needs 72 requests, has 12: it will be inconclusive",
			"t/p: itl p95 needs 72 gaps, has 48: it will be inconclusive",
		}, false},
		{"enough", 80, 20, nil, false},
		{"a limit needs no baseline", 8, 20, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gate := defaultGate()
			if tt.withLimit {
				gate.Checks = []config.Check{{Metric: results.TTFT, Stat: "p95", Max: 1e9, MaxOnly: true}}
			}
			got := Unresolved(side(prompt("p", gapSamples(tt.n, tt.gaps))), gate)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Unresolved (-want +got):\n%s", diff)
			}
		})
	}
}

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
