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

// The gate's calibration: what the default gate says on the simulator's
// latency model, with the sequential looks check uses. Every figure comes
// from seeded runs and is printed with its run count. Run the full table with
//
//	go test ./pkg/compare/ -run GateCalibration -v -args -calibrate
//
// (CI runs the same code with fewer runs; see TestGateCalibration).

var calRuns = flag.Int("calibrate-runs", 0, "runs per scenario of TestGateCalibration (default 1000 unchanged / 400 slowed with -calibrate, else 200 / 100)")

// simEndpoint is a simulated endpoint: the simulator's latency model.
type simEndpoint struct {
	Name   string
	TTFT   sim.Dist
	ITL    sim.Dist
	Tokens int
}

// calEndpoints are the two profiles: lognormal σ 0.3 with 2% spikes ×4.
func calEndpoints() []simEndpoint {
	d := func(m time.Duration) sim.Dist { return sim.Dist{Median: m, Sigma: 0.3, Spike: 0.02, SpikeX: 4} }
	return []simEndpoint{
		{"fast self-hosted (TTFT 40 ms, ITL 2 ms)", d(40 * time.Millisecond), d(2 * time.Millisecond), 32},
		{"hosted API (TTFT 400 ms, ITL 10 ms)", d(400 * time.Millisecond), d(10 * time.Millisecond), 32},
	}
}

// calSetup is how the gate is run: the defaults a user gets.
type calSetup struct {
	Gate     config.Gate
	Design   Design
	Bless    int     // baseline requests per prompt
	Prompts  int     // prompts per run
	Drift    float64 // the current run's level relative to the baseline's is uniform in [1−Drift, 1+Drift]
	Slowdown float64 // the current run's extra factor on every delay
	TTFTOnly bool    // Slowdown applies to the TTFT only
}

// calRun is what one simulated check ended with.
type calRun struct {
	Verdict      Verdict
	Inconclusive bool  // some check or aggregate ended inconclusive
	Requests     []int // current requests per prompt at the end
	Looks        int
	Undecided    []string // the checks left inconclusive, "prompt metric stat"
}

// draw returns n samples of prompt p of one run from the simulator's own
// schedule code (sim.Profile.Plan), requests numbered from `from`.
func (e simEndpoint) draw(seed uint64, level, ttftFactor float64, from, n int) []results.Sample {
	prof := sim.Profile{TTFT: e.TTFT, ITL: e.ITL, Tokens: e.Tokens, Slowdown: level, TTFTFactor: ttftFactor, Seed: seed}
	out := make([]results.Sample, n)
	for i := range out {
		seq := from + i + 1
		pl := prof.Plan(seq, e.Tokens)
		ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
		s := results.Sample{Seq: seq, TTFB: ms(pl.Header), TTFT: ms(pl.Tokens[0]), TTFCT: ms(pl.Tokens[0]), HasContent: true,
			Total: ms(pl.Finish), OutputTokens: len(pl.Tokens), Chunks: len(pl.Tokens)}
		s.ITL = make([]float64, len(pl.Tokens)-1)
		for k := range s.ITL {
			s.ITL[k] = ms(pl.Tokens[k+1] - pl.Tokens[k])
			s.MaxStall = max(s.MaxStall, s.ITL[k])
		}
		out[i] = s
	}
	return out
}

// simulateCheck runs one bless and one sequential check: baseline, then
// looks until NextRound says stop — the loop of `latgate check`.
func simulateCheck(e simEndpoint, cs calSetup, run int) calRun {
	rng := rand.New(rand.NewPCG(uint64(run), 0x9a7e))
	baseLevel, curLevel, ttftFactor := 1.0, (1+cs.Drift*(2*rng.Float64()-1))*cs.Slowdown, 1.0
	if cs.TTFTOnly {
		curLevel, ttftFactor = curLevel/cs.Slowdown, cs.Slowdown
	}
	var bp, cp []results.Prompt
	for i := range cs.Prompts {
		id := fmt.Sprintf("p%d", i)
		bp = append(bp, prompt(id, e.draw(uint64(run)<<8|uint64(2*i), baseLevel, 1, 0, cs.Bless)))
		cp = append(cp, prompt(id, e.draw(uint64(run)<<8|uint64(2*i+1), curLevel, ttftFactor, 0, cs.Design.Looks[0])))
	}
	base := side(bp...)
	gate := cs.Gate
	gate.Seed = int64(run)
	out := calRun{Looks: 1}
	for {
		rep := CompareSequential(base, side(cp...), gate, cs.Design)
		r, more := NextRound(rep, cs.Design)
		if !more {
			out.Verdict = rep.Verdict
			for _, c := range slices.Concat(rep.Checks, rep.Aggregates) {
				if c.Verdict == Inconclusive {
					out.Inconclusive = true
					out.Undecided = append(out.Undecided, cmp.Or(c.Prompt, "aggregate")+" "+c.Metric+" "+c.Stat)
				}
			}
			for _, p := range cp {
				out.Requests = append(out.Requests, len(p.Samples))
			}
			return out
		}
		out.Looks++
		for i := range cp {
			if !slices.Contains(r.Prompts[TargetID{Name: "t"}], cp[i].ID) {
				continue
			}
			have := len(cp[i].Samples)
			more := e.draw(uint64(run)<<8|uint64(2*i+1), curLevel, ttftFactor, have, r.To-have)
			cp[i] = prompt(cp[i].ID, append(slices.Clip(cp[i].Samples), more...))
		}
	}
}

// calOutcome summarises runs of one scenario.
type calOutcome struct {
	Runs, Regressed, Inconclusive int
	VerdictInconclusive           int   // runs whose verdict is inconclusive (no regression, some check undecided)
	Requests                      []int // per prompt, every run
	Undecided                     map[string]int
}

func (o calOutcome) pct(n int) float64 { return 100 * float64(n) / float64(max(o.Runs, 1)) }

func (o calOutcome) meanRequests() float64 {
	var s int
	for _, n := range o.Requests {
		s += n
	}
	return float64(s) / float64(max(len(o.Requests), 1))
}

// distribution formats how many prompts ended at each request count.
func (o calOutcome) distribution() string {
	count := map[int]int{}
	for _, n := range o.Requests {
		count[n]++
	}
	keys := make([]int, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d: %.1f%%", k, 100*float64(count[k])/float64(len(o.Requests))))
	}
	return strings.Join(parts, ", ")
}

func calibrateScenario(e simEndpoint, cs calSetup, runs int) calOutcome {
	o := calOutcome{Runs: runs, Undecided: map[string]int{}}
	for run := range runs {
		r := simulateCheck(e, cs, run)
		if r.Verdict == Regressed {
			o.Regressed++
		}
		if r.Inconclusive {
			o.Inconclusive++
		}
		if r.Verdict == Inconclusive {
			o.VerdictInconclusive++
		}
		o.Requests = append(o.Requests, r.Requests...)
		for _, k := range r.Undecided {
			o.Undecided[k]++
		}
	}
	return o
}

// defaultSetup is the gate a user gets from config defaults, with the
// sequential design check uses.
func defaultSetup() calSetup {
	cfg := defaultConfig()
	return calSetup{
		Gate:    cfg.Gate,
		Design:  NewDesign(cfg.Run.Requests, cfg.Run.Cap()),
		Bless:   cfg.Run.BlessN(),
		Prompts: 2, Drift: 0.07, Slowdown: 1,
	}
}

// TestGateCalibration prints the gate's false alarms, inconclusive runs,
// power and requests at the defaults on both simEndpoint profiles, and fails
// when the targets are missed by more than the runs can resolve.
func TestGateCalibration(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("calibration: skipped with -short and under the race detector")
	}
	same, slowed := 200, 100
	if *calibrate {
		same, slowed = 1000, 400
	}
	if *calRuns > 0 {
		same, slowed = *calRuns, *calRuns
	}
	cs := defaultSetup()
	t.Logf("defaults: run.requests %d, run.max_requests %d (looks %v), bless %d requests, %d prompts, current run's level ±%.0f%% of the baseline's (uniform), confidence %.0f%%",
		cs.Design.Looks[0], cs.Design.Last(), cs.Design.Looks, cs.Bless, cs.Prompts, 100*cs.Drift, 100*cs.Gate.Confidence)
	t.Log("| endpoint | change | runs | regressed | verdict inconclusive | any check inconclusive | mean requests/prompt | requests/prompt: share of prompts |")
	t.Log("|---|---|--:|--:|--:|--:|--:|---|")
	// se is the standard error of a rate p over n runs, in percent: the
	// targets are checked with two of them to spare, so a seeded run that
	// misses is a broken gate, not bad luck.
	se := func(p float64, n int) float64 { return 100 * math.Sqrt(p*(1-p)/float64(n)) }
	type change struct {
		slow     float64
		ttftOnly bool
	}
	changes := []change{{1, false}, {1.2, false}, {1.3, false}, {1.5, false}}
	if *calibrate {
		// Not a target of the issue, printed for honesty: a slower TTFT
		// alone has only the TTFT checks to catch it.
		changes = append(changes, change{1.3, true}, change{1.5, true})
	}
	for _, e := range calEndpoints() {
		for _, ch := range changes {
			slow := ch.slow
			sc := cs
			sc.Slowdown, sc.TTFTOnly = slow, ch.ttftOnly
			runs := slowed
			if slow == 1 {
				runs = same
			}
			o := calibrateScenario(e, sc, runs)
			change := "unchanged"
			switch {
			case ch.ttftOnly:
				change = fmt.Sprintf("+%.0f%% TTFT only", 100*(slow-1))
			case slow != 1:
				change = fmt.Sprintf("+%.0f%% TTFT and ITL", 100*(slow-1))
			}
			t.Logf("| %s | %s | %d | %.1f%% | %.1f%% | %.1f%% | %.1f | %s |", e.Name, change, o.Runs,
				o.pct(o.Regressed), o.pct(o.VerdictInconclusive), o.pct(o.Inconclusive), o.meanRequests(), o.distribution())
			if testing.Verbose() && slow == 1 {
				var parts []string
				for k, n := range o.Undecided {
					parts = append(parts, fmt.Sprintf("%s %.1f%%", k, o.pct(n)))
				}
				slices.Sort(parts)
				t.Logf("    undecided at the end, by check: %s", strings.Join(parts, "; "))
			}
			switch {
			case ch.ttftOnly:
			case slow == 1:
				if got, limit := o.pct(o.Regressed), 1+2*se(0.01, o.Runs); got > limit {
					t.Errorf("%s unchanged: regressed in %.1f%% of runs, want ≤ 1%% (%.1f%% with two standard errors)", e.Name, got, limit)
				}
				if got, limit := o.pct(o.Inconclusive), 20+2*se(0.2, o.Runs); got > limit {
					t.Errorf("%s unchanged: %.1f%% of runs end with an inconclusive check, want ≤ 20%% (%.1f%%)", e.Name, got, limit)
				}
				if got := o.meanRequests(); got > 90 {
					t.Errorf("%s unchanged: %.1f requests per prompt on average, want ≤ 90 (1.5 × 60)", e.Name, got)
				}
			case slow > 1:
				want := map[float64]float64{1.2: 0.60, 1.3: 0.95, 1.5: 0.99}[slow]
				if got, limit := o.pct(o.Regressed), 100*want-2*se(want, o.Runs); got < limit {
					t.Errorf("%s %s: caught in %.1f%% of runs, want ≥ %.0f%% (%.1f%% with two standard errors)", e.Name, change, got, 100*want, limit)
				}
			}
		}
	}
}

// defaultConfig is what config.Parse fills in for a config without run or
// gate sections.
func defaultConfig() *config.Config {
	c, err := config.Parse([]byte("targets: [{name: t, base_url: sim, model: m}]\nprompts: [{id: p, messages: [{role: user, content: hi}]}]\n"), "defaults.yaml", config.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		panic(err)
	}
	return c
}
