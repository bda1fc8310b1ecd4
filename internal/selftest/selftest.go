// Package selftest measures latgate's own timing error on this machine: it
// runs the built-in simulator in-process with its recorder on, measures it
// through measure's real client path, and compares every token's client
// stamp with the simulator's flush of the same token (one process, one
// monotonic clock). It also assesses what a config's checks can resolve
// given that noise. Write renders a Report; `latgate selftest` is its
// command.
package selftest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/sim"
	"github.com/latgate/latgate/pkg/stats"
)

// Report is what selftest prints (as a table by Write, or as JSON).
type Report struct {
	Machine  Machine `json:"machine"`
	Profile  string  `json:"profile"`
	Schedule string  `json:"schedule"`
	Runs     int     `json:"runs"`
	Levels   []Level `json:"levels"`
	// MaxRate is the highest chunk rate whose stamp delay P95 stayed under
	// 1 ms; nil when no level did.
	MaxRate    *MaxRate    `json:"max_rate,omitempty"`
	Resolution *Resolution `json:"resolution,omitempty"`
}

// MaxRate is the highest sustained chunk rate and the concurrency it came at.
type MaxRate struct {
	ChunksPerS  float64 `json:"chunks_per_s"`
	Concurrency int     `json:"concurrency"`
}

// delayLimit is the stamp delay P95 (ms) under which a chunk rate counts as
// sustained.
const delayLimit = 1.0

// Machine says where the figures come from.
type Machine struct {
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	CPUs       int    `json:"cpus"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	Go         string `json:"go"`
	// LoadBefore and LoadAfter are /proc/loadavg's 1, 5 and 15 minute loads.
	LoadBefore string `json:"load_before,omitempty"`
	LoadAfter  string `json:"load_after,omitempty"`
}

// Spread is one figure over the runs.
type Spread struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

func spreadOf(xs []float64) Spread {
	s := slices.Sorted(slices.Values(xs))
	return Spread{Median: stats.Quantile(s, 0.5), Min: s[0], Max: s[len(s)-1]}
}

// Level holds one concurrency's figures over the runs. The errors
// are reported − true statistic, in ms.
type Level struct {
	Concurrency int    `json:"concurrency"`
	Requests    int    `json:"requests_per_run"`
	ChunkRate   Spread `json:"chunks_per_s"`
	TTFTP50     Spread `json:"ttft_p50_err_ms"`
	TTFTP95     Spread `json:"ttft_p95_err_ms"`
	ITLP50      Spread `json:"itl_p50_err_ms"`
	ITLP95      Spread `json:"itl_p95_err_ms"`
	DelayP50    Spread `json:"stamp_delay_p50_ms"`
	DelayP95    Spread `json:"stamp_delay_p95_ms"`

	noise AccuracyReport // the runs' delays pooled, for the resolution
}

// Resolution assesses a config's checks against the noise measured at the
// config's concurrency.
type Resolution struct {
	Config      string          `json:"config"`
	Requests    int             `json:"requests"`
	Concurrency int             `json:"concurrency"`
	Confidence  float64         `json:"confidence"`
	NoiseFrom   int             `json:"noise_requests"`
	Checks      []ResolvedCheck `json:"checks"`
}

// ResolvedCheck is what one gated check can resolve given latgate's noise.
type ResolvedCheck struct {
	Metric    string  `json:"metric"`
	Stat      string  `json:"stat"`
	Tolerance float64 `json:"tolerance"`
	// FloorMS is the floor the gate applies: the config's, raised to
	// latgate's timing resolution for the metric (compare.Resolvable), so
	// never below it; ConfigFloorMS is the config's own (0 when unset).
	FloorMS       float64 `json:"floor_ms"`
	ConfigFloorMS float64 `json:"config_floor_ms"`
	// MinChangeMS is the smallest change two runs of Requests requests tell
	// apart from latgate's noise (MinDetectable).
	MinChangeMS float64 `json:"min_change_ms"`
	// NeedRequests is the fewest requests per prompt the statistic needs
	// for the gate to decide at all (stats.MinSamples); 0 for itl, whose
	// rule counts the pooled gaps.
	NeedRequests int `json:"need_requests,omitempty"`
	// MostRequests is the largest run.requests the config accepts with its
	// other settings (config.Config.MostRequests): no hint suggests more.
	MostRequests int    `json:"most_requests"`
	Verdict      string `json:"verdict"`
}

// Options configures Run.
type Options struct {
	// Profile is the simulator's schedule; Spec its text, for the report.
	Profile sim.Profile
	Spec    string
	// Requests is the measured requests per run and level; 0 means
	// max(16, 2×concurrency).
	Requests int
	// Concurrency lists the levels to run; the config's is added.
	Concurrency []int
	// Runs is the runs per level, for the run-to-run spread (at least 1).
	Runs int
	// Config, when set, gets its checks assessed (Report.Resolution).
	Config *config.Config
	// Progress, when set, gets one line per level as it starts.
	Progress io.Writer
}

// Run measures latgate's own timing error at each level and, with a
// config, what its checks can resolve.
func Run(ctx context.Context, opts Options) (Report, error) {
	switch {
	case opts.Requests < 0, opts.Runs < 1:
		return Report{}, errors.New("selftest: requests must be ≥ 0 and runs ≥ 1")
	case len(opts.Concurrency) == 0:
		return Report{}, errors.New("selftest: no concurrency level given")
	}
	p := opts.Profile
	levels := slices.Clone(opts.Concurrency)
	if opts.Config != nil {
		levels = append(levels, max(opts.Config.Run.Concurrency, 1))
	}
	slices.Sort(levels)
	levels = slices.Compact(levels)
	rep := Report{
		Machine: Machine{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(),
			GOMAXPROCS: runtime.GOMAXPROCS(0), Go: runtime.Version(), LoadBefore: loadAvg()},
		Profile:  opts.Spec,
		Schedule: fmt.Sprintf("TTFT %v, ITL %v, %d tokens", p.TTFT, p.ITL, p.Tokens+p.Reasoning),
		Runs:     opts.Runs,
	}
	for _, c := range levels {
		n := opts.Requests
		if n == 0 {
			n = max(16, 2*c)
		}
		if opts.Progress != nil {
			fmt.Fprintf(opts.Progress, "latgate: selftest: concurrency %d, %d runs of %d requests\n", c, opts.Runs, n)
		}
		lv, err := levelOf(ctx, p, c, n, opts.Runs)
		if err != nil {
			return rep, err
		}
		rep.Levels = append(rep.Levels, lv)
		if lv.DelayP95.Median < delayLimit && (rep.MaxRate == nil || lv.ChunkRate.Median > rep.MaxRate.ChunksPerS) {
			rep.MaxRate = &MaxRate{ChunksPerS: lv.ChunkRate.Median, Concurrency: c}
		}
	}
	rep.Machine.LoadAfter = loadAvg()
	if opts.Config != nil {
		rep.Resolution = resolve(opts.Config, rep.Levels)
	}
	return rep, nil
}

// levelOf runs Accuracy runs times at one concurrency.
func levelOf(ctx context.Context, p sim.Profile, conc, requests, runs int) (Level, error) {
	lv := Level{Concurrency: conc, Requests: requests}
	var rate, t50, t95, i50, i95, d50, d95 []float64
	for range runs {
		r, err := Accuracy(ctx, AccuracyOptions{Profile: p, Concurrency: conc, Requests: requests, Warmup: conc})
		if err != nil {
			return lv, fmt.Errorf("selftest at concurrency %d: %w", conc, err)
		}
		rate = append(rate, r.ChunkRate)
		t50, t95 = append(t50, r.Error.TTFTP50), append(t95, r.Error.TTFTP95)
		i50, i95 = append(i50, r.Error.ITLP50), append(i95, r.Error.ITLP95)
		d50, d95 = append(d50, r.Delay.P50), append(d95, r.Delay.P95)
		lv.noise.Delays = append(lv.noise.Delays, r.Delays...)
	}
	lv.ChunkRate = spreadOf(rate)
	lv.TTFTP50, lv.TTFTP95, lv.ITLP50, lv.ITLP95 = spreadOf(t50), spreadOf(t95), spreadOf(i50), spreadOf(i95)
	lv.DelayP50, lv.DelayP95 = spreadOf(d50), spreadOf(d95)
	return lv, nil
}

// resolve assesses the config's checks against the noise measured at the
// config's concurrency.
func resolve(cfg *config.Config, levels []Level) *Resolution {
	conc := max(cfg.Run.Concurrency, 1)
	i := slices.IndexFunc(levels, func(l Level) bool { return l.Concurrency == conc })
	noise := levels[i].noise
	conf, resamples := cfg.Gate.Confidence, cfg.Gate.Resamples // config.Load set the defaults
	res := &Resolution{Config: cfg.Path, Requests: cfg.Run.Requests, Concurrency: conc, Confidence: conf, NoiseFrom: len(noise.Delays)}
	for _, c := range cfg.Gate.Checks {
		if c.MaxOnly {
			continue // an absolute limit has no relative change to resolve
		}
		rc := ResolvedCheck{Metric: c.Metric, Stat: c.Stat, Tolerance: c.Tolerance.Rel,
			FloorMS:       float64(compare.Resolvable(c.Metric, c.Tolerance).Floor) / 1e6,
			ConfigFloorMS: float64(c.Tolerance.Floor) / 1e6,
			MostRequests:  cfg.MostRequests(), MinChangeMS: math.NaN()}
		stat, err := stats.ParseStat(c.Stat)
		per, known := noise.Noise(c.Metric)
		if err == nil && known {
			rc.MinChangeMS = MinDetectable(per, cfg.Run.Requests, conf, resamples, uint64(cfg.Gate.Seed), stat.Of)
			if c.Metric != results.ITL { // itl's rule counts pooled gaps, which are plenty here
				rc.NeedRequests = stat.Need(conf)
			}
		}
		rc.Verdict = verdict(rc, cfg.Run.Requests, conf)
		res.Checks = append(res.Checks, rc)
	}
	return res
}

// verdict says whether a check resolves its floor given latgate's noise,
// and what to change when it does not: every hint stays within what the
// config accepts (c.MostRequests), and says so when nothing can resolve it.
func verdict(c ResolvedCheck, requests int, conf float64) string {
	most := c.MostRequests
	switch {
	case math.IsNaN(c.MinChangeMS):
		return "not assessed: no noise model for this metric or statistic"
	case c.NeedRequests > most:
		return fmt.Sprintf("cannot be resolved: %s needs ≥ %d requests per prompt at %g%% confidence, more than this config can take (at most %d); gate another statistic",
			c.Stat, c.NeedRequests, 100*conf, most)
	case requests < c.NeedRequests:
		return fmt.Sprintf("always inconclusive: %s needs ≥ %d requests per prompt at %g%% confidence (run.requests is %d)",
			c.Stat, c.NeedRequests, 100*conf, requests)
	case c.MinChangeMS >= c.FloorMS:
		// The change two runs resolve shrinks as 1/√n.
		raise := fmt.Sprintf("floor under latgate's noise here: raise the floor above %s", fmtMS(c.MinChangeMS))
		if c.FloorMS <= 0 {
			return raise
		}
		need := math.Ceil(float64(requests) * math.Pow(c.MinChangeMS/c.FloorMS, 2))
		if need > float64(most) {
			return fmt.Sprintf("%s (more requests cannot do it: it would take ≥ %.0f per prompt, over the %d this config accepts)", raise, need, most)
		}
		return fmt.Sprintf("%s or run.requests to ≥ %d", raise, int(need))
	}
	return "ok"
}

// loadAvg returns the 1, 5 and 15 minute load averages, "" when unknown.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return ""
}
