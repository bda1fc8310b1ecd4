package results

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func ttftSamples(vals ...float64) []Sample {
	out := make([]Sample, len(vals))
	for i, v := range vals {
		out[i] = Sample{Seq: i + 1, TTFB: v / 2, TTFT: v, Total: 2 * v}
	}
	return out
}

// around returns n TTFTs spread evenly over [lo, hi].
func around(n int, lo, hi float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = lo + (hi-lo)*float64(i)/float64(n-1)
	}
	return out
}

func TestQueueing(t *testing.T) {
	prompt := func(id string, solo float64, ttfts []float64) Prompt {
		p := Prompt{ID: id, Samples: ttftSamples(ttfts...)}
		if solo > 0 {
			p.Solo = &Solo{TTFB: solo / 2, TTFT: solo}
		}
		return p
	}
	queued := []float64{}
	queued = append(queued, around(60, 110, 132)...) // every request waited ~110 ms
	parallel := around(60, 3, 5)
	tests := []struct {
		name    string
		conc    int
		prompts []Prompt
		want    []Queue
	}{
		{"a server that queues", 2, []Prompt{prompt("a", 3.8, queued), prompt("b", 4.0, queued)},
			[]Queue{{Target: "t", InFlight: 2, Solo: 3.9, Loaded: 121, Fastest: 112.2, Prompts: 2}}},
		{"a parallel server", 2, []Prompt{prompt("a", 3.8, parallel), prompt("b", 4.4, parallel)}, nil},
		// The solo request was the slowest of all: not queueing.
		{"a slow solo request", 4, []Prompt{prompt("a", 9, parallel)}, nil},
		{"concurrency 1 sends nothing alongside", 1, []Prompt{prompt("a", 3.8, queued)}, nil},
		{"no solo probe (no warmup)", 2, []Prompt{prompt("a", 0, queued)}, nil},
		{"too few samples for a P10", 2, []Prompt{prompt("a", 3.8, queued[:9])}, nil},
		// Ten times slower, but by 0.45 ms: under latgate's resolution.
		{"growth under 1 ms", 2, []Prompt{prompt("a", 0.05, around(60, 0.45, 0.55))}, nil},
		// One prompt of three queued (its median ratio decides): no warning.
		{"the median prompt decides", 2, []Prompt{prompt("a", 3.8, queued), prompt("b", 4, parallel), prompt("c", 4, parallel)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Queueing(Run{Concurrency: tt.conc}, []Target{{Name: "t", Prompts: tt.prompts}})
			if diff := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })); diff != "" {
				t.Errorf("Queueing (-want +got):\n%s", diff)
			}
		})
	}
}

func TestQueueString(t *testing.T) {
	q := Queue{Target: "ollama", InFlight: 2, Solo: 3.8, Loaded: 121, Fastest: 110, Prompts: 2}
	want := `target "ollama": the server queues: TTFT 3.80 ms at 1 in flight, 121 ms at 2 (P50): every measured request waited for another; set run.concurrency: 1, or measure the queue on purpose`
	if got := q.String(); got != want {
		t.Errorf("String:\n got %s\nwant %s", got, want)
	}
}

// TestQueueingCalibration measures, by seeded simulation of the TTFTs
// alone, how often the rule warns of a server that serves in parallel (a
// false warning: the solo request is one more draw of the measured
// distribution) and how often it catches one that serves one request at a
// time, measured at concurrency 2 (every measured request waits for a whole
// answer of another, k times its TTFT: k is 30 for the Ollama).
// Lognormal TTFTs of σ 0.25 (the simulator's default) and 0.5 (noisier
// than any endpoint latgate was tried on); 60 samples per prompt, as
// check's first look; the family is one run's warning (per target).
func TestQueueingCalibration(t *testing.T) {
	const runs = 5000
	for _, c := range []struct {
		sigma    float64
		prompts  int
		maxFalse float64
		minCatch map[float64]float64 // by k; unlisted k are only printed
	}{
		{0.25, 1, 0.001, map[float64]float64{4: 0.95, 10: 0.99}},
		{0.25, 2, 0.001, map[float64]float64{4: 0.99, 10: 0.99}},
		{0.5, 1, 0.01, map[float64]float64{10: 0.95}},
		{0.5, 2, 0.002, map[float64]float64{10: 0.99}},
	} {
		rng := rand.New(rand.NewPCG(7, uint64(c.prompts)))
		draw := func() float64 { return 100 * math.Exp(c.sigma*rng.NormFloat64()) }
		run := func(k float64) bool { // k 0: a parallel server
			var ps []Prompt
			for range c.prompts {
				p := Prompt{Solo: &Solo{TTFT: draw()}, Samples: make([]Sample, 60)}
				for i := range p.Samples {
					p.Samples[i].TTFT = k*100*math.Exp(0.2*rng.NormFloat64()) + draw()
				}
				ps = append(ps, p)
			}
			return len(Queueing(Run{Concurrency: 2}, []Target{{Name: "t", Prompts: ps}})) > 0
		}
		falses := 0
		for range runs {
			if run(0) {
				falses++
			}
		}
		fr := float64(falses) / runs
		t.Logf("σ %.2f, %d prompt(s): a parallel server warned of in %d of %d runs (%.2f%%)", c.sigma, c.prompts, falses, runs, 100*fr)
		if fr > c.maxFalse {
			t.Errorf("σ %.2f, %d prompt(s): false warnings %.2f%%, want ≤ %.1f%%", c.sigma, c.prompts, 100*fr, 100*c.maxFalse)
		}
		for _, k := range []float64{2, 4, 10, 30} {
			caught := 0
			for range runs {
				if run(k) {
					caught++
				}
			}
			cr := float64(caught) / runs
			t.Logf("σ %.2f, %d prompt(s): queueing behind answers %g× the TTFT caught in %d of %d runs (%.2f%%)", c.sigma, c.prompts, k, caught, runs, 100*cr)
			if want, ok := c.minCatch[k]; ok && cr < want {
				t.Errorf("σ %.2f, %d prompt(s), k %g: caught %.2f%%, want ≥ %.0f%%", c.sigma, c.prompts, k, 100*cr, 100*want)
			}
		}
	}
}
