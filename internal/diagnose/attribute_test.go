package diagnose

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/results"
)

// run describes one side's requests for the table below: every quantity a
// cause reads, with per-request noise drawn from a seeded source.
type run struct {
	n              int
	prompt, cached int     // tokens per request (cached: of those, when hit)
	hit            float64 // share of requests whose prompt hit the cache
	ttfb, ttft     float64 // medians, ms
	output         int     // median output tokens
	tls            float64 // ms per request, on the share not reused
	reused         float64 // share of requests on a reused connection
	retried        float64 // share of requests retried after a 429
	failed         int     // failed requests (class server)
	models, fps    []string
}

// normal is the run the table's cases change one thing of.
var normal = run{n: 120, prompt: 1210, cached: 1186, hit: 1, ttfb: 40, ttft: 300, output: 120,
	tls: 30, reused: 0.99, models: []string{"gpt-x-1"}, fps: []string{"fp_a", "fp_b"}}

func (r run) side(seed uint64) Side {
	rng := rand.New(rand.NewPCG(seed, 7))
	logn := func(m, sigma float64) float64 { return m * math.Exp(sigma*rng.NormFloat64()) }
	s := Side{Requests: r.n, Models: r.models, Fingerprints: r.fps}
	for i := range r.n - r.failed {
		ttfb := logn(r.ttfb, 0.3)
		smp := results.Sample{Seq: i + 1, TTFB: ttfb, TTFT: ttfb + logn(r.ttft-r.ttfb, 0.3),
			PromptTokens: r.prompt, OutputTokens: max(1, int(logn(float64(r.output), 0.2)))}
		smp.Total = smp.TTFT + 10*float64(smp.OutputTokens)
		if rng.Float64() < r.hit {
			smp.CachedTokens = r.cached
		}
		smp.Reused = rng.Float64() < r.reused
		if !smp.Reused {
			smp.DNS, smp.Connect, smp.TLS = logn(0.5, 0.3), logn(1, 0.3), logn(r.tls, 0.3)
		}
		if rng.Float64() < r.retried {
			smp.Retries = 1
		}
		s.Samples = append(s.Samples, smp)
	}
	for range r.failed {
		s.Failures = append(s.Failures, results.Failure{Class: results.ErrServer})
	}
	return s
}

func kinds(a results.Attribution) []string {
	var out []string
	for _, c := range a.Causes {
		out = append(out, c.Kind)
	}
	return out
}

func TestAttribute(t *testing.T) {
	with := func(f func(r *run)) run { r := normal; f(&r); return r }
	for _, tc := range []struct {
		name     string
		metric   string
		base     run
		cur      run
		kinds    []string
		contains string // in the line
	}{
		{name: "noise alone names nothing", metric: results.TTFT, base: normal, cur: normal, contains: results.NoCause},
		{name: "a slower model names nothing", metric: results.TTFT, base: normal,
			cur: with(func(r *run) { r.ttft = 600 }), contains: results.NoCause},
		{name: "the cache stopped hitting", metric: results.TTFT, base: normal,
			cur: with(func(r *run) { r.hit = 0; r.ttft = 600 }), kinds: []string{results.KindCache},
			contains: "cache stopped hitting: 98% → 0% of prompt tokens cached"},
		{name: "cache hits fell by half", metric: results.TTFT, base: normal,
			cur: with(func(r *run) { r.hit = 0.5 }), kinds: []string{results.KindCache}, contains: "cache hits fell: 98%"},
		{name: "a prompt twice as long", metric: results.TTFT, base: normal,
			cur: with(func(r *run) { r.prompt = 2430; r.cached = 2400 }), kinds: []string{results.KindPromptTokens},
			contains: "input got longer: 1,210 → 2,430 prompt tokens"},
		{name: "a prompt 3% longer is not material", metric: results.TTFT, base: normal,
			cur: with(func(r *run) { r.prompt = 1246 }), contains: results.NoCause},
		{name: "the wait moved before the first byte", metric: results.TTFT, base: normal,
			cur: with(func(r *run) { r.ttfb = 240; r.ttft = 500 }), kinds: []string{results.KindQueueing},
			contains: "the wait is before the first byte (TTFB"},
		{name: "queueing is no cause of an itl change", metric: results.ITL, base: normal,
			cur: with(func(r *run) { r.ttfb = 240; r.ttft = 500 })},
		{name: "rate limited", metric: results.TTFT, base: normal,
			cur: with(func(r *run) { r.retried = 0.2 }), kinds: []string{results.KindRateLimit},
			contains: "rate limited: 0% → "},
		{name: "errors", metric: results.TTFT, base: normal,
			cur: with(func(r *run) { r.failed = 12 }), kinds: []string{results.KindErrors},
			contains: "errors: 0% → 10% of requests failed"},
		{name: "connections no longer reused", metric: results.TTFT, base: normal,
			cur: with(func(r *run) { r.reused = 0 }), kinds: []string{results.KindConnect, results.KindTLS, results.KindReuse},
			contains: "% → 0% of requests"},
		{name: "longer answers lead a total regression", metric: results.Total, base: normal,
			cur: with(func(r *run) { r.output = 480; r.hit = 0 }), kinds: []string{results.KindOutputTokens, results.KindCache},
			contains: "answers got longer: "},
		{name: "another model", metric: results.TTFT, base: normal,
			cur: with(func(r *run) { r.models = []string{"gpt-x-2"} }), kinds: []string{results.KindModel},
			contains: "the endpoint returned another model: gpt-x-1 → gpt-x-2"},
		{name: "a fingerprint rotating within its set is no cause", metric: results.TTFT, base: normal,
			cur: with(func(r *run) { r.fps = []string{"fp_b", "fp_c"} })},
		{name: "a new set of fingerprints", metric: results.TTFT, base: normal,
			cur: with(func(r *run) { r.fps = []string{"fp_z"} }), kinds: []string{results.KindFingerprint}},
		{name: "too few requests test nothing", metric: results.TTFT, base: with(func(r *run) { r.n = 9 }),
			cur: with(func(r *run) { r.n = 9; r.prompt = 5000; r.hit = 0 })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := Attribute(tc.metric, tc.base.side(1), tc.cur.side(2))
			if diff := cmp.Diff(tc.kinds, kinds(a)); diff != "" {
				t.Errorf("kinds (-want +got):\n%s\nline: %s", diff, a.Line())
			}
			if !strings.Contains(a.Line(), tc.contains) {
				t.Errorf("line %q lacks %q", a.Line(), tc.contains)
			}
		})
	}
}

// TestAttributeSanitises: a model name with a control character and a
// workflow command reaches the line as printable text, and Plain leaves
// the endpoint's words out.
func TestAttributeSanitises(t *testing.T) {
	base, cur := normal.side(1), normal.side(2)
	cur.Models = []string{"evil\x1b[2J\n::error::pwned"}
	a := Attribute(results.TTFT, base, cur)
	line := a.Line()
	if strings.ContainsAny(line, "\x1b\n") || strings.Contains(line, "::error") {
		t.Errorf("line not sanitised: %q", line)
	}
	if got, want := a.Plain(), "the endpoint returned another model (see the report)"; got != want {
		t.Errorf("Plain = %q, want %q", got, want)
	}
}

func TestShift(t *testing.T) {
	seq := func(from, n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = float64(from + i)
		}
		return out
	}
	for _, tc := range []struct {
		name        string
		base, cur   []float64
		est, lo, hi float64
		moved       bool
	}{
		{"constant shift", seq(0, 20), seq(10, 20), 10, 4, 16, true},
		{"identical", seq(0, 20), seq(0, 20), 0, -6, 6, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := shiftOf(tc.base, tc.cur)
			if s.est != tc.est || s.moved() != tc.moved || s.lo != tc.lo || s.hi != tc.hi {
				t.Errorf("shift = %+v (moved %v), want est %v [%v, %v] moved %v", s, s.moved(), tc.est, tc.lo, tc.hi, tc.moved)
			}
		})
	}
	// Constant values on each side: the interval is the one difference.
	c0, c5 := make([]float64, 20), make([]float64, 20)
	for i := range c5 {
		c5[i] = 5
	}
	if s := shiftOf(c0, c5); s.lo != 5 || s.hi != 5 || !s.moved() {
		t.Errorf("constant sides: %+v, want [5, 5] moved", s)
	}
	// Big sides are not refused: the pairs are never formed. A shift of
	// 0.07 σ shows at 2 × 20,000 requests.
	if s := shiftOf(seq(0, 20000), seq(400, 20000)); !s.moved() || s.est != 400 {
		t.Errorf("big sides: %+v, want the shift 400, moved", s)
	}
}

func TestProportions(t *testing.T) {
	for _, tc := range []struct {
		kb, nb, kc, nc int
		moved          bool
	}{
		{0, 240, 0, 150, false},
		{0, 240, 5, 150, true},  // 0% → 3.3%: z ≈ 2.9
		{1, 240, 3, 150, false}, // 0.4% → 2%: z ≈ 1.5
		{2, 9, 9, 9, false},     // too few requests
	} {
		if _, _, moved := proportions(tc.kb, tc.nb, tc.kc, tc.nc); moved != tc.moved {
			t.Errorf("proportions(%d/%d, %d/%d) moved = %v, want %v", tc.kb, tc.nb, tc.kc, tc.nc, moved, tc.moved)
		}
	}
}

func TestTokensFormat(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 999: "999", 1210: "1,210", 2430.4: "2,430", 1234567: "1,234,567"} {
		if got := tokens(v); got != want {
			t.Errorf("tokens(%v) = %q, want %q", v, got, want)
		}
	}
}

// TestKth checks kth against the sorted pairwise differences themselves,
// ties and repeated values included.
func TestKth(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		n, m := 1+rng.IntN(12), 1+rng.IntN(12)
		x, y := make([]float64, n), make([]float64, m)
		for i := range x {
			x[i] = float64(rng.IntN(6)) + 0.1*float64(trial%3)
		}
		for j := range y {
			y[j] = float64(rng.IntN(9)) * 1.7
		}
		slices.Sort(x)
		slices.Sort(y)
		var d []float64
		for _, a := range x {
			for _, b := range y {
				d = append(d, b-a)
			}
		}
		slices.Sort(d)
		for k := range d {
			if got := kth(x, y, k); got != d[k] {
				t.Fatalf("x %v y %v: kth(%d) = %v, want %v", x, y, k, got, d[k])
			}
		}
	}
}
