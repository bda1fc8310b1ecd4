package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/measure"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/sim"
	"github.com/latgate/latgate/pkg/stats"
)

type selftestOptions struct {
	ConfigPath  string // optional: gate resolution for its checks
	Profile     string // simulator spec of the fixed schedule
	Requests    int    // measured requests per run and concurrency; 0: max(16, 2×concurrency)
	Concurrency []int
	Runs        int
	JSON        bool
}

const (
	defaultSelftestProfile = "fixed?spin=0s"
	defaultSelftestConc    = "1,16,64,256"
)

func selftestCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "selftest",
		Usage:     "measure latgate's own timing error on this machine, and what a config's checks can resolve",
		UsageText: "latgate selftest [--config latgate.yaml] [--concurrency 1,16,64,256] [--requests N] [--json]",
		Description: `Runs the built-in simulator in this process on a fixed schedule (TTFT 50ms,
ITL 5ms, 64 tokens), measures it through latgate's real client path, and
compares every token's client stamp with the simulator's flush of the same
token (one process, one monotonic clock). It prints, per concurrency, the
error of the reported TTFT and ITL P50/P95 against that truth and the stamp
delay P95, as the median of --runs runs ± half their range (the run-to-run
spread), and the highest chunk rate this machine sustains with a stamp
delay P95 under 1 ms. CI runners differ: run it where you gate.

With --config it also prints, for each gated check, the smallest change two
runs of run.requests requests can tell apart from latgate's own noise at the
gate's confidence (a bootstrap of whole requests, as the gate does), and
flags floors under that noise and request counts too small for the
statistic. Your endpoint's own spread adds to this noise: it is the floor
under which no tolerance means anything on this machine.

` + measureExitHelp,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "config", Aliases: []string{"c"}, Usage: "a latgate.yaml whose checks to assess (optional)", TakesFile: true},
			&ucli.StringFlag{Name: "concurrency", Value: defaultSelftestConc, Usage: "comma-separated concurrency levels"},
			&ucli.IntFlag{Name: "requests", DefaultText: "max(16, 2×concurrency)", Usage: "measured requests per run and concurrency"},
			&ucli.IntFlag{Name: "runs", Value: 3, Usage: "runs per concurrency, for the run-to-run spread"},
			&ucli.StringFlag{Name: "profile", Value: defaultSelftestProfile, Usage: "the simulator's schedule (see latgate sim --help); keep it fixed and without spin"},
			&ucli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usageErr(fmt.Errorf("selftest takes no arguments, got %q", c.Args().First()))
			}
			conc, err := parseLevels(c.String("concurrency"))
			if err != nil {
				return usageErr(fmt.Errorf("--concurrency: %w", err))
			}
			return runSelftest(c.Context, env, selftestOptions{
				ConfigPath:  c.String("config"),
				Profile:     c.String("profile"),
				Requests:    c.Int("requests"),
				Concurrency: conc,
				Runs:        c.Int("runs"),
				JSON:        c.Bool("json"),
			})
		},
	}
}

// parseLevels parses "1,16,64" into distinct positive levels, ascending.
func parseLevels(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 4096 {
			return nil, fmt.Errorf("%q is not a concurrency level between 1 and 4096", f)
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// selftestReport is what selftest prints (as a table, or as JSON).
type selftestReport struct {
	Machine  machine         `json:"machine"`
	Profile  string          `json:"profile"`
	Schedule string          `json:"schedule"`
	Runs     int             `json:"runs"`
	Levels   []selftestLevel `json:"levels"`
	// MaxRate is the highest chunk rate whose stamp delay P95 stayed under
	// 1 ms; nil when no level did.
	MaxRate    *maxRate    `json:"max_rate,omitempty"`
	Resolution *resolution `json:"resolution,omitempty"`
}

type maxRate struct {
	ChunksPerS  float64 `json:"chunks_per_s"`
	Concurrency int     `json:"concurrency"`
}

// delayLimit is the stamp delay P95 (ms) under which a chunk rate counts as
// sustained.
const delayLimit = 1.0

type machine struct {
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	CPUs       int    `json:"cpus"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	Go         string `json:"go"`
	// LoadBefore and LoadAfter are /proc/loadavg's 1, 5 and 15 minute loads.
	LoadBefore string `json:"load_before,omitempty"`
	LoadAfter  string `json:"load_after,omitempty"`
}

// spread is one figure over the runs.
type spread struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

func spreadOf(xs []float64) spread {
	s := slices.Sorted(slices.Values(xs))
	return spread{Median: stats.Quantile(s, 0.5), Min: s[0], Max: s[len(s)-1]}
}

// selftestLevel holds one concurrency's figures over the runs. The errors
// are reported − true statistic, in ms.
type selftestLevel struct {
	Concurrency int    `json:"concurrency"`
	Requests    int    `json:"requests_per_run"`
	ChunkRate   spread `json:"chunks_per_s"`
	TTFTP50     spread `json:"ttft_p50_err_ms"`
	TTFTP95     spread `json:"ttft_p95_err_ms"`
	ITLP50      spread `json:"itl_p50_err_ms"`
	ITLP95      spread `json:"itl_p95_err_ms"`
	DelayP50    spread `json:"stamp_delay_p50_ms"`
	DelayP95    spread `json:"stamp_delay_p95_ms"`

	noise measure.AccuracyReport // the runs' delays pooled, for the resolution
}

type resolution struct {
	Config      string          `json:"config"`
	Requests    int             `json:"requests"`
	Concurrency int             `json:"concurrency"`
	Confidence  float64         `json:"confidence"`
	NoiseFrom   int             `json:"noise_requests"`
	Checks      []resolvedCheck `json:"checks"`
}

// resolvedCheck is what one gated check can resolve given latgate's noise.
type resolvedCheck struct {
	Metric    string  `json:"metric"`
	Stat      string  `json:"stat"`
	Tolerance float64 `json:"tolerance"`
	FloorMS   float64 `json:"floor_ms"`
	// MinChangeMS is the smallest change two runs of Requests requests tell
	// apart from latgate's noise (measure.MinDetectable).
	MinChangeMS float64 `json:"min_change_ms"`
	// NeedRequests is the fewest requests per prompt the statistic needs
	// for the gate to decide at all (stats.MinSamples); 0 for itl, whose
	// rule counts the pooled gaps.
	NeedRequests int    `json:"need_requests,omitempty"`
	Verdict      string `json:"verdict"`
}

func runSelftest(ctx context.Context, env Env, opts selftestOptions) error {
	p, err := sim.ParseSpec(opts.Profile)
	if err != nil {
		return usageErr(fmt.Errorf("--profile: %w", err))
	}
	switch {
	case opts.Requests < 0, opts.Runs < 1:
		return usageErr(errors.New("--requests must be ≥ 0 and --runs ≥ 1"))
	case len(opts.Concurrency) == 0:
		return usageErr(errors.New("--concurrency: no level given"))
	}
	var cfg *config.Config
	levels := slices.Clone(opts.Concurrency)
	if opts.ConfigPath != "" {
		if cfg, err = config.Load(opts.ConfigPath, config.Options{Getenv: env.Getenv}); err != nil {
			return usageErr(err)
		}
		levels = append(levels, max(cfg.Run.Concurrency, 1))
	}
	slices.Sort(levels)
	levels = slices.Compact(levels)
	rep := selftestReport{
		Machine: machine{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(),
			GOMAXPROCS: runtime.GOMAXPROCS(0), Go: runtime.Version(), LoadBefore: loadAvg()},
		Profile:  opts.Profile,
		Schedule: fmt.Sprintf("TTFT %v, ITL %v, %d tokens", p.TTFT, p.ITL, p.Tokens+p.Reasoning),
		Runs:     opts.Runs,
	}
	for _, c := range levels {
		n := opts.Requests
		if n == 0 {
			n = max(16, 2*c)
		}
		fmt.Fprintf(env.Stderr, "latgate: selftest: concurrency %d, %d runs of %d requests\n", c, opts.Runs, n)
		lv, err := selftestLevelOf(ctx, p, c, n, opts.Runs)
		if err != nil {
			return measurementErr(err)
		}
		rep.Levels = append(rep.Levels, lv)
		if lv.DelayP95.Median < delayLimit && (rep.MaxRate == nil || lv.ChunkRate.Median > rep.MaxRate.ChunksPerS) {
			rep.MaxRate = &maxRate{ChunksPerS: lv.ChunkRate.Median, Concurrency: c}
		}
	}
	rep.Machine.LoadAfter = loadAvg()
	if cfg != nil {
		rep.Resolution = resolve(cfg, rep.Levels)
	}
	if opts.JSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return writeSelftest(env.Stdout, rep)
}

// selftestLevelOf runs Accuracy runs times at one concurrency.
func selftestLevelOf(ctx context.Context, p sim.Profile, conc, requests, runs int) (selftestLevel, error) {
	lv := selftestLevel{Concurrency: conc, Requests: requests}
	var rate, t50, t95, i50, i95, d50, d95 []float64
	for range runs {
		r, err := measure.Accuracy(ctx, measure.AccuracyOptions{Profile: p, Concurrency: conc, Requests: requests, Warmup: conc})
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
func resolve(cfg *config.Config, levels []selftestLevel) *resolution {
	conc := max(cfg.Run.Concurrency, 1)
	i := slices.IndexFunc(levels, func(l selftestLevel) bool { return l.Concurrency == conc })
	noise := levels[i].noise
	conf, resamples := cfg.Gate.Confidence, cfg.Gate.Resamples // config.Load set the defaults
	res := &resolution{Config: cfg.Path, Requests: cfg.Run.Requests, Concurrency: conc, Confidence: conf, NoiseFrom: len(noise.Delays)}
	for _, c := range cfg.Gate.Checks {
		rc := resolvedCheck{Metric: c.Metric, Stat: c.Stat, Tolerance: c.Tolerance.Rel,
			FloorMS: float64(c.Tolerance.Floor) / 1e6, MinChangeMS: math.NaN()}
		stat, err := stats.ParseStat(c.Stat)
		per, known := noise.Noise(c.Metric)
		if err == nil && known {
			rc.MinChangeMS = measure.MinDetectable(per, cfg.Run.Requests, conf, resamples, uint64(cfg.Gate.Seed), stat.Of)
			if c.Metric != results.ITL { // itl's rule counts pooled gaps, which are plenty here
				rc.NeedRequests = stat.Need(conf)
			}
		}
		rc.Verdict = verdict(rc, cfg.Run.Requests, conf)
		res.Checks = append(res.Checks, rc)
	}
	return res
}

func verdict(c resolvedCheck, requests int, conf float64) string {
	switch {
	case math.IsNaN(c.MinChangeMS):
		return "not assessed: no noise model for this metric or statistic"
	case requests < c.NeedRequests:
		return fmt.Sprintf("always inconclusive: %s needs ≥ %d requests per prompt at %g%% confidence (run.requests is %d)",
			c.Stat, c.NeedRequests, 100*conf, requests)
	case c.MinChangeMS >= c.FloorMS:
		need := int(math.Ceil(float64(requests) * math.Pow(c.MinChangeMS/math.Max(c.FloorMS, 1e-9), 2)))
		return fmt.Sprintf("floor under latgate's noise here: raise the floor above %s or run.requests to ≥ %d", fmtMS(c.MinChangeMS), need)
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

func fmtMS(v float64) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case math.Abs(v) < 0.01:
		return strconv.FormatFloat(v*1000, 'f', 1, 64) + "µs"
	case math.Abs(v) < 10:
		return strconv.FormatFloat(v, 'f', 3, 64) + "ms"
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + "ms"
}

// fmtSpread formats a signed error as "median ±half-range".
func fmtSpread(s spread) string {
	m := math.Round(s.Median*1000) / 1000
	if m == 0 {
		m = 0 // "+0.000", never "-0.000"
	}
	return fmt.Sprintf("%+.3f ±%.3f", m, (s.Max-s.Min)/2)
}

// stickyWriter keeps the first write error and skips later writes.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	s.err = err
	return n, err
}

func writeSelftest(w io.Writer, r selftestReport) error {
	ew := &stickyWriter{w: w}
	m := r.Machine
	fmt.Fprintf(ew, "latgate selftest: the timing error latgate itself adds on this machine\n")
	fmt.Fprintf(ew, "machine:  %s/%s, %d CPUs (GOMAXPROCS %d), %s", m.OS, m.Arch, m.CPUs, m.GOMAXPROCS, m.Go)
	if m.LoadBefore != "" {
		fmt.Fprintf(ew, ", load %s → %s", m.LoadBefore, m.LoadAfter)
	}
	fmt.Fprintf(ew, "\nschedule: in-process simulator %q: %s; %d runs per concurrency\n\n", r.Profile, r.Schedule, r.Runs)
	fmt.Fprintf(ew, "Reported − true statistic, and stamp delay (client stamp − server flush), in ms;\nmedian of %d runs ± half their range:\n", r.Runs)
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "concurrency\trequests\tchunks/s\tTTFT p50\tTTFT p95\tITL p50\tITL p95\tdelay p50\tdelay p95\t")
	for _, l := range r.Levels {
		fmt.Fprintf(tw, "%d\t%d\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\t\n", l.Concurrency, l.Requests, l.ChunkRate.Median,
			fmtSpread(l.TTFTP50), fmtSpread(l.TTFTP95), fmtSpread(l.ITLP50), fmtSpread(l.ITLP95), fmtSpread(l.DelayP50), fmtSpread(l.DelayP95))
	}
	tw.Flush()
	if r.MaxRate != nil {
		fmt.Fprintf(ew, "\nHighest chunk rate with stamp delay p95 under %g ms: %.0f chunks/s (concurrency %d).\n", delayLimit, r.MaxRate.ChunksPerS, r.MaxRate.Concurrency)
	} else {
		fmt.Fprintf(ew, "\nNo level kept the stamp delay p95 under %g ms.\n", delayLimit)
	}
	fmt.Fprintf(ew, "The simulator shares this process and its CPUs: a client alone sustains more.\n")
	if res := r.Resolution; res != nil {
		fmt.Fprintf(ew, "\nSmallest change each check of %s can tell from latgate's own noise:\n", res.Config)
		fmt.Fprintf(ew, "two runs of %d requests per prompt at concurrency %d, %g%% confidence (noise from %d requests).\n",
			res.Requests, res.Concurrency, 100*res.Confidence, res.NoiseFrom)
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "check\ttolerance\tfloor\tresolves\tverdict")
		for _, c := range res.Checks {
			floor := time.Duration(math.Round(c.FloorMS * 1e6))
			fmt.Fprintf(tw, "%s %s\t%g%%\t%v\t%s\t%s\n", c.Metric, c.Stat, 100*c.Tolerance, floor, fmtMS(c.MinChangeMS), c.Verdict)
		}
		tw.Flush()
		fmt.Fprintf(ew, "Your endpoint's own spread adds to this noise; measure it with latgate measure.\n")
	}
	return ew.err
}
