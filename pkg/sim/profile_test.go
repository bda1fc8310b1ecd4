package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDistDrawFixed(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	d := Dist{Median: 7 * time.Millisecond}
	for range 10 {
		if got := d.Draw(r); got != d.Median {
			t.Fatalf("Draw of a fixed Dist = %v, want %v", got, d.Median)
		}
	}
}

func TestDistDrawReproducible(t *testing.T) {
	d := Dist{Median: 40 * time.Millisecond, Sigma: 0.25}
	draw := func(seed uint64) []time.Duration {
		r := rand.New(rand.NewPCG(seed, 9))
		out := make([]time.Duration, 50)
		for i := range out {
			out[i] = d.Draw(r)
		}
		return out
	}
	if diff := cmp.Diff(draw(1), draw(1)); diff != "" {
		t.Errorf("same seed, different draws (-want +got):\n%s", diff)
	}
	if slices.Equal(draw(1), draw(2)) {
		t.Errorf("seeds 1 and 2 drew the same delays")
	}
}

// TestDistDrawLognormal checks the drawn distribution: the sample median
// within 3% of Median and the standard deviation of ln(X) within 5% of Sigma
// (20,000 draws: both errors are about 10 times their standard error).
func TestDistDrawLognormal(t *testing.T) {
	d := Dist{Median: 40 * time.Millisecond, Sigma: 0.25}
	r := rand.New(rand.NewPCG(3, 4))
	const n = 20000
	xs := make([]float64, n)
	var sum, sum2 float64
	for i := range xs {
		xs[i] = float64(d.Draw(r))
		l := math.Log(xs[i])
		sum += l
		sum2 += l * l
	}
	slices.Sort(xs)
	if med := xs[n/2]; math.Abs(med/float64(d.Median)-1) > 0.03 {
		t.Errorf("median = %v, want %v ± 3%%", time.Duration(med), d.Median)
	}
	mean := sum / n
	if sd := math.Sqrt(sum2/n - mean*mean); math.Abs(sd/d.Sigma-1) > 0.05 {
		t.Errorf("sd of ln = %.4f, want %.2f ± 5%%", sd, d.Sigma)
	}
}

func TestPlan(t *testing.T) {
	ms := time.Millisecond
	fixed := Profile{TTFT: Dist{Median: 50 * ms}, ITL: Dist{Median: 5 * ms}}
	if diff := cmp.Diff(Plan{Tokens: []time.Duration{50 * ms, 55 * ms, 60 * ms}, Finish: 60 * ms}, fixed.Plan(1, 3)); diff != "" {
		t.Errorf("fixed plan (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Plan{Finish: 50 * ms}, fixed.Plan(1, 0)); diff != "" {
		t.Errorf("plan without tokens (-want +got):\n%s", diff)
	}
	late := fixed
	late.HeaderDelay = Dist{Median: 80 * ms}
	if diff := cmp.Diff(Plan{Header: 80 * ms, Tokens: []time.Duration{80 * ms, 85 * ms}, Finish: 85 * ms}, late.Plan(1, 2)); diff != "" {
		t.Errorf("header delay over the TTFT (-want +got):\n%s", diff)
	}

	jitter := Profile{TTFT: Dist{Median: 40 * ms, Sigma: 0.25}, ITL: Dist{Median: 4 * ms, Sigma: 0.2}, HeaderDelay: Dist{Median: ms, Sigma: 0.1}, Seed: 5}
	if diff := cmp.Diff(jitter.Plan(3, 20), jitter.Plan(3, 20)); diff != "" {
		t.Errorf("same seq, different plans (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(jitter.Plan(3, 20).Tokens[:5], jitter.Plan(3, 5).Tokens); diff != "" {
		t.Errorf("a shorter plan is not a prefix (-want +got):\n%s", diff)
	}
	if slices.Equal(jitter.Plan(3, 20).Tokens, jitter.Plan(4, 20).Tokens) {
		t.Errorf("requests 3 and 4 got the same plan")
	}
	other := jitter
	other.Seed = 6
	if slices.Equal(jitter.Plan(3, 20).Tokens, other.Plan(3, 20).Tokens) {
		t.Errorf("seeds 5 and 6 gave the same plan")
	}
}

// TestPlanFactors checks that Slowdown scales every offset and TTFTFactor
// only the TTFT, on the same draws (1 ns of rounding per delay allowed).
func TestPlanFactors(t *testing.T) {
	ms := time.Millisecond
	base := Profile{TTFT: Dist{Median: 40 * ms, Sigma: 0.25}, ITL: Dist{Median: 4 * ms, Sigma: 0.2}, HeaderDelay: Dist{Median: 2 * ms, Sigma: 0.3}, Seed: 1}
	const n = 10
	b := base.Plan(7, n)
	near := func(a, b time.Duration) bool { return (a - b).Abs() <= n }

	slow := base
	slow.Slowdown = 2
	s := slow.Plan(7, n)
	if !near(s.Header, 2*b.Header) {
		t.Errorf("slowdown 2: header %v, want %v", s.Header, 2*b.Header)
	}
	for k := range n {
		if !near(s.Tokens[k], 2*b.Tokens[k]) {
			t.Errorf("slowdown 2: token %d at %v, want %v", k, s.Tokens[k], 2*b.Tokens[k])
		}
	}

	tf := base
	tf.TTFTFactor = 3
	f := tf.Plan(7, n)
	if !near(f.Tokens[0], 3*b.Tokens[0]) {
		t.Errorf("ttft_factor 3: TTFT %v, want %v", f.Tokens[0], 3*b.Tokens[0])
	}
	for k := 1; k < n; k++ {
		if got, want := f.Tokens[k]-f.Tokens[k-1], b.Tokens[k]-b.Tokens[k-1]; !near(got, want) {
			t.Errorf("ttft_factor 3: gap %d = %v, want %v unchanged", k, got, want)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, p := range []Profile{
		{Fault: "boom"},
		{TTFT: Dist{Median: -1}},
		{ITL: Dist{Sigma: 5}},
		{Style: "anthropic"},
		{KeepAlive: time.Microsecond},
		{Slowdown: math.Inf(1)},
		{Tokens: -1},
	} {
		if err := p.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil, want an error", p)
		}
	}
	for _, name := range Presets() {
		p, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Validate(); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
	}
	if err := (Profile{Fault: "boom"}).Validate(); err == nil || !strings.Contains(err.Error(), "fault") {
		t.Errorf("error %v does not name the field", err)
	}
}

// TestPlanITLRequestSigma: the per-request factor correlates the gaps of one
// stream (the share of ln-gap variance between requests is about
// s²/(s²+σ²)), and leaves the draws of a profile without it unchanged.
func TestPlanITLRequestSigma(t *testing.T) {
	base := Profile{TTFT: Dist{Median: 40 * time.Millisecond, Sigma: 0.3}, ITL: Dist{Median: 4 * time.Millisecond, Sigma: 0.26}, Seed: 7}
	if diff := cmp.Diff(base.Plan(3, 16), func() Plan { p := base; p.ITLRequestSigma = 0; return p.Plan(3, 16) }()); diff != "" {
		t.Errorf("ITLRequestSigma 0 changed the plan (-want +got):\n%s", diff)
	}
	corr := base
	corr.ITLRequestSigma = 0.15
	if corr.Plan(3, 16).Tokens[0] != base.Plan(3, 16).Tokens[0] {
		t.Errorf("the request factor moved the TTFT, drawn before it")
	}
	// Between-request variance of the mean ln gap, and within-request variance.
	const reqs, gaps = 2000, 33
	var means []float64
	var within float64
	for seq := 1; seq <= reqs; seq++ {
		pl := corr.Plan(seq, gaps)
		var ls []float64
		for k := 1; k < len(pl.Tokens); k++ {
			ls = append(ls, math.Log(float64(pl.Tokens[k]-pl.Tokens[k-1])))
		}
		m := mean(ls)
		means = append(means, m)
		for _, l := range ls {
			within += (l - m) * (l - m)
		}
	}
	within /= float64(reqs * (gaps - 2))
	between := variance(means) - within/float64(gaps-1)
	if math.Abs(math.Sqrt(between)-0.15) > 0.015 || math.Abs(math.Sqrt(within)-0.26) > 0.01 {
		t.Errorf("request σ %.3f, gap σ %.3f; want 0.15 ± 0.015 and 0.26 ± 0.01", math.Sqrt(between), math.Sqrt(within))
	}
}

// TestPlanSlowPeriods: slow blocks cover about Prob of the requests, in runs
// of exactly Len consecutive requests (by number), with every delay × X; a
// request's fate depends on its number alone.
func TestPlanSlowPeriods(t *testing.T) {
	fixed := Profile{TTFT: Dist{Median: 40 * time.Millisecond}, ITL: Dist{Median: 4 * time.Millisecond}, Seed: 11,
		Slow: SlowPeriods{Prob: 0.1, Len: 20, X: 1.5}}
	const n = 40000
	slow := make([]bool, n+1)
	var count int
	for seq := 1; seq <= n; seq++ {
		pl := fixed.Plan(seq, 3)
		switch pl.Tokens[0] {
		case 60 * time.Millisecond:
			slow[seq] = true
			count++
			if g := pl.Tokens[1] - pl.Tokens[0]; g != 6*time.Millisecond {
				t.Fatalf("request %d: slow TTFT but gap %v, want 6ms", seq, g)
			}
		case 40 * time.Millisecond:
		default:
			t.Fatalf("request %d: TTFT %v, want 40ms or 60ms", seq, pl.Tokens[0])
		}
	}
	if share := float64(count) / n; math.Abs(share-0.1) > 0.02 {
		t.Errorf("slow share %.3f, want 0.10 ± 0.02", share)
	}
	// Every maximal run of slow requests inside the range is a multiple of 20.
	for seq := 2; seq <= n; {
		if !slow[seq] || slow[seq-1] {
			seq++
			continue
		}
		end := seq
		for end <= n && slow[end] {
			end++
		}
		if end <= n && (end-seq)%20 != 0 {
			t.Errorf("slow run %d..%d has %d requests, want a multiple of 20", seq, end-1, end-seq)
		}
		seq = end
	}
	if fixed.Plan(123, 3).Tokens[0] != fixed.Plan(123, 3).Tokens[0] {
		t.Error("the same request planned twice differs")
	}
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func variance(xs []float64) float64 {
	m := mean(xs)
	var s float64
	for _, x := range xs {
		s += (x - m) * (x - m)
	}
	return s / float64(len(xs)-1)
}

// TestLevelJumps: the level is ×1 in even periods of wall time and ×X in odd
// ones, counted from the Unix epoch, so two simulators share the phase; and
// PlanAt is Plan with every delay multiplied by the level at arrival.
func TestLevelJumps(t *testing.T) {
	epoch := time.Unix(0, 0)
	l := LevelJumps{X: 1.3, Period: 1500 * time.Millisecond}
	tests := []struct {
		at   time.Duration // since the epoch
		want float64
	}{
		{0, 1},
		{1499 * time.Millisecond, 1},
		{1500 * time.Millisecond, 1.3},
		{2999 * time.Millisecond, 1.3},
		{3 * time.Second, 1},
		{4600 * time.Millisecond, 1.3},
	}
	for _, tt := range tests {
		if got := l.At(epoch.Add(tt.at)); got != tt.want {
			t.Errorf("At(epoch+%v) = %v, want %v", tt.at, got, tt.want)
		}
	}
	if got := (LevelJumps{X: 1.3}).At(epoch.Add(1600 * time.Millisecond)); got != 1.3 {
		t.Errorf("the default period: At(epoch+1.6s) = %v, want 1.3 (period 1.5s)", got)
	}
	if got := (LevelJumps{}).At(epoch.Add(1600 * time.Millisecond)); got != 1 {
		t.Errorf("no jumps: At = %v, want 1", got)
	}

	p := Profile{TTFT: Dist{Median: 40 * time.Millisecond, Sigma: 0.3}, ITL: Dist{Median: 4 * time.Millisecond, Sigma: 0.2},
		HeaderDelay: Dist{Median: time.Millisecond}, Seed: 5, Level: l}
	low, high := epoch.Add(100*time.Millisecond), epoch.Add(1600*time.Millisecond)
	for seq := 1; seq <= 50; seq++ {
		want := p.Plan(seq, 8)
		if diff := cmp.Diff(want, p.PlanAt(seq, 8, low)); diff != "" {
			t.Fatalf("request %d at level 1: PlanAt differs from Plan (-want +got):\n%s", seq, diff)
		}
		got := p.PlanAt(seq, 8, high)
		scaled := func(d time.Duration) time.Duration { return time.Duration(float64(d) * 1.3) }
		if got.Header != scaled(want.Header) || got.Finish < scaled(want.Finish)-time.Microsecond || got.Finish > scaled(want.Finish)+time.Microsecond {
			t.Fatalf("request %d at level 1.3: header %v finish %v, want %v and about %v", seq, got.Header, got.Finish, scaled(want.Header), scaled(want.Finish))
		}
	}
}

// TestPlanSlowAfter: slow_after is a step: every request numbered above
// After has every delay × X, none below or at it, whatever the seed.
func TestPlanSlowAfter(t *testing.T) {
	for _, seed := range []uint64{1, 2, 99} {
		p := Profile{TTFT: Dist{Median: 40 * time.Millisecond}, ITL: Dist{Median: 4 * time.Millisecond}, Seed: seed,
			Slow: SlowPeriods{After: 10, X: 5}}
		for seq := 1; seq <= 30; seq++ {
			pl := p.Plan(seq, 2)
			want := Plan{Header: 0, Tokens: []time.Duration{40 * time.Millisecond, 44 * time.Millisecond}, Finish: 44 * time.Millisecond}
			if seq > 10 {
				want = Plan{Header: 0, Tokens: []time.Duration{200 * time.Millisecond, 220 * time.Millisecond}, Finish: 220 * time.Millisecond}
			}
			if diff := cmp.Diff(want, pl); diff != "" {
				t.Errorf("seed %d, request %d: plan (-want +got):\n%s", seed, seq, diff)
			}
		}
	}
}
