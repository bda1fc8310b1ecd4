package compare

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

func TestWilson(t *testing.T) {
	// Published values (Newcombe 1998, table I): 81 of 263 → [0.2553,
	// 0.3662]; 0 of 10 → [0, 0.2775] at 95%.
	for _, tc := range []struct {
		k, n   int
		lo, hi float64
	}{{81, 263, 0.2553, 0.3662}, {0, 10, 0, 0.2775}, {10, 10, 0.7225, 1}} {
		lo, hi := wilson(float64(tc.k)/float64(tc.n), tc.n, zOf(0.95))
		if math.Abs(lo-tc.lo) > 5e-5 || math.Abs(hi-tc.hi) > 5e-5 {
			t.Errorf("wilson(%d/%d) = [%.4f, %.4f], want [%.4f, %.4f]", tc.k, tc.n, lo, hi, tc.lo, tc.hi)
		}
	}
	// Newcombe's method 10 for 56/70 − 48/80: [0.0524, 0.3339].
	c := Check{Metric: results.StreamIntegrity, Baseline: 48.0 / 80, Current: 56.0 / 70, NBase: 80, NCur: 70, Confidence: 0.95}
	c.shareInterval()
	if math.Abs(c.Lo-0.0524) > 5e-4 || math.Abs(c.Hi-0.3339) > 5e-4 {
		t.Errorf("Newcombe interval [%.4f, %.4f], want [0.0524, 0.3339]", c.Lo, c.Hi)
	}
}

func TestDecideShare(t *testing.T) {
	rel := func(base, cur float64, nb, nc int, tol float64) Check {
		c := Check{Metric: results.StreamIntegrity, Stat: "share", Baseline: base, Current: cur, NBase: nb, NCur: nc,
			Confidence: 0.95, Tolerance: config.Tolerance{Rel: tol}}
		c.shareInterval()
		DecideShare(&c)
		return c
	}
	floor := func(cur float64, n int, min float64) Check {
		c := Check{Metric: results.SLOAttainment, Stat: "share", Current: cur, NCur: n, Confidence: 0.95, Min: min}
		c.shareInterval()
		DecideShare(&c)
		return c
	}
	for _, tc := range []struct {
		name     string
		c        Check
		verdict  Verdict
		lo, hi   float64 // the interval, to the printed precision
		moreSign int     // -1, 0, or 1 for "some"
	}{
		{"streamed before, buffered now", rel(1, 0, 240, 60, 0.25), Regressed, -1, -0.94, 0},
		{"unchanged", rel(1, 1, 240, 60, 0.25), OK, -0.06, 0.016, 0},
		{"a drop of 20 points with 60 requests", rel(0.9, 0.7, 240, 60, 0.25), Inconclusive, -0.33, -0.09, 1},
		{"a rise", rel(0.2, 0.95, 240, 60, 0.25), Improved, 0.65, 0.81, 0},
		{"too few requests", rel(1, 0, 240, 9, 0.25), Inconclusive, -1, -0.70, 1},
		{"93% of 240 vs min 95%", floor(0.93, 240, 0.95), Inconclusive, 0.89, 0.956, 1},
		{"92% of 240 vs min 95%: the bound prints apart from min", floor(0.92, 240, 0.95), Regressed, 0.879, 0.948, 0},
		{"80% of 240 vs min 95%", floor(0.80, 240, 0.95), Regressed, 0.745, 0.846, 0},
		{"100% of 150 vs min 95%", floor(1, 150, 0.95), OK, 0.975, 1, 0},
		{"95% of 60 vs min 95%: on the limit", floor(0.95, 60, 0.95), Inconclusive, 0.863, 0.983, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.c
			near := func(a, b float64) bool { return math.Abs(a-b) < 0.005 }
			more := max(-1, min(1, c.More))
			if c.Verdict != tc.verdict || !near(c.Lo, tc.lo) || !near(c.Hi, tc.hi) || more != tc.moreSign {
				t.Errorf("%s [%.3f, %.3f], more %d; want %s [%.3f, %.3f], more sign %d", c.Verdict, c.Lo, c.Hi, c.More, tc.verdict, tc.lo, tc.hi, tc.moreSign)
			}
		})
	}
}

// TestShareChecksImplicit: latgate checks stream_integrity unasked and
// reports it only when it does not pass; off turns it off; a buffered
// current run regresses against a streamed baseline.
func TestShareChecksImplicit(t *testing.T) {
	mk := func(n int, gap float64) Side {
		ss := make([]results.Sample, n)
		for i := range ss {
			ss[i] = results.Sample{Seq: i + 1, TTFT: 100, Total: 100 + 23*gap + 1, Chunks: 24, OutputTokens: 24, TokenSource: "usage",
				ITL: make([]float64, 23)}
			for k := range ss[i].ITL {
				ss[i].ITL[k] = gap
			}
		}
		return Side{Run: results.Run{Requests: n, Concurrency: 1}, Targets: []results.Target{{Name: "api", Model: "m", Requests: n,
			Prompts: []results.Prompt{{ID: "p", Requests: n, Samples: ss}}}}}
	}
	streaming, buffered := mk(120, 4), mk(60, 0.002)
	count := func(rep Report) (n int, v Verdict) {
		for _, c := range rep.Checks {
			if c.Metric == results.StreamIntegrity {
				n++
				v = c.Verdict
			}
		}
		return n, v
	}
	gate := config.DefaultGate()
	if n, _ := count(Compare(streaming, mk(60, 4), gate)); n != 0 {
		t.Errorf("an unchanged stream reported %d stream_integrity checks, want none", n)
	}
	rep := Compare(streaming, buffered, gate)
	if n, v := count(rep); n != 1 || v != Regressed || rep.Verdict != Regressed {
		t.Errorf("a buffered stream: %d checks, %s, run %s; want one regressed", n, v, rep.Verdict)
	}
	off := gate
	off.Checks = append(off.Checks, config.Check{Metric: results.StreamIntegrity, Stat: "share", Off: true})
	if n, _ := count(Compare(streaming, buffered, off)); n != 0 {
		t.Errorf("off: %d checks, want none", n)
	}
	asked := gate
	asked.Checks = append(asked.Checks, config.Check{Metric: results.StreamIntegrity, Stat: "share", Tolerance: config.Tolerance{Rel: 0.1}})
	n, v := count(Compare(streaming, mk(60, 4), asked))
	if diff := cmp.Diff([]any{1, OK}, []any{n, v}); diff != "" {
		t.Errorf("asked for, unchanged (-want +got):\n%s", diff)
	}
}
