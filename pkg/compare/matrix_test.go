package compare

import (
	"cmp"
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latgate/latgate/internal/history"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/sim"
)

// The gate's calibration matrix: per-run rates of the default gate, with the
// sequential rounds check takes, on the simulator's latency model (the same
// sim.Profile.Plan the built-in simulator serves), over the scenario classes
// of issue #18. One command prints it:
//
//	go test ./pkg/compare -run GateMatrix -v -args -calibrate
//
// Every row is its own seeded experiment (seeds from the row's name), and
// every rate is per run: the share of simulated `latgate check` runs (bless,
// then check with its rounds) that ended so.

var (
	calibrate  = flag.Bool("calibrate", false, "run the full calibration matrix (1000 runs per unchanged row, 400 per changed row)")
	matrixRuns = flag.Int("matrix-runs", 0, "runs per unchanged row of TestGateMatrix (changed rows get 40%; default 1000 with -calibrate, else 100)")
	matrixRows = flag.String("matrix-rows", "", "only the TestGateMatrix rows whose name contains this")
	matrixTol  = flag.String("matrix-tol", "", "experiment: tolerances other than the defaults, as \"ttft p50=15,ttft p90=50\" (percent)")
	matrixEst  = flag.String("matrix-est", "", "experiment: estimator choices, comma-separated: ratio-p50, equal-weights, cold=keep, independent (no run-level noise), runner=off, holm=all (Holm over every prompt test, not conditional), day=N (percent), ok=N (ok_confidence, percent; 0: symmetric), bless=N, cap=N (run.max_requests), spend=linear|quadratic|obf, looks=STEP")
)

// noiseClass is one endpoint noise model of the matrix.
type noiseClass struct {
	Name string
	TTFT sim.Dist // the first prompt's; later prompts have other medians
	ITL  sim.Dist
	// ITLRequest is the σ of a per-request factor on all of a stream's gaps.
	ITLRequest float64
	Slow       sim.SlowPeriods
	// Drift is the day-to-day level: Bounded draws the current run's level
	// relative to the baseline's uniformly in [1−Bounded, 1+Bounded];
	// otherwise every day (the baseline's, the current run's and each
	// history run's) has a lognormal level of σ Day.
	Bounded, Day float64
	// DayRho makes the day levels AR(1) from day to day with correlation
	// DayRho (stationary σ Day), in the order a team lives them: the
	// baseline's day, then the history's days, then the current run's
	// (#29: a level that wanders over days, a baseline as old as the
	// history).
	DayRho float64
	// TailDay: a day's level moves the spread of TTFT (its σ × the level),
	// not its median nor the stream: a tail that swings from day to day
	// with load while the median holds (#29: day noise per statistic).
	TailDay bool
	// History is how many earlier runs (60 requests per prompt, each its own
	// day) the gate learns the day-to-day noise from; 0: none.
	History int
	// Remote: the endpoint is a hosted API (its base URL is not local), so
	// without a history the gate assumes the remote day-to-day noise.
	Remote bool
	// Busy is the mean (ms) of the exponential delay with which a busy
	// runner reads each token of the current run (#29): a token is read at
	// its arrival plus its delay, never before the token before it, so
	// tokens bunch; the current side records the lateness such delays give.
	// The baseline was blessed on a quiet runner.
	Busy float64
	// Cold is a cold start (#29): the first Cold.N requests of each run, in
	// arrival order across its prompts and counting the warmup, are slower
	// by a factor falling from Cold.X at the first to 1 at the Nth.
	Cold struct {
		N int
		X float64
	}
	// AR is a level that wanders within a run (#29: correlated requests): a
	// log-level per request in arrival order, AR(1) with correlation Rho
	// from one request to the next and stationary σ Sigma, on every delay.
	AR struct{ Rho, Sigma float64 }
}

// change is what the current run changed.
type change struct {
	Name string
	TTFT float64 // factor on the TTFT only (1: none)
	All  float64 // factor on every delay (1: none)
	// One limits the change to the first prompt (the others unchanged).
	One bool
	// AtTolerance marks a change exactly at TTFT p50's tolerance: the row
	// counts the runs whose ttft p50 ended ok (an ok's miss).
	AtTolerance bool
}

func (c change) unchanged() bool { return c.TTFT == 1 && c.All == 1 }

// base is the matrix's reference endpoint noise: TTFT and ITL lognormal
// σ 0.3 with 2% spikes ×4, a quarter of the ln-ITL variance per request.
func base(name string) noiseClass {
	return noiseClass{Name: name,
		TTFT:       sim.Dist{Median: 200 * time.Millisecond, Sigma: 0.3, Spike: 0.02, SpikeX: 4},
		ITL:        sim.Dist{Median: 8 * time.Millisecond, Sigma: 0.26, Spike: 0.02, SpikeX: 4},
		ITLRequest: 0.15, Bounded: 0.07}
}

// lognormal is the endpoint without spikes at total σ s (TTFT and ITL, a
// quarter of the ln-ITL variance per request).
func lognormal(s float64) noiseClass {
	c := base(fmt.Sprintf("lognormal σ %.1f", s))
	c.TTFT = sim.Dist{Median: c.TTFT.Median, Sigma: s}
	c.ITL = sim.Dist{Median: c.ITL.Median, Sigma: s * math.Sqrt(3) / 2}
	c.ITLRequest = s / 2
	return c
}

func matrixClasses() []noiseClass {
	spikes := func(p, x float64) noiseClass {
		c := lognormal(0.3)
		c.Name = fmt.Sprintf("σ 0.3, spikes %.0f%% ×%g", 100*p, x)
		c.TTFT.Spike, c.TTFT.SpikeX, c.ITL.Spike, c.ITL.SpikeX = p, x, p, x
		return c
	}
	cold := lognormal(0.3)
	cold.Name = "σ 0.3, cold cache 10% ×3 TTFT"
	cold.TTFT.Spike, cold.TTFT.SpikeX = 0.10, 3
	slow := base("σ 0.3 + 2%×4, slow periods 20 req ×1.5 (10%)")
	slow.Slow = sim.SlowPeriods{Prob: 0.10, Len: 20, X: 1.5}
	day := base("σ 0.3 + 2%×4, day-to-day σ 0.10, no history")
	day.Bounded, day.Day = 0, 0.10
	learned := day
	learned.Name, learned.History = "σ 0.3 + 2%×4, day-to-day σ 0.10, 24-run history", 24
	wanderingDays := day
	wanderingDays.Name, wanderingDays.History, wanderingDays.DayRho = "σ 0.3 + 2%×4, day levels AR(1) ρ 0.9 σ 0.10, 20-run history, baseline 21 days old", 20, 0.9
	modest := modestDays()
	tailDays := day
	tailDays.Name, tailDays.Day, tailDays.History, tailDays.TailDay = "σ 0.3 + 2%×4, TTFT spread × e^(0.5 Z) day to day, median steady, 20-run history", 0.5, 20, true
	return []noiseClass{lognormal(0.3), lognormal(0.6), lognormal(0.8), spikes(0.02, 4), spikes(0.05, 3), cold, slow, day, learned, wanderingDays, modest, tailDays, hosted(), busy(), coldStart(), correlated(0.9, 0.1), wandering()}
}

// modestDays is the reference endpoint whose level moves σ 0.05 from day
// to day, learned from a 20-run history (#29).
func modestDays() noiseClass {
	c := base("σ 0.3 + 2%×4, day-to-day σ 0.05, 20-run history")
	c.Bounded, c.Day, c.History = 0, 0.05, 20
	return c
}

// wandering is the reference endpoint whose level wanders within each run
// (#29): AR(1) from request to request, ρ 0.95, stationary σ 0.15.
func wandering() noiseClass { return correlated(0.95, 0.15) }

// correlated is the reference endpoint whose level is AR(1) from request
// to request with correlation rho and stationary σ sigma.
func correlated(rho, sigma float64) noiseClass {
	c := base(fmt.Sprintf("σ 0.3 + 2%%×4, correlated requests (AR(1) level, ρ %.2g, σ %.2g)", rho, sigma))
	c.AR.Rho, c.AR.Sigma = rho, sigma
	return c
}

// coldStart is the reference endpoint starting cold on every run (#29):
// its first 24 requests (the default warmup, 2 a prompt, among them) from
// ×3 down to ×1.
func coldStart() noiseClass {
	c := base("σ 0.3 + 2%×4, cold start (first 24 requests ×3 → ×1)")
	c.Cold.N, c.Cold.X = 24, 3
	return c
}

// warmupRequests is what the default run sends before its measured
// requests: run.warmup (2) per prompt.
const warmupRequests = 2

// busy is the reference endpoint read by a busy runner (#29): every token
// read a mean 5 ms late (the probe's lag about 23 ms: a runner that holds
// latgate off the CPU for tens of milliseconds at a time), against gaps of
// 8 ms; the baseline read on a quiet runner.
func busy() noiseClass {
	c := base("σ 0.3 + 2%×4, busy runner (reads 5 ms late on average)")
	c.Busy = 5
	return c
}

// lateness is what the probe records on a runner whose reads wait an
// exponential delay of mean ms: its quantiles, plus the timer granularity.
func lateness(mean float64) *results.Lateness {
	q := func(p float64) float64 { return results.TimerGranularityMS/2 + mean*-math.Log(1-p) }
	return &results.Lateness{Probes: 2000, P50MS: q(0.5), P95MS: q(0.95), P99MS: results.TimerGranularityMS + mean*-math.Log(0.01), MaxMS: results.TimerGranularityMS + mean*-math.Log(0.0005)}
}

// hosted is a hosted API without a history (#29): its level moves about 20%
// from day to day, and the gate assumes the remote default.
func hosted() noiseClass {
	c := base("σ 0.3 + 2%×4, hosted, day-to-day σ 0.20, no history")
	c.Bounded, c.Day, c.Remote = 0, 0.20, true
	return c
}

// matrixRow is one experiment: a noise class, a change and a prompt count.
type matrixRow struct {
	Noise   noiseClass
	Change  change
	Prompts int
}

func (r matrixRow) name() string {
	return fmt.Sprintf("%s | %d prompts | %s", r.Noise.Name, r.Prompts, r.Change.Name)
}

// seed is the row's own seed: rows are distinct experiments.
func (r matrixRow) seed() uint64 {
	h := fnv.New64a()
	h.Write([]byte(r.name()))
	return h.Sum64()
}

func matrixPlan() []matrixRow {
	unchanged := change{Name: "unchanged", TTFT: 1, All: 1}
	var rows []matrixRow
	for _, c := range matrixClasses() {
		for _, p := range []int{2, 10, 30} {
			rows = append(rows, matrixRow{c, unchanged, p})
		}
	}
	ref := base("σ 0.3 + 2%×4")
	for _, p := range []int{2, 10, 30} {
		for _, f := range []float64{1.2, 1.3, 1.5} {
			pct := fmt.Sprintf("+%.0f%%", 100*(f-1))
			rows = append(rows,
				matrixRow{ref, change{Name: "TTFT " + pct, TTFT: f, All: 1}, p},
				matrixRow{ref, change{Name: "uniform " + pct, TTFT: 1, All: f}, p})
		}
	}
	// At the tolerance, without day-to-day drift (so the truth is exactly
	// TTFT p50's 15%): how often an ok passes it quietly (ok_confidence).
	exact := base("σ 0.3 + 2%×4, no day-to-day drift")
	exact.Bounded = 0
	for _, p := range []int{2, 10} {
		rows = append(rows, matrixRow{exact, change{Name: "TTFT +15% (at its tolerance)", TTFT: 1.15, All: 1, AtTolerance: true}, p})
	}
	// At the tolerance with a learned day-to-day noise (#29): the day's
	// level is in every look alike, and the looks' levels spend the ok
	// end's 10% over the looks' true information (Design.Shared); the ok
	// must still miss a change at its tolerance in at most 10% of runs.
	for _, p := range []int{2, 10} {
		rows = append(rows, matrixRow{modestDays(), change{Name: "uniform +15% (at its tolerance)", TTFT: 1, All: 1.15, AtTolerance: true}, p},
			matrixRow{hosted(), change{Name: "TTFT +15% (at its tolerance)", TTFT: 1.15, All: 1, AtTolerance: true}, p})
	}
	for _, p := range []int{2, 10} {
		rows = append(rows,
			matrixRow{hosted(), change{Name: "TTFT +30%", TTFT: 1.3, All: 1}, p},
			matrixRow{hosted(), change{Name: "uniform +30%", TTFT: 1, All: 1.3}, p})
	}
	for _, p := range []int{2, 10} {
		rows = append(rows, matrixRow{busy(), change{Name: "TTFT +30%", TTFT: 1.3, All: 1}, p})
	}
	rows = append(rows, matrixRow{coldStart(), change{Name: "TTFT +30%", TTFT: 1.3, All: 1}, 2},
		matrixRow{correlated(0.9, 0.1), change{Name: "TTFT +30%", TTFT: 1.3, All: 1}, 2},
		matrixRow{wandering(), change{Name: "TTFT +30%", TTFT: 1.3, All: 1}, 2})
	rows = append(rows,
		matrixRow{exact, change{Name: "one prompt TTFT +15% (at its tolerance)", TTFT: 1.15, All: 1, One: true, AtTolerance: true}, 10},
		matrixRow{ref, change{Name: "one prompt TTFT +30% (twice its tolerance)", TTFT: 1.3, All: 1, One: true}, 10},
		matrixRow{exact, change{Name: "one prompt TTFT +30% (twice its tolerance)", TTFT: 1.3, All: 1, One: true}, 10},
		matrixRow{ref, change{Name: "one prompt TTFT +50%", TTFT: 1.5, All: 1, One: true}, 10},
		matrixRow{ref, change{Name: "one prompt TTFT +100%", TTFT: 2, All: 1, One: true}, 30})
	return rows
}

// simTarget is one simulated target: a profile per prompt (their medians
// differ, as prompts of different lengths do) and one arrival counter, so
// that slow periods hit whatever prompts were measured at the time.
type simTarget struct {
	profiles []sim.Profile
	seq      int
	tokens   int
	busy     float64    // mean read delay, ms (noiseClass.Busy), on the current side
	rng      *rand.Rand // the read delays'
	coldN    int        // noiseClass.Cold
	coldX    float64
	ar       struct{ Rho, Sigma float64 } // noiseClass.AR
	arLevel  float64                      // its log-level now
	arRng    *rand.Rand
	measured int // requests measured so far, the next one's Seq less one
}

// newSimTarget builds the endpoint of one side: level multiplies every delay
// (the day's level), and the row's change applies when changed is set.
func newSimTarget(r matrixRow, seed uint64, level float64, changed bool) *simTarget {
	e := &simTarget{tokens: 32, coldN: r.Noise.Cold.N, coldX: r.Noise.Cold.X}
	if r.Noise.Cold.N > 0 {
		e.seq = warmupRequests * r.Prompts // the warmup went first, and took the coldest
	}
	if r.Noise.AR.Sigma > 0 {
		e.ar, e.arRng = r.Noise.AR, rand.New(rand.NewPCG(seed, 95))
		e.arLevel = r.Noise.AR.Sigma * e.arRng.NormFloat64() // stationary from the start
	}
	if changed && r.Noise.Busy > 0 {
		e.busy, e.rng = r.Noise.Busy, rand.New(rand.NewPCG(seed, 29))
	}
	for j := range r.Prompts {
		// Prompt medians spread over ×0.5–×2 (fixed per prompt index).
		f := math.Exp(math.Log(2) * (2*float64(j)/float64(max(r.Prompts-1, 1)) - 1))
		p := sim.Profile{TTFT: r.Noise.TTFT, ITL: r.Noise.ITL, ITLRequestSigma: r.Noise.ITLRequest, Slow: r.Noise.Slow,
			Tokens: e.tokens, Slowdown: level, TTFTFactor: 1, Seed: seed}
		p.TTFT.Median = time.Duration(float64(p.TTFT.Median) * f)
		if r.Noise.TailDay {
			p.TTFT.Sigma, p.Slowdown = p.TTFT.Sigma*level, 1
		}
		if changed && (!r.Change.One || j == 0) {
			p.Slowdown *= r.Change.All
			p.TTFTFactor = r.Change.TTFT
		}
		e.profiles = append(e.profiles, p)
	}
	return e
}

// measure draws n more requests for each prompt in order (n[j] for prompt
// j; 0 skips it), interleaved as `run.order: interleave` measures them.
func (e *simTarget) measure(prompts []results.Prompt, n []int) {
	for round := 0; ; round++ {
		any := false
		for j := range prompts {
			if round >= n[j] {
				continue
			}
			any = true
			e.seq++
			pr := e.profiles[j]
			if e.seq <= e.coldN {
				pr.Slowdown *= 1 + (e.coldX-1)*float64(e.coldN-e.seq)/float64(max(e.coldN-1, 1))
			}
			if e.ar.Sigma > 0 {
				e.arLevel = e.ar.Rho*e.arLevel + e.ar.Sigma*math.Sqrt(1-e.ar.Rho*e.ar.Rho)*e.arRng.NormFloat64()
				pr.Slowdown *= math.Exp(e.arLevel)
			}
			pl := pr.Plan(e.seq, e.tokens)
			if e.busy > 0 {
				pl = e.readLate(pl)
			}
			e.measured++ // Seq numbers the target's requests in arrival order, as measure does
			prompts[j].Samples = append(prompts[j].Samples, sampleOf(e.measured, pl))
			prompts[j].Requests = len(prompts[j].Samples)
		}
		if !any {
			return
		}
	}
}

// readLate is pl as a busy runner reads it: each token at its arrival
// plus an exponential delay, never before the token before it.
func (e *simTarget) readLate(pl sim.Plan) sim.Plan {
	out := pl
	out.Tokens = make([]time.Duration, len(pl.Tokens))
	prev := time.Duration(0)
	for k, at := range pl.Tokens {
		r := max(prev, at+time.Duration(e.busy*e.rng.ExpFloat64()*float64(time.Millisecond)))
		out.Tokens[k], prev = r, r
	}
	out.Finish = max(pl.Finish, prev)
	return out
}

func sampleOf(seq int, pl sim.Plan) results.Sample {
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	s := results.Sample{Seq: seq, TTFB: ms(pl.Header), TTFT: ms(pl.Tokens[0]), TTFCT: ms(pl.Tokens[0]), HasContent: true,
		Total: ms(pl.Finish), OutputTokens: len(pl.Tokens), Chunks: len(pl.Tokens)}
	s.ITL = make([]float64, len(pl.Tokens)-1)
	for k := range s.ITL {
		s.ITL[k] = ms(pl.Tokens[k+1] - pl.Tokens[k])
		s.MaxStall = max(s.MaxStall, s.ITL[k])
	}
	return s
}

func newPrompts(n int) []results.Prompt {
	ps := make([]results.Prompt, n)
	for j := range ps {
		ps[j] = results.Prompt{ID: fmt.Sprintf("p%02d", j), Hash: fmt.Sprintf("h%02d", j)}
	}
	return ps
}

func fill(n, v int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// matrixOutcome is what one simulated run ended with.
type matrixOutcome struct {
	Regressed bool
	// Named: a regression names the changed prompt (one-prompt rows);
	// Others: it names another prompt.
	Named, Others bool
	Undecided     int   // gated checks left undecided
	Requests      []int // current requests per prompt at the end
	// Which names the undecided gated checks: "pooled ttft p90", "prompt itl p50".
	Which []string
	// OkTTFT: the target's ttft p50 (pooled, or its one prompt's) ended ok.
	OkTTFT bool
	// Quiet: the run ended ok, nothing regressed and nothing undecided
	// (exit 0 with no note).
	Quiet bool
}

// days draws the day levels of one run: baseline, current, history.
func (r matrixRow) days(rng *rand.Rand) (base, cur float64, hist []float64) {
	if r.Noise.Day == 0 {
		return 1, 1 + r.Noise.Bounded*(2*rng.Float64()-1), nil
	}
	if r.Noise.DayRho > 0 {
		rho, x := r.Noise.DayRho, r.Noise.Day*rng.NormFloat64()
		next := func() float64 {
			x = rho*x + r.Noise.Day*math.Sqrt(1-rho*rho)*rng.NormFloat64()
			return math.Exp(x)
		}
		base = math.Exp(x)
		for range r.Noise.History {
			hist = append(hist, next())
		}
		return base, next(), hist
	}
	day := func() float64 { return math.Exp(r.Noise.Day * rng.NormFloat64()) }
	base, cur = day(), day()
	for range r.Noise.History {
		hist = append(hist, day())
	}
	return base, cur, hist
}

// matrixStats summarises the runs of a row.
type matrixStats struct {
	Runs, Regressed, Named, Others, Undecided, OkTTFT, Quiet int
	Requests                                                 []int
	Which                                                    map[string]int // runs leaving each kind of gated check undecided
	RunMeans                                                 []float64      // each run's mean requests per prompt
}

func (s matrixStats) pct(n int) float64 { return 100 * float64(n) / float64(max(s.Runs, 1)) }

func (s matrixStats) meanRequests() float64 {
	var t int
	for _, n := range s.Requests {
		t += n
	}
	return float64(t) / float64(max(len(s.Requests), 1))
}

// distribution formats the share of prompts that ended at each request count.
func (s matrixStats) distribution() string {
	count := map[int]int{}
	for _, n := range s.Requests {
		count[n]++
	}
	keys := make([]int, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d: %.0f%%", k, 100*float64(count[k])/float64(len(s.Requests))))
	}
	return strings.Join(parts, ", ")
}

func runRow(t *testing.T, r matrixRow, runs int, sim func(matrixRow, int) matrixOutcome) matrixStats {
	t.Helper()
	s := matrixStats{Runs: runs, Which: map[string]int{}}
	for run := range runs {
		o := sim(r, run)
		seen := map[string]bool{}
		for _, w := range o.Which {
			if !seen[w] {
				s.Which[w]++
				seen[w] = true
			}
		}
		if o.Regressed {
			s.Regressed++
		}
		if o.Named {
			s.Named++
		}
		if o.Others {
			s.Others++
		}
		if o.Undecided > 0 {
			s.Undecided++
		}
		if o.OkTTFT {
			s.OkTTFT++
		}
		if o.Quiet {
			s.Quiet++
		}
		s.Requests = append(s.Requests, o.Requests...)
		var sum int
		for _, n := range o.Requests {
			sum += n
		}
		s.RunMeans = append(s.RunMeans, float64(sum)/float64(max(len(o.Requests), 1)))
	}
	return s
}

func matrixHeader(t *testing.T) {
	t.Helper()
	t.Log("| scenario | prompts | change | runs | regressed | named / other prompt | undecided | mean req/prompt | requests per prompt at the end |")
	t.Log("|---|--:|---|--:|--:|--:|--:|--:|---|")
}

func matrixLine(t *testing.T, r matrixRow, s matrixStats) {
	t.Helper()
	named := "-"
	if r.Change.One {
		named = fmt.Sprintf("%.1f%% / %.1f%%", s.pct(s.Named), s.pct(s.Others))
	}
	if r.Change.AtTolerance {
		named = fmt.Sprintf("ttft p50 ok: %.1f%%", s.pct(s.OkTTFT))
	}
	t.Logf("| %s | %d | %s | %d | %.1f%% | %s | %.1f%% | %.1f | %s |", r.Noise.Name, r.Prompts, r.Change.Name, s.Runs,
		s.pct(s.Regressed), named, s.pct(s.Undecided), s.meanRequests(), s.distribution())
	if testing.Verbose() && s.Undecided > 0 && r.Change.unchanged() {
		var parts []string
		for k, n := range s.Which {
			parts = append(parts, fmt.Sprintf("%s %.1f%%", k, s.pct(n)))
		}
		slices.Sort(parts)
		t.Logf("    undecided at the end, by gated check: %s", strings.Join(parts, "; "))
	}
}

func matrixRowsSelected() []matrixRow {
	var out []matrixRow
	for _, r := range matrixPlan() {
		if *matrixRows == "" || strings.Contains(r.name(), *matrixRows) {
			out = append(out, r)
		}
	}
	return out
}

// matrixSetup is the gate a user gets from config defaults, with the
// sequential design check uses and the bless size.
type matrixSetup struct {
	Gate   config.Gate
	Design Design
	Bless  int
	est    estimators
	// runnerOff: the busy rows' current side records no lateness, as a
	// results file from before the probe (the gate as it was).
	runnerOff bool
}

func defaultMatrixSetup() matrixSetup {
	cfg := defaultConfig()
	ms := matrixSetup{Gate: cfg.Gate, Design: NewDesign(cfg.Run.Requests, cfg.Run.Cap()), Bless: cfg.Run.BlessN()}
	for kv := range strings.SplitSeq(*matrixTol, ",") {
		k, v, ok := strings.Cut(kv, "=")
		var pct float64
		if _, err := fmt.Sscan(v, &pct); !ok || err != nil {
			continue
		}
		for i, c := range ms.Gate.Checks {
			if c.Metric+" "+c.Stat == strings.TrimSpace(k) {
				ms.Gate.Checks[i].Tolerance.Rel = pct / 100
			}
		}
	}
	for e := range strings.SplitSeq(*matrixEst, ",") {
		switch {
		case e == "ratio-p50":
			ms.est.ratioP50 = true
		case e == "equal-weights":
			ms.est.equalWeights = true
		case e == "cold=keep":
			ms.est.keepColdHeads = true
		case e == "independent":
			ms.est.independent = true
		case e == "holm=all":
			ms.est.allHolm = true
		case e == "runner=off":
			ms.runnerOff = true
		case e == "spend=linear":
			ms.Design.spend = func(t float64) float64 { return min(max(t, 0), 1) }
		case e == "spend=quadratic":
			ms.Design.spend = func(t float64) float64 { return min(max(t*t, 0), 1) }
		case e == "spend=obf":
			ms.Design.spend = obfSpend(0.025)
		case strings.HasPrefix(e, "looks="):
			var step int
			fmt.Sscan(strings.TrimPrefix(e, "looks="), &step)
			ms.Design = Design{Looks: []int{60}, levels: &levelCache{m: map[levelKey][]float64{}}}
			for n := 60 + step; n < 150; n += step {
				ms.Design.Looks = append(ms.Design.Looks, n)
			}
			ms.Design.Looks = append(ms.Design.Looks, 150)
		case strings.HasPrefix(e, "cap="):
			var last int
			fmt.Sscan(strings.TrimPrefix(e, "cap="), &last)
			ms.Design = NewDesign(ms.Design.Looks[0], last)
		case strings.HasPrefix(e, "bless="):
			fmt.Sscan(strings.TrimPrefix(e, "bless="), &ms.Bless)
		case strings.HasPrefix(e, "ok="):
			var pct float64
			fmt.Sscan(strings.TrimPrefix(e, "ok="), &pct)
			ms.Gate.OkConfidence = pct / 100
		case strings.HasPrefix(e, "day="):
			var pct float64
			fmt.Sscan(strings.TrimPrefix(e, "day="), &pct)
			ms.Gate.DayToDay = pct / 100
		}
	}
	return ms
}

// history measures r.Noise.History earlier runs of 60 requests per prompt,
// each at its own day's level, records each as `check` appends it to the
// history (history.FromResults) and returns what the app layer gives the
// gate from those records: history.Series, then LearnDayNoise.
func (ms matrixSetup) history(r matrixRow, rng *rand.Rand, days []float64) Noise {
	var recs []history.Record
	at := time.Date(2026, 1, 1, 3, 0, 0, 0, time.UTC)
	for i, day := range days {
		e := newSimTarget(r, rng.Uint64(), day, false)
		ps := newPrompts(r.Prompts)
		e.measure(ps, fill(r.Prompts, ms.Design.Looks[0]))
		f := &results.File{Schema: results.Schema, Run: results.Run{Requests: ms.Design.Looks[0]}, Targets: []results.Target{{Name: "t", Prompts: ps}}}
		recs = append(recs, history.FromResults(f, history.Meta{At: at.AddDate(0, 0, i), Command: "measure"}))
	}
	var series []DayLevels
	var want []history.Statistic
	for _, s := range GatedStats(ms.Gate) {
		want = append(want, history.Statistic(s)) // the same fields: compare imports no history
	}
	for _, l := range history.Series(recs, want) {
		// The baseline was measured before the history's first run.
		series = append(series, DayLevels{Key: NoiseKey{Target: l.Target, Region: l.Region, Metric: l.Metric, Stat: l.Stat}, Runs: l.Runs, After: len(l.Runs)})
	}
	return LearnDayNoise(series)
}

// simulate runs one bless and one check with its rounds on row r: the
// baseline, then looks until NextRound says stop, as `latgate check` does.
func (ms matrixSetup) simulate(r matrixRow, run int) matrixOutcome {
	rng := rand.New(rand.NewPCG(r.seed(), uint64(run)))
	bl, cl, hist := r.days(rng)
	be := newSimTarget(r, rng.Uint64(), bl, false)
	bp := newPrompts(r.Prompts)
	be.measure(bp, fill(r.Prompts, ms.Bless))
	ce := newSimTarget(r, rng.Uint64(), cl, true)
	cp := newPrompts(r.Prompts)
	ce.measure(cp, fill(r.Prompts, ms.Design.Looks[0]))
	setup := Setup{Design: ms.Design, est: ms.est}
	if len(hist) > 0 {
		setup.Noise = ms.history(r, rng, hist)
	}
	id := TargetID{Name: "t"}
	for {
		bs, cs := side(bp...), side(cp...)
		if r.Noise.Busy > 0 && !ms.runnerOff {
			cs.Targets[0].Lateness = lateness(r.Noise.Busy)
		}
		if r.Noise.Remote {
			bs.Targets[0].BaseURL, cs.Targets[0].BaseURL = "https://api.example.com/v1", "https://api.example.com/v1"
		}
		rep := CompareWith(bs, cs, ms.Gate, setup)
		rd, more := NextRound(rep, ms.Design)
		if !more {
			und := Undecided(rep)
			o := matrixOutcome{Regressed: rep.Verdict == Regressed, Undecided: len(und), Quiet: rep.Verdict == OK || rep.Verdict == Improved}
			for _, c := range und {
				kind := "pooled"
				if c.Prompt != "" {
					kind = "prompt"
				}
				o.Which = append(o.Which, kind+" "+c.Metric+" "+c.Stat)
			}
			for _, c := range append(rep.Aggregates, rep.Checks...) {
				if c.Metric == results.TTFT && c.Stat == "p50" && c.Verdict == OK && (c.Prompt == "") == (r.Prompts > 1) {
					o.OkTTFT = true
				}
			}
			for _, c := range rep.Checks {
				if c.Verdict == Regressed && c.Prompt != "" {
					if c.Prompt == "p00" {
						o.Named = true
					} else {
						o.Others = true
					}
				}
			}
			for _, p := range cp {
				o.Requests = append(o.Requests, len(p.Samples))
			}
			return o
		}
		n := make([]int, len(cp))
		for j := range cp {
			if to, ok := rd.Requests[id][cp[j].ID]; ok {
				n[j] = to - len(cp[j].Samples)
			}
		}
		ce.measure(cp, n)
	}
}

// TestGateMatrix prints the calibration matrix (see the top of this file)
// and then each target of issue #18 it covers, MET, NEAR (on the wrong
// side of it, within two standard errors) or MISSED with the
// figure. A miss, beyond two standard errors of its rate, fails the test.
// It runs only when asked for (-calibrate, or -matrix-runs N): .ci/run
// runs it.
func TestGateMatrix(t *testing.T) {
	if raceEnabled || !*calibrate && *matrixRuns == 0 {
		t.Skip("the calibration matrix runs with -calibrate or -matrix-runs N (and never under the race detector)")
	}
	runs := 1000
	if *matrixRuns > 0 {
		runs = *matrixRuns
	}
	ms := defaultMatrixSetup()
	var checks []string
	for _, c := range ms.Gate.Checks {
		checks = append(checks, fmt.Sprintf("%s %s %s", c.Metric, c.Stat, pctNum(c.Tolerance.Rel)))
	}
	t.Logf("checks: %s; estimator experiments %q", strings.Join(checks, ", "), *matrixEst)
	t.Logf("gate at the defaults: looks %v requests per prompt, bless %d, %d%% confidence (a regression %s sure), an ok %s sure, day-to-day noise assumed %s per run without history; %d runs per unchanged row, %d per changed row, seeds from each row's name",
		ms.Design.Looks, ms.Bless, int(100*ms.Gate.Confidence), fmtConf((1+ms.Gate.Confidence)/2)+"%", fmtConf(cmp.Or(ms.Gate.OkConfidence, (1+ms.Gate.Confidence)/2))+"%", dayToDayOf(ms.Gate), runs, max(1, runs*2/5))
	matrixHeader(t)
	var targets []matrixTarget
	for _, r := range matrixRowsSelected() {
		n := runs
		if !r.Change.unchanged() {
			n = max(1, runs*2/5)
		}
		s := runRow(t, r, n, ms.simulate)
		matrixLine(t, r, s)
		targets = append(targets, r.targets(s)...)
	}
	t.Log("targets of issue #18 (rates per run; ±: two standard errors of the rate at its target):")
	for _, g := range targets {
		met := g.met()
		word := "MET"
		switch {
		case !met:
			word = "MISSED"
		case g.atMost && g.got > g.bound || !g.atMost && g.got < g.bound:
			// Within two standard errors of the target, but on its wrong
			// side: not a failure of this run's count, not a target met.
			word = "NEAR"
		}
		t.Logf("  %-6s %s: %s", word, g.what, g.figure())
		if !met {
			t.Errorf("target missed: %s: %s", g.what, g.figure())
		}
	}
}

// matrixTarget is one criterion of the issue on one row: a rate (in %) that
// must be at most (or at least) a bound, given the runs behind it.
type matrixTarget struct {
	what       string
	got, bound float64
	atMost     bool
	runs       int
	unit       string
	se         float64 // standard error of a mean (unit ""); rates use the binomial one
}

func (g matrixTarget) slack() float64 {
	if g.unit != "%" {
		return 2 * g.se
	}
	p := g.bound / 100
	return 200 * math.Sqrt(p*(1-p)/float64(max(g.runs, 1)))
}

func (g matrixTarget) met() bool {
	if g.atMost {
		return g.got <= g.bound+g.slack()
	}
	return g.got >= g.bound-g.slack()
}

func (g matrixTarget) figure() string {
	op := "≥"
	if g.atMost {
		op = "≤"
	}
	return fmt.Sprintf("%.1f%s, want %s %g%s (±%.1f, %d runs)", g.got, g.unit, op, g.bound, g.unit, g.slack(), g.runs)
}

// sdOf is the sample standard deviation.
func sdOf(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	var m, v float64
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return math.Sqrt(v / float64(len(xs)-1))
}

// targets are the criteria that apply to row r.
func (r matrixRow) targets(s matrixStats) []matrixTarget {
	name := r.name()
	pct := func(what string, got, bound float64, atMost bool) matrixTarget {
		return matrixTarget{what: name + ": " + what, got: got, bound: bound, atMost: atMost, runs: s.Runs, unit: "%"}
	}
	var out []matrixTarget
	day := r.Noise.Day > 0
	switch {
	case r.Noise.AR.Sigma > 0 && r.Change.unchanged():
		// Correlated requests (#29): a level that wanders within a run is
		// a run-level noise the intervals carry (Wander).
		out = append(out, pct("false regressed", s.pct(s.Regressed), 1, true))
	case r.Noise.AR.Sigma > 0:
		// Caught: printed, not a target. The wander's run-level noise is
		// in the information itself (the baseline's run level is one draw
		// of it, whatever the run measures): see docs/gate.md.
	case r.Noise.Busy > 0 && r.Change.unchanged():
		out = append(out, pct("false regressed (a busy runner blamed on the endpoint)", s.pct(s.Regressed), 1, true))
	case r.Noise.Busy > 0:
		out = append(out, pct("caught (a change far beyond the runner's delay)", s.pct(s.Regressed), 90, false))
	case r.Change.AtTolerance && r.Change.One:
		// One prompt exactly at its tolerance, the others unchanged: a
		// regression named is a false one, at the margin of the prompt
		// tests' family (α/2 = 2.5% at the gate's 95%).
		out = append(out, pct("regressed at its tolerance (the prompt tests' family at the margin)", s.pct(s.Regressed), 2.5, true))
	case r.Change.AtTolerance:
		out = append(out, pct("ttft p50 ok at its tolerance (an ok's miss; ok_confidence 90% by default)", s.pct(s.OkTTFT), 10, true))
	case r.Noise.Remote && r.Change.unchanged():
		out = append(out, pct("false regressed", s.pct(s.Regressed), 2, true))
	case r.Noise.Remote:
		out = append(out, pct("ends quietly ok (exit 0, nothing undecided)", s.pct(s.Quiet), 10, true))
	case r.Change.unchanged() && r.Noise.Day == 0.05 && r.Noise.History > 0 && r.Prompts == 10:
		// Modest day noise learned from 20 runs (#29): most runs decide.
		out = append(out, pct("false regressed", s.pct(s.Regressed), 1, true),
			pct("runs with an undecided gated check", s.pct(s.Undecided), 25, true))
	case r.Change.unchanged() && day && r.Noise.History == 0:
		// The rate the default gives without a history: printed in the
		// row, not a target.
	case r.Change.unchanged():
		out = append(out, pct("false regressed", s.pct(s.Regressed), 1, true))
		if !day && r.Noise.Slow.Prob == 0 && !strings.Contains(r.Noise.Name, "σ 0.8") {
			u := pct("runs with an undecided gated check", s.pct(s.Undecided), 20, true)
			m := matrixTarget{what: name + ": mean requests per prompt", got: s.meanRequests(), bound: 90, atMost: true, runs: s.Runs, unit: "",
				se: sdOf(s.RunMeans) / math.Sqrt(float64(max(len(s.RunMeans), 1)))}
			out = append(out, u, m)
		}
	case r.Change.One && r.Change.TTFT < 1.5:
		// Twice its tolerance (#29): pooling must not hide it. That the run
		// fails naming it ≥ 90% is beyond the information at the default
		// cap (a test of that one prompt with no adjustment for the other
		// prompt tests fails it 79% of runs): its rate is printed in the
		// row, and the target is that it never passes quietly.
		out = append(out, pct("ends quietly ok (exit 0, nothing undecided)", s.pct(s.Quiet), 5, true),
			pct("names another prompt", s.pct(s.Others), 1, true))
	case r.Change.One:
		out = append(out, pct("fails the run naming the changed prompt", s.pct(s.Named), 90, false),
			pct("names another prompt", s.pct(s.Others), 1, true))
	case r.Change.TTFT == 1.3 && r.Prompts == 10:
		out = append(out, pct("caught", s.pct(s.Regressed), 95, false))
	case r.Change.TTFT == 1.3 && r.Prompts == 2:
		out = append(out, pct("caught", s.pct(s.Regressed), 90, false))
	case r.Change.All == 1.3:
		out = append(out, pct("caught", s.pct(s.Regressed), 99, false))
	}
	return out
}

// dayToDayOf is the gate's assumed day-to-day noise as the header says it.
func dayToDayOf(g config.Gate) string {
	if g.DayToDay < 0 {
		return fmt.Sprintf("±%s (a local endpoint; hosted rows ±%s)", pctNum(config.DefaultDayToDay), pctNum(config.DefaultDayToDayRemote))
	}
	return "±" + pctNum(g.DayToDay)
}

// pctNum and fmtConf format the gate's settings in the matrix's header.
func pctNum(x float64) string {
	v := 100 * x
	if v < 10 && math.Abs(v-math.Round(v)) > 0.05 {
		return fmt.Sprintf("%.1f%%", v)
	}
	return fmt.Sprintf("%.0f%%", v)
}

func fmtConf(c float64) string { return fmt.Sprintf("%.4g", c*100) }
