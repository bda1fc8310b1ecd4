package report

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/config"
)

func TestDescribeGate(t *testing.T) {
	withLimit := config.DefaultGate()
	withLimit.Checks = []config.Check{
		{Metric: "ttft", Stat: "p95", Tolerance: config.Tolerance{Rel: 0.2, Floor: 30 * time.Millisecond}, Max: 800 * time.Millisecond},
		{Metric: "total", Stat: "p50", Max: 2 * time.Second, MaxOnly: true},
	}
	withLimit.Aggregate = false
	tests := []struct {
		name string
		gate config.Gate
		want string
	}{
		{"defaults", config.DefaultGate(), "ttft p50 (15%, floor 1ms (timing resolution)), ttft p90 (50%, floor 1ms (timing resolution)), " +
			"itl p50 (15%, floor 250µs (timing resolution)), itl p95 (25%, floor 250µs (timing resolution)); a regression 97.5% sure, an ok 90%, " +
			"day-to-day noise 1% (local or sim endpoint) or 20% (any other) assumed without a history; prompts pooled per target; on_inconclusive warn"},
		{"limits", withLimit, "ttft p95 (20%, floor 30ms, max 800ms), total p50 (max 2s); a regression 97.5% sure, an ok 90%, day-to-day noise 1% (local or sim endpoint) or 20% (any other) assumed without a history; on_inconclusive warn"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, DescribeGate(tt.gate)); diff != "" {
				t.Errorf("DescribeGate (-want +got):\n%s", diff)
			}
		})
	}
}
