package compare

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/stats"
)

// Published Lan–DeMets boundaries for five equally spaced looks, one-sided
// α = 0.025 (gsDesign's sfLDOF and sfLDPocock; the same as the two-sided
// α = 0.05 ones to about 0.001, the far side being almost never hit).
func TestBoundariesPublished(t *testing.T) {
	looks := []float64{0.2, 0.4, 0.6, 0.8, 1}
	tests := []struct {
		name  string
		spend func(float64) float64
		want  []float64
	}{
		{"obf", obfSpend(0.025), []float64{4.877, 3.357, 2.680, 2.290, 2.031}},
		{"pocock", pocockSpend, []float64{2.438, 2.427, 2.410, 2.397, 2.389}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := boundaries(looks, 0.025, tt.spend)
			if d := cmp.Diff(tt.want, got, cmpopts.EquateApprox(0, 0.01)); d != "" {
				t.Errorf("boundaries (-want +got):\n%s", d)
			}
		})
	}
}

// TestBoundariesSpend checks the defining property by simulation: seeded
// Brownian paths cross the boundaries of the design's looks at the spent
// rate, in total and by look.
func TestBoundariesSpend(t *testing.T) {
	// 2.5% is each tail of the gate's 95% (a regression); 10% the ok end's
	// at ok_confidence 90%.
	for _, alpha := range []float64{0.025, 0.10} {
		testBoundariesSpend(t, alpha)
	}
}

func testBoundariesSpend(t *testing.T, alpha float64) {
	t.Helper()
	d := NewDesign(60, 180)
	const nBase = 120
	c := d.bounds(1-2*alpha, nBase)
	info := func(n int) float64 { return 1 / (1/float64(nBase) + 1/float64(n)) }
	const paths = 200_000
	rng := rand.New(rand.NewPCG(1, 2))
	var crossed int
	for range paths {
		var b, prev float64
		for k, n := range d.Looks {
			tk := info(n) / info(d.Last())
			b += math.Sqrt(tk-prev) * rng.NormFloat64()
			prev = tk
			if b/math.Sqrt(tk) >= c[k] {
				crossed++
				break
			}
		}
	}
	rate := float64(crossed) / paths
	// alpha ± 4 standard errors of a binomial rate over 200 000 paths.
	se := math.Sqrt(alpha * (1 - alpha) / paths)
	if math.Abs(rate-alpha) > 4*se {
		t.Errorf("crossing rate over %d looks = %.4f, want %v ± %.4f (boundaries %v)", len(d.Looks), rate, alpha, 4*se, c)
	}
	// A naive design (every look at the fixed level) crosses far more
	// often: the reason for spending.
	var naive int
	z := stats.NormalQuantile(1 - alpha)
	rng = rand.New(rand.NewPCG(1, 2))
	for range paths {
		var b, prev float64
		for _, n := range d.Looks {
			tk := info(n) / info(d.Last())
			b += math.Sqrt(tk-prev) * rng.NormFloat64()
			prev = tk
			if b/math.Sqrt(tk) >= z {
				naive++
				break
			}
		}
	}
	if nr := float64(naive) / paths; nr < rate+10*se {
		t.Errorf("alpha %v: naive repeated looks cross at %.4f, spending at %.4f: want the naive rate clearly higher", alpha, nr, rate)
	}
	// The ok level the checks get is these boundaries' (Design.okLevel).
	for k := range d.Looks {
		if got, want := d.okLevel(1-alpha, nBase, k), stats.NormalCDF(c[k]); math.Abs(got-want) > 1e-12 {
			t.Errorf("alpha %v: okLevel at look %d = %v, want %v", alpha, k+1, got, want)
		}
	}
}

func TestDesign(t *testing.T) {
	d := NewDesign(60, 180)
	if diff := cmp.Diff([]int{60, 90, 120, 150, 180}, d.Looks); diff != "" {
		t.Errorf("looks (-want +got):\n%s", diff)
	}
	tests := []struct {
		n, look, next int
		more          bool
	}{
		{0, 0, 90, true}, {58, 0, 90, true}, {60, 0, 90, true}, {61, 1, 120, true},
		{90, 1, 120, true}, {178, 4, 0, false}, {180, 4, 0, false}, {400, 4, 0, false},
	}
	for _, tt := range tests {
		next, more := d.Next(tt.n)
		if got := d.Look(tt.n); got != tt.look || next != tt.next || more != tt.more {
			t.Errorf("n=%d: look %d next %d %v, want %d %d %v", tt.n, got, next, more, tt.look, tt.next, tt.more)
		}
	}
	if got := NewDesign(60, 60); got.Sequential() || got.Confidence(0.95, 120, 0) != 0.95 {
		t.Errorf("NewDesign(60, 60) = %+v: want one look at the gate's confidence", got)
	}
	// Every look of a sequential design is stricter than the fixed design,
	// and none absurdly so under the Pocock-type spending.
	for k := range d.Looks {
		c := d.Confidence(0.95, 120, k)
		if c <= 0.95 || c > 0.995 {
			t.Errorf("look %d: confidence %.4f, want in (0.95, 0.995]", k, c)
		}
	}
}

func TestMoreRequests(t *testing.T) {
	base := Check{Metric: "ttft", Stat: "p50", Confidence: 0.95, Baseline: 100, Tolerance: config.Tolerance{Rel: 0.15}}
	with := func(f func(*Check)) Check {
		c := base
		f(&c)
		Decide(&c)
		return c
	}
	tests := []struct {
		name string
		c    Check
		want int
	}{
		// Estimate +5% under a +15% threshold, upper bound +20% at 60 vs
		// 240: the half-width above must shrink from ln(1.2/1.05) to
		// ln(1.15/1.05): (1/240 + 1/n) ≤ 0.4641 (1/240 + 1/60), n ≥ 181.7.
		{"below the threshold", with(func(c *Check) { c.NBase, c.NCur, c.Current, c.Ratio, c.Lo, c.Hi = 240, 60, 105, 1.05, 0.92, 1.20 }), 122},
		// Same, with a baseline of 60: the baseline's own half is too wide.
		{"baseline too noisy", with(func(c *Check) { c.NBase, c.NCur, c.Current, c.Ratio, c.Lo, c.Hi = 20, 60, 105, 1.05, 0.80, 1.40 }), -1},
		{"current too few for the statistic", with(func(c *Check) {
			c.Stat = "p95"
			c.NBase, c.NCur, c.Current, c.Ratio, c.Lo, c.Hi = 240, 40, 105, 1.05, 0.9, 1.1
		}), 32}, // p95 needs 72 requests at 95%
		// A day-to-day noise of 4% (5.7% between two days, ±11% at 95%)
		// alone spans the 10% from +5% to +15%: no number of requests.
		{"day-to-day noise", with(func(c *Check) {
			c.NBase, c.NCur, c.Current, c.Ratio, c.Lo, c.Hi, c.DayNoise = 240, 60, 105, 1.05, 0.92, 1.20, 0.04
		}), -1},
		{"baseline too few for the statistic", with(func(c *Check) {
			c.Stat = "p95"
			c.NBase, c.NCur, c.Current, c.Ratio, c.Lo, c.Hi = 40, 240, 105, 1.05, 0.9, 1.1
		}), -1},
		{"decided", with(func(c *Check) { c.NBase, c.NCur, c.Current, c.Ratio, c.Lo, c.Hi = 240, 60, 105, 1.05, 0.95, 1.10 }), 0},
		// On the difference scale with the ends at their own levels (the
		// regression end at 1.96 standard errors, the ok end at 1.2816): an
		// estimate of 0 ms, a 1 ms margin, 100 requests a side. The ok end
		// must shrink from 1.2816 to 1 ms: (1/100 + 1/n) ≤ (1/1.2816)²·(2/100),
		// n ≥ 459.3, 360 more (measured from the estimate, not the midpoint).
		{"difference scale, asymmetric ends", with(func(c *Check) {
			c.Scale, c.Margin, c.OkConfidence = ScaleDifference, 1, 0.90
			c.NBase, c.NCur, c.Current, c.Lo, c.Hi = 100, 100, 100, -1.96, 1.2816
		}), 360},
	}
	for _, tt := range tests {
		if tt.c.More != tt.want {
			t.Errorf("%s: More = %d, want %d (%s)", tt.name, tt.c.More, tt.want, tt.c.Reason)
		}
	}
}

// obfSpend is the Lan–DeMets O'Brien–Fleming-type spending function for a
// one-sided level a: 2 − 2Φ(z_{1−a/2}/√t), as a share of a. It spends almost
// nothing early; here to check boundaries against published values (and for the matrix's
// spend=obf experiment).
func obfSpend(a float64) func(float64) float64 {
	z := stats.NormalQuantile(1 - a/2)
	return func(t float64) float64 {
		if t <= 0 {
			return 0
		}
		return 2 * (1 - stats.NormalCDF(z/math.Sqrt(min(t, 1)))) / a
	}
}

// TestSharedVarianceDesign checks Design.Shared by simulating what a check
// estimates: at look k, the day's level D (shared by every look) plus the
// baseline's error (shared) plus the mean of the current side's first nₖ
// requests. Its boundaries must be crossed at the spent rate over all
// looks (they hold), while the design that ignores D's share, spending as
// if the looks were independent samples, crosses far less often (it was
// conservative: the level it held back is what Shared gives the first look).
func TestSharedVarianceDesign(t *testing.T) {
	d := NewDesign(60, 150)
	const (
		nBase = 240
		alpha = 0.10 // the ok end's
		paths = 100_000
	)
	for _, f := range []float64{0, 0.002, 0.02, 0.2} { // D's variance per unit of one request's
		ds := d.Shared(f, 1)
		c, plain := ds.critical(alpha, nBase), d.critical(alpha, nBase)
		rng := rand.New(rand.NewPCG(29, uint64(1000*f)))
		var crossed, crossedPlain int
		for range paths {
			day := math.Sqrt(f) * rng.NormFloat64()
			base := rng.NormFloat64() / math.Sqrt(nBase)
			var sum float64
			var n int
			hit, hitPlain := false, false
			for k, nk := range d.Looks {
				for ; n < nk; n++ {
					sum += rng.NormFloat64()
				}
				z := (day + base + sum/float64(n)) / math.Sqrt(f+1.0/nBase+1/float64(n))
				hit = hit || z >= c[k]
				hitPlain = hitPlain || z >= plain[k]
			}
			if hit {
				crossed++
			}
			if hitPlain {
				crossedPlain++
			}
		}
		rate, ratePlain := float64(crossed)/paths, float64(crossedPlain)/paths
		se := math.Sqrt(alpha * (1 - alpha) / paths)
		if math.Abs(rate-alpha) > 4*se {
			t.Errorf("f %v: crossing rate %.4f over looks %v, want %v ± %.4f (boundaries %.3f)", f, rate, d.Looks, alpha, 4*se, c)
		}
		if f >= 0.02 && ratePlain > alpha-10*se {
			t.Errorf("f %v: the design without the shared variance crosses at %.4f, want clearly below %v: it spends as if the looks were independent", f, ratePlain, alpha)
		}
		// The more of the variance the looks share, the closer the first
		// look's boundary is to the fixed-sample one.
		if fixed := stats.NormalQuantile(1 - alpha); f >= 0.2 && c[0]-fixed > 0.02 {
			t.Errorf("f %v: first look's boundary %.3f, want within 0.02 of the fixed-sample %.3f", f, c[0], fixed)
		}
	}
	// Shared of nothing, or on a single look, is the design itself.
	if got := d.Shared(0, 1); got.shared != 0 {
		t.Errorf("Shared(0, 1).shared = %v, want 0", got.shared)
	}
	if got := FixedDesign().Shared(1, 1); got.shared != 0 {
		t.Errorf("a fixed design's Shared(1, 1).shared = %v, want 0", got.shared)
	}
}
