package selftest

import (
	"bytes"
	"math"
	"path/filepath"
	"testing"

	"github.com/latgate/latgate/internal/golden"
)

// sampleReport is a hand-made report with two levels, a sustained rate and a
// resolution with each kind of verdict.
func sampleReport() Report {
	lvl := func(c, n int, rate, d95 float64) Level {
		return Level{Concurrency: c, Requests: n, ChunkRate: Spread{rate, rate - 100, rate + 100},
			TTFTP50: Spread{0.012, 0.010, 0.020}, TTFTP95: Spread{0.05, 0.03, 0.08},
			ITLP50: Spread{-0.0004, -0.001, 0.001}, ITLP95: Spread{0.021, 0.015, 0.03},
			DelayP50: Spread{0.03, 0.02, 0.04}, DelayP95: Spread{d95, d95 - 0.1, d95 + 0.2}}
	}
	return Report{
		Machine: Machine{OS: "linux", Arch: "amd64", CPUs: 2, GOMAXPROCS: 2, Go: "go1.26", LoadBefore: "0.50 0.40 0.30", LoadAfter: "1.10 0.60 0.40"},
		Profile: "fixed?spin=0s", Schedule: "TTFT 50ms, ITL 5ms, 64 tokens", Runs: 3,
		Levels:  []Level{lvl(1, 16, 1200, 0.2), lvl(64, 128, 9000, 2.5)},
		MaxRate: &MaxRate{ChunksPerS: 1200, Concurrency: 1},
		Resolution: &Resolution{Config: "latgate.yaml", Requests: 30, Concurrency: 1, Confidence: 0.95, NoiseFrom: 48,
			Checks: []ResolvedCheck{
				{Metric: "ttft", Stat: "p50", Tolerance: 0.15, FloorMS: 20, ConfigFloorMS: 20, MinChangeMS: 0.004, NeedRequests: 5, MostRequests: 100000, Verdict: "ok"},
				{Metric: "ttft", Stat: "p95", Tolerance: 0.25, FloorMS: 40, ConfigFloorMS: 40, MinChangeMS: 0.2, NeedRequests: 59, MostRequests: 100000,
					Verdict: "always inconclusive: p95 needs ≥ 59 requests per prompt at 95% confidence (run.requests is 30)"},
				{Metric: "itl", Stat: "p95", Tolerance: 0.25, FloorMS: 0.25, ConfigFloorMS: 0.01, MinChangeMS: 0.6, MostRequests: 100000,
					Verdict: "floor under latgate's noise here: raise the floor above 0.600ms or run.requests to ≥ 173"},
				{Metric: "ttfct", Stat: "mean", Tolerance: 0.1, FloorMS: 5, ConfigFloorMS: 5, MinChangeMS: math.NaN(), MostRequests: 100000,
					Verdict: "not assessed: no noise model for this metric or statistic"},
			}},
	}
}

func TestWriteGolden(t *testing.T) {
	for _, tt := range []struct {
		name string
		edit func(*Report)
	}{
		{"selftest.golden.txt", func(*Report) {}},
		{"selftest_bare.golden.txt", func(r *Report) {
			r.MaxRate, r.Resolution, r.Machine.LoadBefore = nil, nil, ""
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := sampleReport()
			tt.edit(&r)
			var buf bytes.Buffer
			if err := Write(&buf, r); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", tt.name), buf.Bytes())
		})
	}
}
