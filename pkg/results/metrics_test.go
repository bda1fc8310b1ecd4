package results

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestValues(t *testing.T) {
	samples := []Sample{
		{TTFT: 100, TTFCT: 150, HasContent: true, ITL: []float64{5, 6}, OutputTokens: 3, TPOT: 5.5, TokensPerS: 181.8, Total: 200},
		{TTFT: 120, ITL: []float64{7}, OutputTokens: 2, TPOT: 7, TokensPerS: 142.9, Total: 210}, // no content token
		{TTFT: 90, TTFCT: 90, HasContent: true, OutputTokens: 1, Total: 95},                     // one token: no tpot
	}
	tests := []struct {
		metric string
		want   []float64
	}{
		{TTFT, []float64{100, 120, 90}},
		{TTFCT, []float64{150, 90}},
		{ITL, []float64{5, 6, 7}},
		{TPOT, []float64{5.5, 7}},
		{TokensPerS, []float64{181.8, 142.9}},
		{Total, []float64{200, 210, 95}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, Values(samples, tt.metric)); diff != "" {
			t.Errorf("Values(%s) (-want +got):\n%s", tt.metric, diff)
		}
	}
}

func TestMetricsOf(t *testing.T) {
	samples := []Sample{{TTFT: 10.0004}, {TTFT: 20}, {TTFT: 30}}
	m := MetricsOf(samples)
	want := &Summary{N: 3, P50: 20, P95: 29, P99: 29.8, Mean: 20, Min: 10, Max: 30}
	if diff := cmp.Diff(want, m.TTFT); diff != "" {
		t.Errorf("ttft summary (-want +got):\n%s", diff) // 10.0004 rounds to 10.000 µs-precision
	}
	if m.ITL != nil || m.TTFCT != nil || m.TokensPerS != nil {
		t.Errorf("metrics with no values must be nil: %+v", m)
	}
	if m.Get(TTFT) != m.TTFT || m.Get(TokensPerS) != nil || m.Get("nosuch") != nil {
		t.Error("Get does not return the metric's summary")
	}
}
