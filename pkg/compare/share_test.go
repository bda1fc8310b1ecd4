package compare

import (
	"math"
	"strings"
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
		name    string
		c       Check
		verdict Verdict
		reason  string
	}{
		{"streamed before, buffered now", rel(1, 0, 240, 60, 0.25), Regressed, "100% → 0% (-100 pts [95% CI -100, -94]) < -25 pts tolerance"},
		{"unchanged", rel(1, 1, 240, 60, 0.25), OK, "within -25 pts tolerance: rules out < -6 pts"},
		{"a drop of 20 points with 60 requests", rel(0.9, 0.7, 240, 60, 0.25), Inconclusive, "straddles -25 pts tolerance: about"},
		{"a rise", rel(0.2, 0.95, 240, 60, 0.25), Improved, "> +25 pts tolerance"},
		{"too few requests", rel(1, 0, 240, 9, 0.25), Inconclusive, "needs at least 10 requests per side, have 9"},
		{"93% of 240 vs min 95%", floor(0.93, 240, 0.95), Inconclusive, "straddles min 95%"},
		{"92% of 240 vs min 95%: the bound prints apart from min", floor(0.92, 240, 0.95), Regressed, "CI 88%, 94.8%] < min 95%"},
		{"80% of 240 vs min 95%", floor(0.80, 240, 0.95), Regressed, "80% of 240 requests [95% CI 74%, 85%] < min 95%"},
		{"100% of 150 vs min 95%", floor(1, 150, 0.95), OK, "≥ 95% ruled in"},
		{"95% of 60 vs min 95%: on the limit", floor(0.95, 60, 0.95), Inconclusive, "sits on the limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.c.Verdict != tc.verdict || !strings.Contains(tc.c.Reason, tc.reason) {
				t.Errorf("%s: %s, want %s: …%s…", tc.c.Verdict, tc.c.Reason, tc.verdict, tc.reason)
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
	Explain(&rep, streaming, buffered)
	for _, c := range rep.Checks {
		if c.Metric == results.StreamIntegrity && !strings.HasPrefix(c.Why.Line(), "the stream is buffered") {
			t.Errorf("why = %q", c.Why.Line())
		}
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
