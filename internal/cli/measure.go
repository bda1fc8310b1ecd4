package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/internal/publish"
	"github.com/latgate/latgate/internal/sanitize"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/measure"
	"github.com/latgate/latgate/pkg/report"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/sim"
)

// runFlags are the flags shared by every command that measures.
type runFlags struct {
	ConfigPath string
	BaseURL    string
	// The run overrides are nil when the flag was not given.
	Requests    *int
	Warmup      *int
	Concurrency *int
	Timeout     *time.Duration
	Quiet       bool
}

func runFlagDefs() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "config", Aliases: []string{"c"}, Value: "latgate.yaml", Usage: "the latgate.yaml to run", TakesFile: true},
		&ucli.StringFlag{Name: "base-url", Usage: "override every target's base_url (e.g. http://127.0.0.1:8000/v1, or sim:default?ttft_factor=1.6 to rehearse a regression)"},
		&ucli.IntFlag{Name: "requests", DefaultText: "from config", Usage: "override run.requests (measured requests per target × prompt)"},
		&ucli.IntFlag{Name: "warmup", DefaultText: "from config", Usage: "override run.warmup"},
		&ucli.IntFlag{Name: "concurrency", DefaultText: "from config", Usage: "override run.concurrency"},
		&ucli.DurationFlag{Name: "timeout", DefaultText: "from config", Usage: "override run.timeout (per request)"},
		&ucli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress on stderr"},
	}
}

func parseRunFlags(c *ucli.Context) runFlags {
	f := runFlags{ConfigPath: c.String("config"), BaseURL: c.String("base-url"), Quiet: c.Bool("quiet")}
	intFlag := func(name string) *int {
		if !c.IsSet(name) {
			return nil
		}
		v := c.Int(name)
		return &v
	}
	f.Requests, f.Warmup, f.Concurrency = intFlag("requests"), intFlag("warmup"), intFlag("concurrency")
	if c.IsSet("timeout") {
		d := c.Duration("timeout")
		f.Timeout = &d
	}
	return f
}

// apply validates the run overrides against the bounds the config has
// (package results holds them) and sets them on cfg.
func (f runFlags) apply(cfg *config.Config) error {
	check := func(name string, v *int, least, most int) error {
		if v != nil && (*v < least || *v > most) {
			return usageErr(fmt.Errorf("--%s must be between %d and %d, got %d", name, least, most, *v))
		}
		return nil
	}
	if err := errors.Join(
		check("requests", f.Requests, 1, results.MaxRequests),
		check("warmup", f.Warmup, 0, results.MaxWarmup),
		check("concurrency", f.Concurrency, 1, config.MaxConcurrency),
	); err != nil {
		return err
	}
	if f.Timeout != nil && (*f.Timeout <= 0 || *f.Timeout > config.MaxTimeout) {
		return usageErr(fmt.Errorf("--timeout must be above 0 and at most %s, got %v", config.MaxTimeout, *f.Timeout))
	}
	if f.BaseURL != "" {
		// Checked here, so that a bad value blames the flag, not the
		// config line whose base_url it overrides.
		if t := (config.Target{BaseURL: f.BaseURL}); t.IsSim() {
			if _, err := sim.ParseSpec(t.SimSpec()); err != nil {
				return usageErr(fmt.Errorf("--base-url %q: %w", f.BaseURL, err))
			}
		} else if err := checkURL(t); err != nil {
			return usageErr(fmt.Errorf("--base-url %q is not an http(s) URL (e.g. http://127.0.0.1:8000/v1), nor sim or sim:PROFILE", sanitize.URL(f.BaseURL)))
		}
		for i := range cfg.Targets {
			cfg.Targets[i].BaseURL = f.BaseURL
		}
	}
	if f.Requests != nil {
		cfg.Run.Requests = *f.Requests
	}
	if f.Warmup != nil {
		cfg.Run.Warmup = *f.Warmup
	}
	if msg := config.RunTooLarge(cfg.Run.Requests, cfg.Run.Warmup, len(cfg.Prompts)); msg != "" {
		return usageErr(fmt.Errorf("%s (with --requests/--warmup)", msg))
	}
	if f.Concurrency != nil {
		cfg.Run.Concurrency = *f.Concurrency
	}
	if f.Timeout != nil {
		cfg.Run.Timeout = *f.Timeout
	}
	return nil
}

// loadConfig loads the config and applies the flag overrides.
func loadConfig(env Env, f runFlags) (*config.Config, error) {
	env.learn(sanitize.Credentials("", f.BaseURL)...)
	env.learn(sanitize.Credentials("", env.Getenv("OPENAI_BASE_URL"))...)
	cfg, err := config.Load(f.ConfigPath, configOptions(env))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, usageErr(fmt.Errorf("no config at %s: pass --config FILE, or start from examples/latgate.yaml (latgate init writes one)", f.ConfigPath))
	}
	if err != nil {
		return nil, usageErr(err)
	}
	if err := f.apply(cfg); err != nil {
		return nil, err
	}
	learnTargets(env, cfg)
	return cfg, nil
}

// learnTargets tells every output the credentials latgate will send.
func learnTargets(env Env, cfg *config.Config) {
	for _, t := range cfg.Targets {
		env.learn(sanitize.Credentials(env.Getenv(t.APIKeyEnv), t.BaseURL)...)
	}
}

// runMeasurement measures cfg and returns the results. The file is non-nil
// whenever anything was measured, also with an error (partial results).
func runMeasurement(ctx context.Context, env Env, cfg *config.Config, quiet bool) (*results.File, error) {
	eps, stop, err := endpoints(ctx, env, cfg)
	if err != nil {
		return nil, err
	}
	defer stop()
	f, err := measureOn(ctx, env, cfg, eps, cfg.Prompts, cfg.Run, quiet, nil)
	if err != nil {
		return f, err
	}
	if err := results.CheckBudget(f); err != nil {
		return f, measurementErr(withEndpointSaid(err, f))
	}
	return f, nil
}

// measureOn measures prompts on running endpoints with run's settings. The
// caller checks the error budget (on the whole of check's rounds); before,
// the earlier rounds, lets measure's give-up rule count them too.
func measureOn(ctx context.Context, env Env, cfg *config.Config, eps []measure.Endpoint, prompts []config.Prompt, run config.Run, quiet bool, before *results.File) (*results.File, error) {
	var obs measure.Observer
	var progress *publish.Progress
	if !quiet {
		progress = env.out.Progress(time.Now)
		obs = progress
	}
	f, err := measure.Run(ctx, measure.Options{
		Endpoints:  eps,
		Prompts:    prompts,
		Run:        run,
		Observer:   obs,
		Version:    readBuild().Version,
		ConfigPath: cfg.Path,
		ConfigHash: cfg.Hash,
		Before:     before,
	})
	if progress != nil {
		progress.Finish()
	}
	if err != nil {
		return f, measurementErr(err)
	}
	return f, nil
}

type measureOptions struct {
	runFlags
	historyFlags
	Out string
}

func measureCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "measure",
		Usage:     "measure latency and print it (and write a results file); no baseline involved",
		UsageText: "latgate measure [--config latgate.yaml] [--out results.json]",
		Description: `Streams every prompt of the config against every target, run.requests times
each (after run.warmup unmeasured requests), interleaving prompts so slow drift
spreads evenly, and prints P50/P95 of TTFT, ITL, total time and tokens/s.

Metrics (all from the moment the request is sent, monotonic clock):
  ttfb       response headers arrived
  ttft       first chunk carrying a token (content, reasoning, or tool call);
             role-only chunks, empty chunks, keep-alives and usage are not tokens
  ttfct      first content (answer) token; later than ttft for reasoning models
  itl        each gap between consecutive token-bearing chunks, pooled
  tpot       (last token - first token) / (output tokens - 1), per request
  total      end of stream
  max_stall  longest gap between tokens in one request
  tokens_per_s  decode rate, (output tokens - 1) / (last token - first token)

Ctrl-C stops cleanly and still writes what was measured, marked partial.

With --history FILE (or history: in the config) a complete run within its
error budget adds a compact record to that JSON Lines file, for 'latgate trend'.

` + measureExitHelp,
		Flags: append(append(runFlagDefs(), historyFlagDefs()...),
			&ucli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write the results JSON (latgate.results/v1) to `FILE`", TakesFile: true},
		),
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usageErr(fmt.Errorf("measure takes no arguments, got %q (did you mean --config %s?)", c.Args().First(), c.Args().First()))
			}
			return runMeasure(c.Context, env, measureOptions{runFlags: parseRunFlags(c), historyFlags: parseHistoryFlags(c), Out: c.String("out")})
		},
	}
}

func runMeasure(ctx context.Context, env Env, opts measureOptions) error {
	if err := opts.historyFlags.validate(); err != nil {
		return err
	}
	cfg, err := loadConfig(env, opts.runFlags)
	if err != nil {
		return err
	}
	sink := env.out.Sink()
	sink.InputConfig(cfg)
	sink.Input("the baseline", cfg.Baseline)
	out := sink.Output("--out", opts.Out)
	hist := sink.Output("--history", opts.historyFlags.path(cfg))
	if err := sink.Check(); err != nil {
		return usageErr(err)
	}
	f, merr := runMeasurement(ctx, env, cfg, opts.Quiet)
	if f == nil {
		return merr
	}
	if err := report.Measure(env.Stdout, f); err != nil {
		return err
	}
	outErr := writeRecorded(out, compare.Recorded{File: f})
	if out != nil && outErr == nil {
		fmt.Fprintf(env.Stderr, "results written to %s\n", out.Path)
	}
	if merr != nil {
		if outErr != nil {
			fmt.Fprintf(env.Stderr, "latgate: %v\n", outErr)
		}
		return merr
	}
	if err := outputErr("", false, outErr, recordHistory(ctx, env, hist, opts.Keep, cfg, f, "measure", "")); err != nil {
		return fmt.Errorf("%w (the measurement itself was complete)", err)
	}
	return nil
}

// withEndpointSaid adds to a budget error the first distinct messages of
// each failure class, so the exit-3 line (and the JUnit, Markdown and job
// summary that carry it) has the endpoint's own words, not only counts.
func withEndpointSaid(err error, f *results.File) error {
	var said []string
	for _, t := range f.Targets {
		if s := results.EndpointSaid(t.FirstFailures(results.MaxSaidPerClass)); s != "" {
			if len(f.Targets) > 1 {
				s = "target " + t.Label() + ": " + s
			}
			said = append(said, s)
		}
	}
	if len(said) == 0 {
		return err
	}
	return fmt.Errorf("%w%s%s", err, results.SaidSep, strings.Join(said, "; "))
}
