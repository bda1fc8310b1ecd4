package measure

import "testing"

func TestBusyAndExtent(t *testing.T) {
	tests := []struct {
		name         string
		spans        []span
		busy, extent float64
	}{
		{"none", nil, 0, 0},
		{"one", []span{{10, 30}}, 20, 20},
		{"back to back", []span{{0, 10}, {10, 25}}, 25, 25},
		{"a gap", []span{{0, 10}, {20, 25}}, 15, 25},
		{"overlap counted once", []span{{0, 10}, {5, 15}}, 15, 15},
		{"nested, unsorted", []span{{5, 8}, {0, 20}, {30, 40}}, 30, 40},
	}
	for _, tt := range tests {
		if got := busy(tt.spans); got != tt.busy {
			t.Errorf("%s: busy = %g, want %g", tt.name, got, tt.busy)
		}
		if got := extent(tt.spans); got != tt.extent {
			t.Errorf("%s: extent = %g, want %g", tt.name, got, tt.extent)
		}
	}
}
