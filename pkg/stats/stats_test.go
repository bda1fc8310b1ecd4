package stats

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestQuantileType7(t *testing.T) {
	// Reference values from R: quantile(x, p, type = 7) and numpy.quantile's
	// default "linear" method, which are both Hyndman–Fan type 7.
	x := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	tests := []struct {
		name string
		data []float64
		p    float64
		want float64
	}{
		{"median even", x, 0.5, 5.5},
		{"p95 of 1..10", x, 0.95, 9.55},
		{"p99 of 1..10", x, 0.99, 9.91},
		{"p25 of 1..10", x, 0.25, 3.25},
		{"p0 is min", x, 0, 1},
		{"p1 is max", x, 1, 10},
		{"single value", []float64{42}, 0.95, 42},
		{"two values", []float64{10, 20}, 0.95, 19.5},
		{"median odd", []float64{3, 7, 100}, 0.5, 7},
		{"p90 skewed", []float64{1, 1, 1, 1, 100}, 0.9, 60.4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Quantile(tt.data, tt.p)
			if math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("Quantile(%v, %v) = %v, want %v", tt.data, tt.p, got, tt.want)
			}
		})
	}
	if got := Quantile(nil, 0.5); !math.IsNaN(got) {
		t.Errorf("Quantile(nil) = %v, want NaN", got)
	}
}

func TestSummarize(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3}
	got := Summarize(xs)
	want := Summary{N: 5, P50: 3, P95: 4.8, P99: 4.96, Mean: 3, Min: 1, Max: 5}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("Summarize mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Summary{}, Summarize(nil)); diff != "" {
		t.Errorf("Summarize(nil) (-want +got):\n%s", diff)
	}
}

func TestMinSamples(t *testing.T) {
	tests := []struct {
		p, conf float64
		want    int
	}{
		{0.95, 0.95, 59},
		{0.99, 0.95, 299},
		{0.5, 0.95, 5},
		{0.05, 0.95, 59},
	}
	for _, tt := range tests {
		if got := MinSamples(tt.p, tt.conf); got != tt.want {
			t.Errorf("MinSamples(%v, %v) = %d, want %d", tt.p, tt.conf, got, tt.want)
		}
	}
}
