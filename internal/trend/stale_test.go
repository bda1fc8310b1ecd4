package trend

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/latgate/latgate/pkg/results"
)

func TestStaleness(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	r1 := &results.Runner{OS: "Linux", Arch: "X64", Name: "runner-1"}
	r2 := &results.Runner{OS: "Linux", Arch: "X64", Name: "runner-2"}
	ep := func(model, fp string) map[string]Endpoint {
		return map[string]Endpoint{"primary": {Models: []string{model}, Fingerprints: []string{fp}}}
	}
	base := Provenance{At: now.AddDate(0, 0, -40), Commit: "0123456789abcdef", Version: "v1.2.0", Runner: r1, Endpoints: ep("gpt-a", "fp_1")}
	tests := []struct {
		name   string
		cur    Provenance
		maxAge time.Duration
		want   []string // one fragment per warning, in order
	}{
		{"same everything, no age limit", Provenance{Version: "v1.2.0", Runner: r1, Endpoints: ep("gpt-a", "fp_1")}, 0, nil},
		{"older than the limit", Provenance{}, 30 * 24 * time.Hour, []string{"the baseline is stale: blessed 2026-10-22 00:00 UTC (40 days old) at commit 0123456789ab on Linux/X64 runner-1 by latgate v1.2.0, older than gate.max_baseline_age (30d)"}},
		{"within the limit", Provenance{}, 60 * 24 * time.Hour, nil},
		{"model and fingerprint", Provenance{Endpoints: ep("gpt-b", "fp_2")}, 0, []string{"target primary: the endpoint now returns model gpt-b, the baseline was blessed with gpt-a", "system fingerprint changed since bless (fp_1 → fp_2)"}},
		{"runner", Provenance{Runner: r2}, 0, []string{"measured on Linux/X64 runner-2, but the baseline on Linux/X64 runner-1"}},
		{"release versions differ", Provenance{Version: "v1.3.0"}, 0, []string{"latgate v1.3.0 measured this, the baseline was blessed by latgate v1.2.0"}},
		{"a development build is not compared", Provenance{Version: "(devel)"}, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Staleness(base, tt.cur, tt.maxAge, now)
			if len(got) != len(tt.want) {
				t.Fatalf("%d warnings, want %d: %q", len(got), len(tt.want), got)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("warning %d = %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}

// TestAgeTotal: every duration has words, the saturated ones that time.Sub
// gives for a baseline blessed in 2999 included (issue #16 item 2: Age
// recursed on -d, which for math.MinInt64 is itself, and overflowed the
// stack in check, compare, trend and bless).
func TestAgeTotal(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	future := time.Date(2999, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		d    time.Duration
		want string
	}{
		{now.Sub(future), "in the future"}, // saturated: math.MinInt64
		{time.Duration(math.MinInt64), "in the future"},
		{-time.Second, "in the future"},
		{0, "0 minutes"},
		{time.Minute, "1 minute"},
		{5 * time.Hour, "5 hours"},
		{24 * time.Hour, "24 hours"},
		{23 * 24 * time.Hour, "23 days"},
		{time.Duration(math.MaxInt64), "106751 days"},
	}
	for _, tt := range tests {
		if got := Age(tt.d); got != tt.want {
			t.Errorf("Age(%d) = %q, want %q", int64(tt.d), got, tt.want)
		}
	}
	b := Provenance{At: future}
	for _, got := range []string{Blessed(b, now), BlessedBefore(b, now)} {
		if !strings.Contains(got, "(in the future: check the clocks)") {
			t.Errorf("blessed in 2999: %q", got)
		}
	}
	if w := Staleness(b, Provenance{}, 30*24*time.Hour, now); len(w) != 0 {
		t.Errorf("a future baseline is not stale: %q", w)
	}
}
