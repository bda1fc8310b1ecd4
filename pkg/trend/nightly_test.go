package trend

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/latgate/latgate/pkg/history"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/sim"
	"github.com/latgate/latgate/pkg/stats"
)

// The nightly series of the calibration: the built-in simulator's default
// latency model (pkg/sim, TTFT lognormal 120 ms σ 0.25, ITL 4 ms σ 0.2, 24
// tokens), its delays multiplied each night by a scale (sim's slowdown) that
// carries ±5% night-to-night noise, measured like the example config: two
// prompts of 60 requests, gated by the default checks.

var examplePrompts = []string{"greeting", "summarize"}

// exampleChecks are examples/latgate.yaml's checks: metric, stat, tolerance, floor (ms).
var exampleChecks = []struct {
	metric, stat string
	tol, floor   float64
}{
	{"ttft", "p50", 0.15, 20},
	{"ttft", "p95", 0.25, 40},
	{"itl", "p50", 0.15, 2},
	{"itl", "p95", 0.25, 5},
}

const (
	nightNoise    = 0.05 // σ of ln(scale) night to night
	nightRequests = 60
)

var night0 = time.Date(2026, 11, 1, 3, 0, 0, 0, time.UTC)

// nightRun measures one simulated night: the sim's schedule (Profile.Plan),
// with no network in the way, summarised as latgate summarises samples.
func nightRun(scale float64, seed uint64) *results.File {
	p, err := sim.Preset("default")
	if err != nil {
		panic(err)
	}
	p.Slowdown = scale
	p.Seed = seed
	t := results.Target{Name: "sim", Model: "sim"}
	seq := 0
	for _, id := range examplePrompts {
		ss := make([]results.Sample, 0, nightRequests)
		for range nightRequests {
			seq++
			pl := p.Plan(seq, p.Tokens)
			ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
			s := results.Sample{Seq: seq, TTFB: ms(pl.Header), TTFT: ms(pl.Tokens[0]), TTFCT: ms(pl.Tokens[0]), HasContent: true,
				Total: ms(pl.Finish), OutputTokens: len(pl.Tokens)}
			for k := 1; k < len(pl.Tokens); k++ {
				g := ms(pl.Tokens[k] - pl.Tokens[k-1])
				s.ITL = append(s.ITL, g)
				s.MaxStall = max(s.MaxStall, g)
			}
			s.TPOT = (s.Total - s.TTFT) / float64(len(pl.Tokens)-1)
			ss = append(ss, s)
		}
		t.Prompts = append(t.Prompts, results.Prompt{ID: id, Requests: nightRequests, Metrics: results.MetricsOf(ss), Samples: ss})
	}
	t.Requests = nightRequests * len(examplePrompts)
	return &results.File{Schema: results.Schema, Version: "test", ConfigHash: "cfg", Run: results.Run{Requests: nightRequests}, Targets: []results.Target{t}}
}

// scenario gives the true scale of night k (1-based) before noise.
type scenario struct {
	name  string
	scale func(night int) float64
}

var (
	flat  = scenario{"flat", func(int) float64 { return 1 }}
	step  = scenario{"+30% step at night 15", func(k int) float64 { return map[bool]float64{true: 1.3, false: 1}[k >= 15] }}
	drift = scenario{"+1.5%/night drift", func(k int) float64 { return math.Pow(1.015, float64(k-1)) }}
)

// series simulates nights 1..n of sc (series number id) as history records.
func series(sc scenario, id, n int) []history.Record {
	rng := rand.New(rand.NewPCG(uint64(id), 0x5eed))
	recs := make([]history.Record, n)
	for k := 1; k <= n; k++ {
		scale := sc.scale(k) * math.Exp(nightNoise*rng.NormFloat64())
		f := nightRun(scale, uint64(id)<<20|uint64(k))
		recs[k-1] = history.FromResults(f, history.Meta{At: night0.AddDate(0, 0, k-1), Commit: commitOf(k), Command: "check"})
	}
	return recs
}

func commitOf(night int) string { return "c0ffee" + string(rune('a'+night%26)) + "00" }

// specFor is the example config's series, its baseline blessed from night 1.
func specFor(bless history.Record) Spec {
	spec := Spec{BlessedAt: bless.At}
	for _, id := range examplePrompts {
		_, p := bless.Find("sim", "", id)
		for _, c := range exampleChecks {
			spec.Series = append(spec.Series, SeriesSpec{
				Target: "sim", Prompt: id, Metric: c.metric, Stat: mustStat(c.stat),
				Tolerance: c.tol, FloorMS: c.floor, Baseline: get(p.Metrics[c.metric], c.stat),
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

func get(st history.Stats, stat string) float64 {
	v, _ := st.Get(mustStat(stat))
	return v
}
