package trend

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
)

var tuneHistories = flag.Int("tune-histories", 12, "seeded histories per scenario in TestTuneCalibration (CI: 200)")

// unitNights is a pool of simulated runs at scale 1: per run, each series'
// statistic (the sim's delays scale linearly with its slowdown, so a run at
// scale s has s times these values).
type unitNights [][]float64

func unitPool(spec Spec, prompts []string, requests, n int, seed uint64) unitNights {
	out := make(unitNights, n)
	for i := range out {
		f := nightRun(func(int) float64 { return 1 }, seed+uint64(i), prompts, requests)
		rec := record(f, night0, "")
		vals := make([]float64, len(spec.Series))
		for s, ss := range spec.Series {
			_, p := rec.Find(ss.Target, ss.Region, ss.Prompt)
			vals[s], _ = p.Metrics[ss.Metric].Get(ss.Stat)
		}
		out[i] = vals
	}
	return out
}

// realisedRate is the out-of-sample false-alarm rate per run of a tune
// report: the share of pairs fresh (baseline blessed on one night, a check
// on another, the endpoint unchanged, its nights drawn independently from
// the noise's stationary law) in which some series is beyond its proposed
// tolerance and floor, as the gate's threshold reads them.
func realisedRate(rep TuneReport, spec Spec, bless, check unitNights, nm noiseModel, pairs int, rng *rand.Rand) float64 {
	eff := rep.effective()
	tol := make([][2]float64, len(spec.Series))
	has := make([]bool, len(spec.Series))
	for s, ss := range spec.Series {
		tol[s], has[s] = eff[key(ss)]
	}
	over := 0
	for range pairs {
		b := bless[rng.IntN(len(bless))]
		c := check[rng.IntN(len(check))]
		sb, sc := math.Exp(nm.Sigma*rng.NormFloat64()), math.Exp(nm.Sigma*rng.NormFloat64())
		for s, ss := range spec.Series {
			if !has[s] {
				continue
			}
			base, cur := sb*b[s], sc*c[s]
			lim := SeriesSpec{Metric: ss.Metric, Tolerance: tol[s][0], FloorMS: tol[s][1]}.Limit(base)
			if cur > base*lim {
				over++
				break
			}
		}
	}
	return float64(over) / float64(pairs)
}

// TestTuneCalibration: tolerances learnt by Tune from seeded histories of
// an unchanged endpoint (the nightly calibration's model: 10 prompts × the
// default checks), from 30 and from 10 nights, with independent and with
// AR(1) nights, then tried out of sample on fresh (baseline, current) pairs
// of the same endpoint: the share of proposals whose realised false-alarm
// rate per run (any of the 40 series) exceeds twice the target (1%) must be
// at most 5%. It prints the run counts and the distribution.
func TestTuneCalibration(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("calibration: a minute of CPU (CI: go test -run TuneCalibration -v ./internal/trend/ -args -tune-histories 200)")
	}
	n := *tuneHistories
	const pairs, poolSize = 2000, 300
	ids := make([]string, calPrompts)
	for p := range ids {
		ids[p] = fmt.Sprintf("prompt-%02d", p)
	}
	spec := simulate(flatScenario(noiseModel{Sigma: 0.05}), 1, 1, calPrompts).spec
	bless := unitPool(spec, ids, 4*nightRequests, poolSize, 1<<40)
	check := unitPool(spec, ids, nightRequests, poolSize, 1<<41)
	target := DefaultTuneFalseAlarm
	t.Logf("tune calibration: %d seeded histories per scenario, 10 prompts × 4 default checks (40 series); each proposal (for %.0f%% false alarms per run) tried on %d fresh (baseline of 240 requests, check of 60) pairs of the unchanged endpoint, from pools of %d simulated runs each",
		n, 100*target, pairs, poolSize)
	for i, sc := range []struct {
		nights int
		nm     noiseModel
	}{{30, noiseModel{Sigma: 0.05}}, {10, noiseModel{Sigma: 0.05}}, {30, noiseModel{Sigma: 0.07, Rho: 0.7}}, {10, noiseModel{Sigma: 0.07, Rho: 0.7}}, {30, noiseModel{Sigma: 0.15}}} {
		rates := make([]float64, n)
		tols := make([]float64, n)
		refused := make([]float64, n) // series without a proposal (Proposal.Refused), of 40
		var wg sync.WaitGroup
		next := make(chan int)
		for range runtime.GOMAXPROCS(0) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for id := range next {
					h := simulate(flatScenario(sc.nm), 50000*(i+1)+id, sc.nights, calPrompts)
					rep := Tune(h.records, h.spec, TuneOptions{})
					rng := rand.New(rand.NewPCG(uint64(id), uint64(i)))
					rates[id] = realisedRate(rep, h.spec, bless, check, sc.nm, pairs, rng)
					for _, c := range rep.ByCheck() {
						if c.Metric == "itl" && c.Stat.String() == "p50" {
							tols[id] = c.Proposal.Tolerance
						}
						refused[id] += float64(len(c.Refused))
					}
				}
			}()
		}
		for id := range n {
			next <- id
		}
		close(next)
		wg.Wait()
		over := 0
		for _, r := range rates {
			if r > 2*target {
				over++
			}
		}
		sorted := slices.Clone(rates)
		slices.Sort(sorted)
		q := func(p float64) float64 { return 100 * sorted[int(p*float64(len(sorted)-1)+0.5)] }
		slices.Sort(tols)
		slices.Sort(refused)
		t.Logf("  from %2d nights, %-20s realised rate per run: median %.2f%%, 90th percentile %.2f%%, max %.2f%%; above %.0f%% in %s; itl p50 tolerance median %.0f%%; series without a proposal (above 100%%, not counted): median %.0f of 40",
			sc.nights, sc.nm.String()+":", q(0.5), q(0.9), q(1), 200*target, pctOf(over, n), 100*tols[len(tols)/2], refused[len(refused)/2])
		if tooMany(over, n, 0.05) {
			t.Errorf("from %d nights, %s: %d of %d proposals realise more than twice the target rate, want ≤ 5%%", sc.nights, sc.nm, over, n)
		}
	}
}
