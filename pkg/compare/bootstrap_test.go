package compare

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

// expand returns the resample a count vector stands for, sorted: every value
// of request i repeated counts[i] times.
func expand(d *dataset, counts []int32) []float64 {
	var out []float64
	for k, v := range d.vals {
		for range counts[d.owner[k]] {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// TestWeightedMatchesExpanded checks the pivot walk against the plain
// definition: the statistic of the resample written out value by value.
func TestWeightedMatchesExpanded(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	p := profile{TTFTMedian: 400, TTFTSigma: 0.5, ITLMedian: 20, ITLReqSigma: 0.3, ITLGapSigma: 0.3, Gaps: 6}
	specs := []stats.Stat{{P: 0.5}, {P: 0.95}, {P: 0.99}, {P: 0.1}, {P: 0.123}, {Mean: true}}
	for _, n := range []int{1, 2, 3, 7, 30, 101} {
		samples := simSamples(rng, p, n)
		// Ties: a few repeated values must not confuse the walk.
		for i := range samples {
			if i%3 == 0 {
				samples[i].TTFT = 400
				samples[i].ITL[0] = 20
			}
		}
		for _, metric := range []string{results.TTFT, results.ITL} {
			d := newDataset(samples, metric)
			for _, s := range specs {
				r := newResampler(d, s)
				for trial := range 200 {
					// Counts from the real drawing code, and some extreme ones.
					r.draw(rand.NewPCG(uint64(trial), 9))
					if trial%50 == 0 {
						clear(r.counts)
						r.counts[trial%n] = int32(n)
					}
					got := r.weighted()
					x := expand(d, r.counts)
					want := stats.Quantile(x, s.P)
					if s.Mean {
						want = stats.Mean(x)
					}
					if math.Abs(got-want) > 1e-9*math.Abs(want) {
						t.Fatalf("n=%d %s %+v trial %d: weighted = %v, expanded = %v (counts %v)", n, metric, s, trial, got, want, r.counts)
					}
				}
			}
		}
	}
}

// TestDrawMatchesWeighted checks the fused draw against the count-based
// statistic and that a resample has exactly n requests.
func TestDrawMatchesWeighted(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	p := profile{TTFTMedian: 400, TTFTSigma: 0.3, ITLMedian: 20, ITLGapSigma: 0.4, Gaps: 10}
	for _, n := range []int{1, 2, 5, 30, 31} {
		d := newDataset(simSamples(rng, p, n), results.ITL)
		for _, s := range []stats.Stat{{P: 0.5}, {P: 0.95}, {Mean: true}} {
			r := newResampler(d, s)
			src := rand.NewPCG(1, 2)
			for range 100 {
				got := r.draw(src)
				var sum int32
				for _, k := range r.counts {
					sum += k
				}
				if int(sum) != n {
					t.Fatalf("n=%d: resample has %d requests", n, sum)
				}
				// The mean sums in a different order: equal to rounding.
				if want := r.weighted(); math.Abs(got-want) > 1e-12*want {
					t.Fatalf("n=%d %+v: draw = %v, weighted = %v", n, s, got, want)
				}
			}
		}
	}
}

func TestNewDatasetFilters(t *testing.T) {
	samples := []results.Sample{
		{TTFT: 10, TTFCT: 12, HasContent: true, TPOT: 3, OutputTokens: 5, ITL: []float64{1, 2, 3}},
		{TTFT: 20, OutputTokens: 1, TPOT: 0}, // no content, one token, no gaps
		{TTFT: 30, TTFCT: 31, HasContent: true, TPOT: 4, OutputTokens: 2, ITL: []float64{9}},
	}
	tests := []struct {
		metric string
		vals   []float64
		per    []int32
	}{
		{results.TTFT, []float64{10, 20, 30}, []int32{1, 1, 1}},
		{results.TTFCT, []float64{12, 31}, []int32{1, 1}},
		{results.TPOT, []float64{3, 4}, []int32{1, 1}},
		{results.ITL, []float64{1, 2, 3, 9}, []int32{3, 1}},
	}
	for _, tt := range tests {
		d := newDataset(samples, tt.metric)
		if diff := cmp.Diff(tt.vals, d.vals); diff != "" {
			t.Errorf("%s values (-want +got):\n%s", tt.metric, diff)
		}
		if diff := cmp.Diff(tt.per, d.per); diff != "" {
			t.Errorf("%s values per request (-want +got):\n%s", tt.metric, diff)
		}
	}
}

// TestResampleWholeRequests: with two requests whose gaps are all 10 and all
// 100, resampling whole requests gives the pooled median 10 or 100 whenever
// both draws pick the same request (half the time), while resampling gaps
// would almost never move the median far from the middle.
func TestResampleWholeRequests(t *testing.T) {
	a, b := make([]float64, 50), make([]float64, 50)
	for i := range a {
		a[i], b[i] = 10, 100
	}
	d := newDataset([]results.Sample{{ITL: a}, {ITL: b}}, results.ITL)
	if got := d.stat(stats.Stat{P: 0.5}); got != 55 {
		t.Fatalf("pooled median = %v, want 55 (between the two requests' gaps)", got)
	}
	r := newResampler(d, stats.Stat{P: 0.5})
	src := rand.NewPCG(1, 1)
	extreme := 0
	const draws = 4000
	for range draws {
		if v := r.draw(src); v == 10 || v == 100 {
			extreme++
		}
	}
	// Binomial(4000, 0.5): 0.4–0.6 is over 12 standard deviations wide.
	if f := float64(extreme) / draws; f < 0.4 || f > 0.6 {
		t.Errorf("share of resamples made of one request = %.3f, want about 0.5", f)
	}
}

func TestRatio(t *testing.T) {
	tests := []struct{ cur, base, want float64 }{
		{3, 2, 1.5}, {0, 0, 1}, {2, 0, math.Inf(1)}, {0, 4, 0},
	}
	for _, tt := range tests {
		if got := ratio(tt.cur, tt.base); got != tt.want {
			t.Errorf("ratio(%v, %v) = %v, want %v", tt.cur, tt.base, got, tt.want)
		}
	}
}
