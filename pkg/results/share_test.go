package results

import "testing"

func TestSLOMet(t *testing.T) {
	s := Sample{TTFB: 10, TTFT: 400, Total: 900, TPOT: 20, OutputTokens: 26, HasContent: true, TTFCT: 420,
		ITL: []float64{10, 12, 15, 18, 20, 22, 25, 30, 35, 40, 45, 48, 49, 50, 50, 50, 50, 50, 51, 70}}
	for _, tc := range []struct {
		name string
		slo  SLO
		met  bool
	}{
		{"ttft within", SLO{TTFT: 500}, true},
		{"ttft over", SLO{TTFT: 399}, false},
		{"itl: 95% of 20 gaps within 51 ms", SLO{ITL: 51}, true},
		{"itl: 90% within 50 ms is not 95%", SLO{ITL: 50}, false},
		{"all of them", SLO{TTFB: 20, TTFT: 500, TTFCT: 500, TPOT: 25, Total: 1000, MaxStall: 70}, true},
		{"one of them fails", SLO{TTFT: 500, Total: 800}, false},
		{"no limit", SLO{}, true},
	} {
		if got := tc.slo.Met(&s); got != tc.met {
			t.Errorf("%s: Met = %v, want %v", tc.name, got, tc.met)
		}
	}
	noContent := s
	noContent.HasContent = false
	if (SLO{TTFCT: 1000}).Met(&noContent) {
		t.Error("a ttfct limit is met by a request without a content token")
	}
}
