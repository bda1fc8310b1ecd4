package results

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestLatenessRounds: check's rounds add the probes and keep the worse of
// each quantile (a busy round stays in the samples); a file from before
// the probe has none, and a round's lateness is then the target's.
func TestLatenessRounds(t *testing.T) {
	start := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	quiet := &Lateness{Probes: 100, P50MS: 0.5, P95MS: 1, P99MS: 1.1, MaxMS: 2}
	busy := &Lateness{Probes: 50, P50MS: 0.6, P95MS: 3, P99MS: 5, MaxMS: 9}
	f := &File{StartedAt: start, Targets: []Target{{Name: "t", Lateness: quiet}}}
	AppendRound(f, &File{StartedAt: start, Targets: []Target{{Name: "t", Lateness: busy}}})
	if diff := cmp.Diff(&Lateness{Probes: 150, P50MS: 0.6, P95MS: 3, P99MS: 5, MaxMS: 9}, f.Targets[0].Lateness); diff != "" {
		t.Errorf("merged lateness (-want +got):\n%s", diff)
	}
	old := &File{StartedAt: start, Targets: []Target{{Name: "t"}}}
	AppendRound(old, &File{StartedAt: start, Targets: []Target{{Name: "t", Lateness: quiet}}})
	if diff := cmp.Diff(quiet, old.Targets[0].Lateness); diff != "" {
		t.Errorf("a round after a file without lateness (-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		l    *Lateness
		want float64
	}{{nil, 0}, {&Lateness{}, 0}, {quiet, 0.1}, {busy, 4}} {
		if got := tt.l.Lag(); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("Lag of %+v = %g, want %g", tt.l, got, tt.want)
		}
	}
}

// TestLatenessValidated: a tampered file's lateness out of order or range
// is refused, naming the field.
func TestLatenessValidated(t *testing.T) {
	run := Run{Requests: 1, Concurrency: 1, TimeoutMS: 1000}
	for _, tt := range []struct {
		name string
		l    *Lateness
		ok   bool
	}{
		{"absent", nil, true},
		{"a probe's", &Lateness{Probes: 10, P50MS: 0.5, P95MS: 1, P99MS: 1.1, MaxMS: 2}, true},
		{"negative", &Lateness{Probes: 10, P50MS: -1, P95MS: 1, P99MS: 1.1, MaxMS: 2}, false},
		{"p99 under p95", &Lateness{Probes: 10, P50MS: 0.5, P95MS: 3, P99MS: 1, MaxMS: 4}, false},
		{"NaN", &Lateness{Probes: 10, P50MS: 0.5, P95MS: 1, P99MS: math.NaN(), MaxMS: 4}, false},
		{"beyond an hour", &Lateness{Probes: 10, P50MS: 0.5, P95MS: 1, P99MS: 1, MaxMS: 4e6}, false},
		{"negative probes", &Lateness{Probes: -1}, false},
	} {
		err := ValidateData(run, []Target{{Name: "t", Lateness: tt.l}}, false)
		if (err == nil) != tt.ok {
			t.Errorf("%s: error %v, want ok %v", tt.name, err, tt.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "targets[0].runner_lateness") {
			t.Errorf("%s: %v does not name the field", tt.name, err)
		}
	}
}
