package numfmt

import (
	"math"
	"testing"
)

func TestPctBeside(t *testing.T) {
	tests := []struct {
		r, ref float64
		want   string
	}{
		{1.254, 1.25, "+25.4%"}, // would print as the tolerance itself
		{1.246, 1.25, "+24.6%"},
		{1.25, 1.25, "+25%"},      // equal: no decimals needed
		{1.38, 1.25, "+38%"},      // clearly apart
		{0.9996, 1.0001, "+0.0%"}, // no negative zero
	}
	for _, tt := range tests {
		if got := PctBeside(tt.r, tt.ref); got != tt.want {
			t.Errorf("PctBeside(%v, %v) = %q, want %q", tt.r, tt.ref, got, tt.want)
		}
	}
}

func TestPct(t *testing.T) {
	for r, want := range map[float64]string{1.38: "+38%", 0.75: "-25%", 1: "+0%", 0.999: "+0%", 1.004: "+0%", 2: "+100%"} {
		if got := Pct(r); got != want {
			t.Errorf("Pct(%v) = %q, want %q", r, got, want)
		}
	}
}

func TestMillis(t *testing.T) {
	for v, want := range map[float64]string{4.123: "4.12 ms", 41.23: "41.2 ms", 412.3: "412 ms", 41234: "41.2 s", -5: "-5.00 ms", math.NaN(): "-"} {
		if got := Millis(v); got != want {
			t.Errorf("Millis(%v) = %q, want %q", v, got, want)
		}
	}
}
