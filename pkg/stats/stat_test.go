package stats

import (
	"math"
	"testing"
)

func TestParseStat(t *testing.T) {
	sorted := []float64{1, 2, 3, 4, 10}
	tests := []struct {
		name  string
		want  Stat
		ok    bool
		value float64 // Of(sorted)
		need  int     // Need(0.95)
	}{
		{"p50", Stat{P: 0.5}, true, 3, 6},
		{"p95", Stat{P: 0.95}, true, 8.8, 72},
		{"p99", Stat{P: 0.99}, true, 9.76, 368},
		{"p99.9", Stat{P: 0.999}, true, 9.976, 3688},
		{"mean", Stat{Mean: true}, true, 4, 6},
		{"p0", Stat{}, false, 0, 0},
		{"p100", Stat{}, false, 0, 0},
		{"pNaN", Stat{}, false, 0, 0},
		{"median", Stat{}, false, 0, 0},
		{"95", Stat{}, false, 0, 0},
		{"", Stat{}, false, 0, 0},
	}
	for _, tt := range tests {
		got, err := ParseStat(tt.name)
		if (err == nil) != tt.ok || math.Abs(got.P-tt.want.P) > 1e-12 || got.Mean != tt.want.Mean {
			t.Errorf("ParseStat(%q) = %+v, %v; want %+v, ok %v", tt.name, got, err, tt.want, tt.ok)
			continue
		}
		if !tt.ok {
			continue
		}
		if got.String() != tt.name {
			t.Errorf("ParseStat(%q).String() = %q", tt.name, got.String())
		}
		if v := got.Of(sorted); math.Abs(v-tt.value) > 1e-9 {
			t.Errorf("%s.Of(%v) = %v, want %v", tt.name, sorted, v, tt.value)
		}
		if n := got.Need(0.95); n != tt.need {
			t.Errorf("%s.Need(0.95) = %d, want %d", tt.name, n, tt.need)
		}
	}
}

// TestNamedParse: every name a config may use parses and prints back.
func TestNamedParse(t *testing.T) {
	for _, name := range Named() {
		s, err := ParseStat(name)
		if err != nil || s.String() != name {
			t.Errorf("ParseStat(%q) = %v, %v", name, s, err)
		}
	}
}
