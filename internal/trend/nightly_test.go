package trend

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/latgate/latgate/internal/history"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/sim"
	"github.com/latgate/latgate/pkg/stats"
)

// The nightly histories of the calibrations: the built-in simulator's
// default latency model (pkg/sim: TTFT lognormal 120 ms σ 0.25, ITL 4 ms
// σ 0.2, 24 tokens), its delays multiplied each night by a scale (sim's
// slowdown) that carries the night's noise — independent from night to
// night, or AR(1) (a slow night makes a slow next night likelier) — and the
// scenario's true change. Each night measures P prompts × 60 requests, as
// check does with the default run.requests; the baseline is blessed the
// night before the first (bless measures 4 × 60 requests), and the gate is
// the default one (config.DefaultChecks: ttft p50 20%, ttft p90 35%, itl
// p50 15%, itl p95 25%, floors at latgate's timing resolution).

const nightRequests = 60

var night0 = time.Date(2026, 11, 1, 3, 0, 0, 0, time.UTC)

// noiseModel is the night-to-night variation of the endpoint's scale: ln of
// the scale is AR(1) with autocorrelation Rho and marginal σ Sigma (Rho 0:
// independent nights).
type noiseModel struct {
	Sigma, Rho float64
}

func (m noiseModel) String() string {
	if m.Rho == 0 {
		return fmt.Sprintf("i.i.d. σ %.2f", m.Sigma)
	}
	return fmt.Sprintf("AR(1) ρ %.1f σ %.2f", m.Rho, m.Sigma)
}

// scenario is a true scale per night (1-based) and the noise around it.
// prompt, when set, is a scale of its own for one prompt's night (index
// into the prompts), on top of scale: a change that only one prompt shows.
// weekend multiplies Saturday's and Sunday's nights (0: none).
// own is each prompt's own night-to-night noise, independent between
// prompts, on top of the shared one (zero: none).
type scenario struct {
	name    string
	scale   func(night int) float64
	prompt  func(night, prompt int) float64
	noise   noiseModel
	own     noiseModel
	weekend float64
}

// withOwnNoise adds each prompt's own noise n to sc.
func withOwnNoise(sc scenario, n noiseModel) scenario {
	sc.own = n
	sc.name += ", each prompt's own " + n.String()
	return sc
}

// onePromptStep is a step of factor at night at on prompt 0 only.
func onePromptStep(at int, factor float64, n noiseModel) scenario {
	return scenario{name: fmt.Sprintf("%+.0f%% step at night %d on 1 prompt of %d, %s", 100*(factor-1), at, calPrompts, n), scale: func(int) float64 { return 1 },
		prompt: func(k, p int) float64 {
			if p == 0 && k >= at {
				return factor
			}
			return 1
		}, noise: n}
}

// withWeekend adds a weekend effect of factor to sc.
func withWeekend(sc scenario, factor float64) scenario {
	sc.weekend = factor
	sc.name += fmt.Sprintf(", weekends %+.0f%%", 100*(factor-1))
	return sc
}

func flatScenario(n noiseModel) scenario {
	return scenario{name: "flat, " + n.String(), scale: func(int) float64 { return 1 }, noise: n}
}

func stepScenario(at int, factor float64, n noiseModel) scenario {
	return scenario{name: fmt.Sprintf("%+.0f%% step at night %d, %s", 100*(factor-1), at, n), scale: func(k int) float64 {
		if k >= at {
			return factor
		}
		return 1
	}, noise: n}
}

func driftScenario(perNight float64, n noiseModel) scenario {
	return scenario{name: fmt.Sprintf("%+.1f%%/night from night 1, %s", 100*(perNight-1), n), scale: func(k int) float64 { return math.Pow(perNight, float64(k-1)) }, noise: n}
}

// nightly is one simulated history: its records (night 1 first) and the
// spec of the default gate against the baseline blessed on night 0.
type nightly struct {
	records []history.Record
	spec    Spec
	// shift is each night's true level against the blessed night's (ln of
	// the ratio of their scales, the prompts' own noise left out): what an
	// analysis that could see through the measurement and the noise would
	// judge against the tolerance.
	shift []float64
	// blessed is the blessed night's true level against the endpoint's
	// long-run level (ln; its noise's draw that night).
	blessed float64
}

// simulate makes history number id of sc: nights 1..n of prompts prompts.
func simulate(sc scenario, id, nights, prompts int) nightly {
	rng := rand.New(rand.NewPCG(uint64(id), 0x5eed))
	u := sc.noise.Sigma * rng.NormFloat64() // night 0, from the stationary law
	step := func() {
		u = sc.noise.Rho*u + math.Sqrt(1-sc.noise.Rho*sc.noise.Rho)*sc.noise.Sigma*rng.NormFloat64()
	}
	ids := make([]string, prompts)
	for p := range ids {
		ids[p] = fmt.Sprintf("prompt-%02d", p)
	}
	own := make([]float64, prompts) // each prompt's own AR(1) noise
	stepOwn := func() {
		for p := range own {
			own[p] = sc.own.Rho*own[p] + math.Sqrt(1-sc.own.Rho*sc.own.Rho)*sc.own.Sigma*rng.NormFloat64()
		}
	}
	if sc.own.Sigma > 0 {
		for p := range own {
			own[p] = sc.own.Sigma * rng.NormFloat64()
		}
	}
	u0 := u
	bless := nightRun(func(int) float64 { return math.Exp(u) }, uint64(id)<<20, ids, 4*nightRequests)
	out := nightly{blessed: u0}
	out.spec = defaultSpec(bless, ids)
	out.spec.BlessedAt = night0
	for k := 1; k <= nights; k++ {
		step()
		if sc.own.Sigma > 0 {
			stepOwn()
		}
		at := night0.AddDate(0, 0, k)
		level := sc.scale(k) * math.Exp(u)
		if wd := at.Weekday(); sc.weekend > 0 && (wd == time.Saturday || wd == time.Sunday) {
			level *= sc.weekend
		}
		out.shift = append(out.shift, math.Log(level)-u0)
		f := nightRun(func(p int) float64 {
			v := level * math.Exp(own[p])
			if sc.prompt != nil {
				v *= sc.prompt(k, p)
			}
			return v
		}, uint64(id)<<20|uint64(k), ids, nightRequests)
		out.records = append(out.records, record(f, at, fmt.Sprintf("c%05d", k)))
	}
	return out
}

// nightRun measures one simulated night: the sim's schedule (Profile.Plan)
// for requests per prompt, with no network in the way, summarised as
// latgate summarises samples. Only TTFT and ITL, which the default gate
// checks, are filled in.
func nightRun(scale func(prompt int) float64, seed uint64, prompts []string, requests int) *results.File {
	p, err := sim.Preset("default")
	if err != nil {
		panic(err)
	}
	p.Seed = seed
	t := results.Target{Name: "sim", Model: "sim"}
	seq := 0
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	for i, id := range prompts {
		p.Slowdown = scale(i)
		ss := make([]results.Sample, 0, requests)
		for range requests {
			seq++
			pl := p.Plan(seq, p.Tokens)
			s := results.Sample{Seq: seq, TTFT: ms(pl.Tokens[0]), TTFCT: ms(pl.Tokens[0]), HasContent: true, Total: ms(pl.Finish), OutputTokens: len(pl.Tokens)}
			s.ITL = make([]float64, 0, len(pl.Tokens)-1)
			for k := 1; k < len(pl.Tokens); k++ {
				s.ITL = append(s.ITL, ms(pl.Tokens[k]-pl.Tokens[k-1]))
			}
			ss = append(ss, s)
		}
		t.Prompts = append(t.Prompts, results.Prompt{ID: id, Requests: requests, Samples: ss})
	}
	t.Requests = requests * len(prompts)
	return &results.File{Schema: results.Schema, Version: "test", ConfigHash: "cfg", Run: results.Run{Requests: requests}, Targets: []results.Target{t}}
}

// record is the history record of f as history.FromResults makes it, for
// the metrics the default gate checks only (the others cost time and are
// not read).
func record(f *results.File, at time.Time, commit string) history.Record {
	r := history.Record{Schema: history.Schema, At: at, Commit: commit, Command: "check", Requests: f.Run.Requests}
	for _, t := range f.Targets {
		ht := history.Target{Name: t.Name, Model: t.Model, Requests: t.Requests}
		for _, p := range t.Prompts {
			hp := history.Prompt{ID: p.ID, Metrics: map[string]history.Stats{}}
			for _, m := range []string{results.TTFT, results.ITL} {
				if st, ok := history.Summarize(p.Samples, m); ok {
					hp.Metrics[m] = st
				}
			}
			ht.Prompts = append(ht.Prompts, hp)
		}
		r.Targets = append(r.Targets, ht)
	}
	return r
}

// defaultSpec is the default gate's series of prompts, against the
// baseline run bless (its values computed as trend computes them: from its
// samples).
func defaultSpec(bless *results.File, prompts []string) Spec {
	var spec Spec
	for _, id := range prompts {
		var samples []results.Sample
		for _, p := range bless.Targets[0].Prompts {
			if p.ID == id {
				samples = p.Samples
			}
		}
		for _, c := range config.DefaultChecks() {
			stat := mustStat(c.Stat)
			tol := compare.Resolvable(c.Metric, c.Tolerance)
			st, _ := history.Summarize(samples, c.Metric)
			base, _ := st.Get(stat)
			spec.Series = append(spec.Series, SeriesSpec{
				Target: "sim", Prompt: id, Metric: c.Metric, Stat: stat,
				Tolerance: tol.Rel, FloorMS: float64(tol.Floor) / float64(time.Millisecond), Baseline: base,
			})
		}
	}
	return spec
}

func mustStat(name string) stats.Stat {
	s, err := stats.ParseStat(name)
	if err != nil {
		panic(err)
	}
	return s
}
