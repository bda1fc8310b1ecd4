package compare

import (
	"cmp"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/sim"
)

// The calibration of `latgate ab`: what CompareAB decides, per run, on the
// simulator's latency model (sim.Profile.PlanAt, the server's own schedule
// code) with the level jumping between ×1 and ×1.3 every 1.5 s of wall time,
// measured in the interleaved blocks of measure.RunAB at concurrency 2, with
// the default gate and the sequential looks of `ab` (NextRound). Model-based:
// no HTTP; requests take their planned time, the level is the one at each
// request's start. The table:
//
//	go test ./pkg/compare/ -run ABCalibration -v -args -ab-calibrate
//
// (1000 unchanged / 400 changed runs per row, about 15 minutes on two busy
// cores; -ab-calibrate-runs N runs N unchanged and N/2 changed, which CI
// does with 200). Without either flag the test is skipped: it takes minutes.

var (
	abCalibrate = flag.Bool("ab-calibrate", false, "run TestABCalibration with 1000 unchanged / 400 changed runs per row")
	abCalRuns   = flag.Int("ab-calibrate-runs", 0, "run TestABCalibration with N unchanged / N/2 changed runs per row")
	abCalRows   = flag.String("ab-calibrate-rows", "", "run only the rows of TestABCalibration whose endpoint or candidate contains this")
)

// abEndpoint is a simulated endpoint of the calibration.
type abEndpoint struct {
	Name    string
	Profile sim.Profile
	// Target marks the endpoint the targets apply to (the
	// simulator's default profile); the others' rows are printed only.
	Target bool
}

func abEndpoints() []abEndpoint {
	def, err := sim.Preset("default")
	if err != nil {
		panic(err)
	}
	hosted := def
	hosted.TTFT = sim.Dist{Median: 400 * time.Millisecond, Sigma: 0.3, Spike: 0.02, SpikeX: 4}
	hosted.ITL = sim.Dist{Median: 10 * time.Millisecond, Sigma: 0.3, Spike: 0.02, SpikeX: 4}
	hosted.ITLRequestSigma = 0.15
	hosted.Tokens = 32
	return []abEndpoint{
		{"simulator default (TTFT 120 ms σ0.25, ITL 4 ms σ0.2, 24 tokens)", def, true},
		{"hosted API (TTFT 400 ms, ITL 10 ms, σ0.3, 2% spikes ×4, correlated gaps σ0.15)", hosted, false},
	}
}

// abScenario is one row: how the candidate differs, and the endpoint's level.
type abScenario struct {
	Name       string
	Same       bool    // identical configs: one endpoint serves both sides
	TTFTFactor float64 // the candidate's factor on its TTFT
	Slowdown   float64 // the candidate's factor on every delay
	Level      sim.LevelJumps
	Prompts    int // 0: the table's default (2)
	// Example runs the row with the gate of examples/latgate.yaml (what
	// `latgate init` writes: TTFT p50 20%, p90 35%, with floors) instead of
	// the default gate.
	Example bool
}

// exampleGate is examples/latgate.yaml's gate.
func exampleGate() config.Gate {
	c, err := config.Load("../../examples/latgate.yaml", config.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		panic(err)
	}
	return c.Gate
}

// abCalRun is what one simulated `latgate ab` ended with.
type abCalRun struct {
	Verdict   Verdict
	Undecided bool     // some check or aggregate ended inconclusive
	Requests  []int    // candidate requests per prompt at the end
	Faster    []string // the pooled checks' Faster, "metric stat side"
	Rep       Report
}

// abSim is the interleaved run of one calibration run: both sides' sims,
// the workers' clock, and the samples so far.
type abSim struct {
	prof    [2]sim.Profile
	shared  bool // one simulator for both sides (seq counted together)
	next    [2]int
	workers []time.Duration // when each worker is free, from the run's start
	t0      time.Time       // the run's start on the wall clock
	tokens  int
	samples [2][][]results.Sample // side × prompt
	blocks  []int                 // blocks per prompt
	rng     *rand.Rand
}

// request plans one request of side s starting at the first free worker,
// as the simulator would serve it, and returns its sample.
func (a *abSim) request(s, block int) results.Sample {
	w := 0
	for i, t := range a.workers {
		if t < a.workers[w] {
			w = i
		}
	}
	start := a.workers[w]
	k := s
	if a.shared {
		k = 0
	}
	a.next[k]++
	pl := a.prof[s].PlanAt(a.next[k], a.tokens, a.t0.Add(start))
	a.workers[w] = start + pl.Finish
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	smp := results.Sample{Seq: block, AtMS: ms(start), TTFB: ms(pl.Header), TTFT: ms(pl.Tokens[0]), TTFCT: ms(pl.Tokens[0]), HasContent: true,
		Total: ms(pl.Finish), OutputTokens: len(pl.Tokens), Chunks: len(pl.Tokens), TokenSource: "usage"}
	smp.ITL = make([]float64, len(pl.Tokens)-1)
	for i := range smp.ITL {
		smp.ITL[i] = ms(pl.Tokens[i+1] - pl.Tokens[i])
		smp.MaxStall = max(smp.MaxStall, smp.ITL[i])
	}
	if len(pl.Tokens) > 1 && pl.Finish > pl.Tokens[0] {
		smp.TPOT = ms(pl.Finish-pl.Tokens[0]) / float64(len(pl.Tokens)-1)
		smp.TokensPerS = float64(len(pl.Tokens)-1) / (ms(pl.Finish-pl.Tokens[0]) / 1000)
	}
	return smp
}

// round measures n more blocks of each prompt in ids (all when nil), in
// rounds of one block per prompt, each block in a random order (AB or BA).
func (a *abSim) round(ids []int, n int) {
	for range n {
		for _, p := range ids {
			a.blocks[p]++
			first := a.rng.IntN(2)
			for _, s := range []int{first, 1 - first} {
				a.samples[s][p] = append(a.samples[s][p], a.request(s, a.blocks[p]))
			}
		}
	}
}

func (a *abSim) sides() (Side, Side) {
	var out [2]Side
	for s := range out {
		var ps []results.Prompt
		for p, ss := range a.samples[s] {
			ps = append(ps, prompt(fmt.Sprintf("p%d", p), ss))
		}
		out[s] = side(ps...)
	}
	return out[0], out[1]
}

// simulateAB runs one `latgate ab`: both sides interleaved, looks until
// NextRound says stop.
func simulateAB(e abEndpoint, sc abScenario, gate config.Gate, d Design, prompts, conc, run int) abCalRun {
	rng := rand.New(rand.NewPCG(uint64(run), 0xab_ca1))
	base := e.Profile
	base.Level = sc.Level
	base.Seed = uint64(run)<<1 | 1
	cand := base
	if !sc.Same {
		cand.Seed = uint64(run) << 1 // another simulator: its own draws
		cand.TTFTFactor = sc.TTFTFactor
		cand.Slowdown = sc.Slowdown
	}
	per := sc.Level.Period
	if per == 0 {
		per = sim.DefaultLevelPeriod
	}
	a := &abSim{
		prof: [2]sim.Profile{base, cand}, shared: sc.Same, workers: make([]time.Duration, conc),
		// the run starts anywhere in the level's cycle
		t0:      time.Unix(0, 0).Add(time.Duration(rng.Int64N(int64(2 * per)))),
		tokens:  e.Profile.Tokens,
		samples: [2][][]results.Sample{make([][]results.Sample, prompts), make([][]results.Sample, prompts)},
		blocks:  make([]int, prompts), rng: rng,
	}
	all := make([]int, prompts)
	for i := range all {
		all[i] = i
	}
	a.round(all, d.Looks[0])
	gate.Seed = int64(run)
	for {
		b, c := a.sides()
		rep := CompareAB(b, c, gate, d)
		r, more := NextRound(rep, d)
		if !more {
			out := abCalRun{Verdict: rep.Verdict, Rep: rep}
			for _, ch := range slices.Concat(rep.Checks, rep.Aggregates) {
				if ch.Verdict == Inconclusive {
					out.Undecided = true
				}
			}
			for _, ch := range rep.Aggregates {
				out.Faster = append(out.Faster, ch.Metric+" "+ch.Stat+" "+ch.Faster())
			}
			for p := range prompts {
				out.Requests = append(out.Requests, a.blocks[p])
			}
			return out
		}
		var ids []int
		for p := range prompts {
			if slices.Contains(r.Prompts[TargetID{Name: "t"}], fmt.Sprintf("p%d", p)) {
				ids = append(ids, p)
			}
		}
		// Every extended prompt is topped up to the next look.
		for _, p := range ids {
			a.round([]int{p}, r.To-a.blocks[p])
		}
	}
}

// abOutcome summarises the runs of one row.
type abOutcome struct {
	Runs, Regressed, Undecided, VerdictInconclusive int
	Requests                                        []int
	Faster                                          map[string]int // "metric stat side" → runs
}

func (o abOutcome) pct(n int) float64 { return 100 * float64(n) / float64(max(o.Runs, 1)) }

func (o abOutcome) meanRequests() float64 {
	var s int
	for _, n := range o.Requests {
		s += n
	}
	return float64(s) / float64(max(len(o.Requests), 1))
}

func (o abOutcome) distribution() string {
	count := map[int]int{}
	for _, n := range o.Requests {
		count[n]++
	}
	var keys []int
	for k := range count {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d: %.0f%%", k, 100*float64(count[k])/float64(len(o.Requests))))
	}
	return strings.Join(parts, ", ")
}

func calibrateAB(e abEndpoint, sc abScenario, gate config.Gate, d Design, prompts, conc, runs int) abOutcome {
	o := abOutcome{Runs: runs, Faster: map[string]int{}}
	for run := range runs {
		r := simulateAB(e, sc, gate, d, prompts, conc, run)
		switch r.Verdict {
		case Regressed:
			o.Regressed++
		case Inconclusive:
			o.VerdictInconclusive++
		}
		if r.Undecided {
			o.Undecided++
		}
		o.Requests = append(o.Requests, r.Requests...)
		for _, f := range r.Faster {
			o.Faster[f]++
		}
	}
	return o
}

// TestABCalibration prints the per-run rates of `latgate ab` at the default
// gate and fails when the targets are missed by more than the runs
// can resolve: identical configs pass in ≥ 99% of runs, a candidate with
// TTFT +30% fails in ≥ 95%, a candidate 30% faster is reported faster.
func TestABCalibration(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("calibration: skipped with -short and under the race detector")
	}
	var same, changed int
	switch {
	case *abCalibrate:
		same, changed = 1000, 400
	case *abCalRuns > 0:
		same, changed = *abCalRuns, max(*abCalRuns/2, 1)
	default:
		t.Skip("calibration: takes minutes; run with -args -ab-calibrate (1000/400 runs per row) or -ab-calibrate-runs N")
	}
	cfg := defaultConfig()
	gate := cfg.Gate
	d := NewDesign(cfg.Run.Requests, cfg.Run.Cap())
	const prompts, conc = 2, 2 // the defaults of the rows
	jump := sim.LevelJumps{X: 1.3, Period: 1500 * time.Millisecond}
	t.Logf("model-based (sim.Profile.PlanAt, no HTTP): default gate (%s), looks %v requests per prompt and side, %d prompts, concurrency %d in all, seeds = run number 0…N−1",
		checksOf(gate), d.Looks, prompts, conc)
	t.Log("| endpoint | candidate | level | runs | fails (regressed) | undecided verdict | any check undecided | pooled checks: candidate faster | mean requests/prompt/side | requests per prompt at the end |")
	t.Log("|---|---|---|--:|--:|--:|--:|---|--:|---|")
	se := func(p float64, n int) float64 { return 100 * math.Sqrt(p*(1-p)/float64(n)) }
	scenarios := []abScenario{
		{Name: "identical config", Same: true, Level: jump},
		{Name: "identical config", Same: true},
		{Name: "TTFT +30%", TTFTFactor: 1.3, Level: jump},
		{Name: "TTFT +20%", TTFTFactor: 1.2, Level: jump},
		{Name: "30% faster (every delay ×0.7)", Slowdown: 0.7, Level: jump},
		{Name: "TTFT −38%, ITL +12%", TTFTFactor: 0.62 / 1.12, Slowdown: 1.12, Level: jump},
		{Name: "identical config, 4 prompts", Same: true, Level: jump, Prompts: 4},
		{Name: "TTFT +30%, 4 prompts", TTFTFactor: 1.3, Level: jump, Prompts: 4},
		{Name: "identical config, the example's gate", Same: true, Level: jump, Example: true},
		{Name: "TTFT +30%, the example's gate", TTFTFactor: 1.3, Level: jump, Example: true},
	}
	for _, e := range abEndpoints() {
		for _, sc := range scenarios {
			if f := *abCalRows; f != "" && !strings.Contains(e.Name+" "+sc.Name, f) {
				continue
			}
			runs := changed
			if sc.Same {
				runs = same
			}
			g := gate
			if sc.Example {
				g = exampleGate()
			}
			o := calibrateAB(e, sc, g, d, cmp.Or(sc.Prompts, prompts), conc, runs)
			level := "steady"
			if sc.Level.X != 0 {
				level = fmt.Sprintf("jumps ×1/×%g every %v", sc.Level.X, sc.Level.Period)
			}
			var faster []string
			for _, c := range gate.Checks {
				k := c.Metric + " " + c.Stat
				faster = append(faster, fmt.Sprintf("%s %.0f%%", k, o.pct(o.Faster[k+" candidate"])))
			}
			t.Logf("| %s | %s | %s | %d | %.1f%% | %.1f%% | %.1f%% | %s | %.1f | %s |", e.Name, sc.Name, level, o.Runs,
				o.pct(o.Regressed), o.pct(o.VerdictInconclusive), o.pct(o.Undecided), strings.Join(faster, ", "), o.meanRequests(), o.distribution())
			switch {
			case !e.Target:
			case sc.Same:
				if got, limit := o.pct(o.Regressed), 1+2*se(0.01, o.Runs); got > limit {
					t.Errorf("%s, %s, %s: failed %.1f%% of runs, want ≤ 1%% (%.1f%% with two standard errors)", e.Name, sc.Name, level, got, limit)
				}
			case sc.TTFTFactor == 1.3 && !sc.Example:
				if got, limit := o.pct(o.Regressed), 95-2*se(0.95, o.Runs); got < limit {
					t.Errorf("%s, %s: failed %.1f%% of runs, want ≥ 95%% (%.1f%% with two standard errors)", e.Name, sc.Name, got, limit)
				}
			case sc.Slowdown == 0.7:
				for _, c := range gate.Checks {
					k := c.Metric + " " + c.Stat
					if got, limit := o.pct(o.Faster[k+" candidate"]), 95-2*se(0.95, o.Runs); got < limit {
						t.Errorf("%s, %s: %s reported faster in %.1f%% of runs, want ≥ 95%% (%.1f%%)", e.Name, sc.Name, k, got, limit)
					}
				}
				if o.Regressed > 0 {
					t.Errorf("%s, %s: a faster candidate failed %d runs", e.Name, sc.Name, o.Regressed)
				}
			}
		}
	}
}

// checksOf names a gate's checks with their tolerances: "ttft p50 20%, …".
func checksOf(g config.Gate) string {
	var parts []string
	for _, c := range g.Checks {
		parts = append(parts, fmt.Sprintf("%s %s %.0f%%", c.Metric, c.Stat, 100*c.Tolerance.Rel))
	}
	return strings.Join(parts, ", ")
}
