package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestHodgesLehmann checks the bisection against the definition on small
// samples: the median of all pairwise differences and Moses' order
// statistics.
func TestHodgesLehmann(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	for trial := range 50 {
		n, m := 3+trial%7, 4+trial%11
		lc, lb := make([]float64, n), make([]float64, m)
		for i := range lc {
			lc[i] = rng.NormFloat64()
		}
		for i := range lb {
			lb[i] = rng.NormFloat64() + 0.3
		}
		slices.Sort(lc)
		slices.Sort(lb)
		var d []float64
		for _, x := range lc {
			for _, y := range lb {
				d = append(d, x-y)
			}
		}
		slices.Sort(d)
		z := 1.0
		shift, lo, hi, ok := HodgesLehmann(lc, lb, z, z)
		N := len(d)
		k := int(math.Floor(float64(N)/2 - z*math.Sqrt(float64(N)*float64(n+m+1)/12)))
		if want := Quantile(d, 0.5); math.Abs(shift-want) > 1e-9 {
			t.Fatalf("trial %d: shift %v, want %v", trial, shift, want)
		}
		if k >= 1 && (!ok || math.Abs(lo-d[k-1]) > 1e-9 || math.Abs(hi-d[N-k]) > 1e-9) {
			t.Fatalf("trial %d: Moses [%v, %v] %v, want [%v, %v]", trial, lo, hi, ok, d[k-1], d[N-k])
		}
	}
}

// TestSignedRankHL holds the paired Hodges–Lehmann estimate and its interval to
// their definitions, computed by brute force over every Walsh average.
func TestSignedRankHL(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 7, 20, 61} {
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		slices.Sort(x)
		var walsh []float64
		for i := range n {
			for j := i; j < n; j++ {
				walsh = append(walsh, (x[i]+x[j])/2)
			}
		}
		slices.Sort(walsh)
		N := len(walsh)
		want := walsh[N/2]
		if N%2 == 0 {
			want = (walsh[N/2-1] + walsh[N/2]) / 2
		}
		const z = 1.96
		shift, lo, hi, ok := SignedRankHL(x, z, z)
		if math.Abs(shift-want) > 1e-9 {
			t.Errorf("n=%d: shift %v, want the median Walsh average %v", n, shift, want)
		}
		k := int(math.Floor(float64(N)/2 - z*math.Sqrt(float64(n*(n+1)*(2*n+1))/24)))
		if k < 1 {
			if ok {
				t.Errorf("n=%d: an interval from too few differences", n)
			}
			continue
		}
		if !ok || math.Abs(lo-walsh[k-1]) > 1e-9 || math.Abs(hi-walsh[N-k]) > 1e-9 {
			t.Errorf("n=%d: interval [%v, %v] ok=%v, want [%v, %v], the %d-th smallest and largest Walsh averages", n, lo, hi, ok, walsh[k-1], walsh[N-k], k)
		}
	}
}

// TestHLTies: with ties at the least value, the order statistics are the
// values themselves, not a float's width above them (inside the set, the
// bisection is exact to a float's width).
func TestHLTies(t *testing.T) {
	x := []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2}
	if c, lo, hi, ok := SignedRankHL(x, 1.96, 1.96); c != 1 || lo != 1 || hi != 1.5 || !ok {
		t.Errorf("SignedRankHL = %v [%v, %v] %v, want 1 [1, 1.5]", c, lo, hi, ok)
	}
	// 121 differences: ten of -1, 101 of 0, ten of +1; the 30th is 0.
	if s, lo, hi, ok := HodgesLehmann(x, x, 1.96, 1.96); math.Abs(s) > 1e-12 || math.Abs(lo) > 1e-12 || math.Abs(hi) > 1e-12 || !ok {
		t.Errorf("HodgesLehmann = %v [%v, %v] %v, want 0 [0, 0]", s, lo, hi, ok)
	}
	if s, lo, _, ok := HodgesLehmann([]float64{1, 1, 1}, []float64{1, 1, 1}, 0.1, 0.1); s != 0 || lo != 0 || !ok {
		t.Errorf("all ties: HodgesLehmann = %v, low end %v, %v; want 0, 0", s, lo, ok)
	}
}
