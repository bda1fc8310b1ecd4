package cli

import (
	"context"
	"fmt"
	"slices"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/internal/jsonfile"
	"github.com/latgate/latgate/internal/publish"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/report"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/trend"
)

type checkOptions struct {
	runFlags
	gateFlags
	historyFlags
	Baseline string
	Out      string
	// RequireBaseline makes a missing baseline exit 2 instead of measuring
	// ungated (the nightly job: a lost baseline must not pass unnoticed).
	RequireBaseline bool
}

func checkCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "check",
		Usage:     "measure and compare with the baseline: the CI gate",
		UsageText: "latgate check [--config latgate.yaml] [--junit junit.xml] [--markdown report.md] [--strict]",
		Description: `Measures like 'latgate measure', then compares every gated metric and
statistic (gate.checks; default TTFT at P50 and P90, ITL at P50 and P95)
with the baseline that 'latgate bless' wrote. Each check gets a bootstrap
confidence interval of current/baseline from whole requests, and a verdict:

  regressed     the whole interval is beyond the tolerance (exit 1)
  improved      the whole interval is beyond the tolerance on the faster side
  ok            the interval rules out a regression beyond the tolerance
                (the report says what it ruled out: "rules out > +9%")
  inconclusive  the interval straddles the tolerance, or the statistic needs
                more requests than were taken (P90 needs 29, P95 59); the
                report says about how many more would decide it; fails with
                --strict

Sequential looks: check first measures run.requests per prompt; while some
check is inconclusive, it measures another round for the prompts holding
undecided checks, up to run.max_requests (default 2.5 x run.requests), and
says why on stderr. Each look's interval is a repeated confidence interval
(Lan-DeMets alpha spending), so looking again does not add false alarms.

The tolerance is relative AND absolute: a change smaller than the floor is
never a regression. An unset floor is latgate's timing resolution (1 ms;
0.25 ms for itl and tpot), so a doubled 5 ms TTFT is a regression.

Absolute limits: a check with max (e.g. {metric: ttft, stat: p95, max: 800ms},
alone or beside a tolerance) also holds each prompt's statistic to that
limit, by the interval of this run's statistic alone: regressed when the
whole interval is above max, ok when it is at or below. Limits need no
baseline: they gate new prompts, and a run without a baseline file.

A pull request that changes the config is gated, not refused: a changed
model, endpoint (base_url), max_tokens, temperature, extra_body or
concurrency is compared with the old baseline and every check is labelled
("model a → b"); an edited prompt is compared and labelled "edited"; a new
prompt is measured and reported as "new: no baseline" (not gated); a removed
one is reported. Only a baseline with no target and prompt in common exits
2; --strict-baseline refuses any difference. Blessing in the same pull
request marks the change as intended.

Without a baseline file, check measures, reports, writes the results (--out,
else latgate.results.json beside the baseline) and exits 0 with the warning
"no baseline: nothing was gated" (verdict=no-baseline in $GITHUB_OUTPUT);
--require-baseline makes that exit 2. A gate with limits (max) gates those
alone then, and exits 1 when one is breached.

Inside GitHub Actions (GITHUB_ACTIONS=true) it also appends the report and a
chart to $GITHUB_STEP_SUMMARY, emits ::error/::warning annotations, and writes
verdict=<regressed|inconclusive|ok|improved|no-baseline|error> to $GITHUB_OUTPUT.

With --history FILE (or history: in the config) a complete run also adds a
compact record (a few KB) to that JSON Lines file, for 'latgate trend'.

` + exitCodesHelp,
		Flags: append(append(append(runFlagDefs(), gateFlagDefs()...), historyFlagDefs()...),
			&ucli.StringFlag{Name: "baseline", Aliases: []string{"b"}, Usage: "the baseline `FILE` (default: the config's baseline:, or latgate.baseline.json beside it)", TakesFile: true},
			&ucli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "also write the results JSON, with the comparison, to `FILE` (without a baseline: default latgate.results.json beside it)", TakesFile: true},
			&ucli.BoolFlag{Name: "require-baseline", Usage: "exit 2 when there is no baseline file, instead of measuring ungated and passing (use it in nightly jobs)"},
		),
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usageErr(fmt.Errorf("check takes no arguments, got %q", c.Args().First()))
			}
			return runCheck(c.Context, env, checkOptions{
				runFlags: parseRunFlags(c), gateFlags: parseGateFlags(c), historyFlags: parseHistoryFlags(c),
				Baseline: c.String("baseline"), Out: c.String("out"), RequireBaseline: c.Bool("require-baseline"),
			})
		},
	}
}

func runCheck(ctx context.Context, env Env, opts checkOptions) (err error) {
	sink := opts.gateFlags.sink(env)
	sink.Input("the config", opts.ConfigPath)
	sink.Input("the baseline", opts.Baseline)
	out := sink.Output("--out", opts.Out)
	defer func() { publishFailed(env, sink, err) }()
	if err := opts.historyFlags.validate(); err != nil {
		return err
	}
	cfg, err := loadConfig(env, opts.runFlags)
	if err != nil {
		return err
	}
	basePath := cfg.Baseline
	if opts.Baseline != "" {
		basePath = opts.Baseline
	}
	sink.InputConfig(cfg)
	sink.Input("the baseline", basePath)
	hist := sink.Output("--history", opts.historyFlags.path(cfg))
	if err := sink.Check(); err != nil {
		return usageErr(err)
	}
	base, err := loadBaseline(basePath)
	if errNoBaseline(err) && !opts.RequireBaseline {
		return runUngated(ctx, env, sink, cfg, opts, basePath, out, hist)
	}
	if errNoBaseline(err) {
		return usageErr(fmt.Errorf("%w (--require-baseline: a run without a baseline gates nothing, so it fails)", err))
	}
	if err != nil {
		return err
	}
	if err := refuseThin(basePath, base, cfg.Gate); err != nil {
		return err
	}
	baseSide := side(base.Run, base.Targets)
	if err := admit(basePath, baseSide, planned(cfg), opts.StrictBaseline); err != nil {
		return err
	}

	f, rep, merr := measureSequential(ctx, env, cfg, baseSide, opts.Quiet)
	if f == nil {
		return merr
	}
	if err := reportMeasured(env, f, merr, opts.Out); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout)
	// The verdict is published whatever could not be written.
	outErr := writeRecorded(out, compare.Recorded{File: f, Comparison: &rep})
	// Staleness and comparability: when and where the baseline was blessed,
	// and whether it still describes what this run measured.
	bp := trend.OfBaseline(base)
	now := time.Now()
	rep.Warnings = append(rep.Warnings, trend.Staleness(bp, resultsProvenance(env, cfg, f), cfg.Gate.MaxBaselineAge, now)...)
	ropts := report.Options{Strict: opts.Strict, BaselinePath: basePath, Blessed: trend.Blessed(bp, now), Results: "this run", Wall: report.WallOf(f),
		Rerun: "latgate check --config " + shellQuote(cfg.Path), Bless: blessCommandLine(cfg, opts.Baseline, "")}
	pubErr := sink.Publish(publish.Gate(rep, ropts, locator(cfg)))
	histErr := recordHistory(ctx, env, hist, opts.Keep, cfg, f, "check", string(rep.Verdict))
	return gateOutcome(rep, opts.Strict, outErr, pubErr, histErr)
}

// runUngated is check without a baseline: measure, report and write the
// results (so `bless --from` can make them the first baseline), then pass
// with a warning that nothing was gated. A failed run still exits 3.
func runUngated(ctx context.Context, env Env, sink *publish.Sink, cfg *config.Config, opts checkOptions, basePath string, out, hist *publish.File) error {
	if out == nil {
		out = sink.Output("the results", defaultResultsPath(basePath))
		if err := sink.Check(); err != nil {
			return usageErr(err)
		}
	}
	if hasLimits(cfg.Gate) {
		return runLimitsOnly(ctx, env, sink, cfg, opts, basePath, out, hist)
	}
	f, merr := runMeasurement(ctx, env, cfg, opts.Quiet)
	if f == nil {
		return merr
	}
	if err := reportMeasured(env, f, merr, opts.Out); err != nil {
		return err
	}
	outErr := writeRecorded(out, compare.Recorded{File: f})
	pubErr := sink.Publish(publish.NoBaseline(noBaselineNotice(basePath, out.Path, cfg.Path)))
	histErr := recordHistory(ctx, env, hist, opts.Keep, cfg, f, "check", publish.NoBaselineVerdict)
	return outputErr(publish.NoBaselineVerdict, false, outErr, pubErr, histErr)
}

// hasLimits reports whether some gate check has an absolute limit (max).
func hasLimits(g config.Gate) bool {
	return slices.ContainsFunc(g.Checks, func(c config.Check) bool { return c.Max > 0 })
}

// runLimitsOnly is check without a baseline when the gate has absolute
// limits: those need no baseline, so they are gated (in sequential rounds
// like any check) and decide the exit code; the relative checks are
// reported as new, as for a prompt the baseline lacks.
func runLimitsOnly(ctx context.Context, env Env, sink *publish.Sink, cfg *config.Config, opts checkOptions, basePath string, out, hist *publish.File) error {
	f, rep, merr := measureSequential(ctx, env, cfg, compare.Side{}, opts.Quiet)
	if f == nil {
		return merr
	}
	if err := reportMeasured(env, f, merr, opts.Out); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout)
	outErr := writeRecorded(out, compare.Recorded{File: f, Comparison: &rep})
	// Everything is "new" against no baseline: say it once, not per row.
	rep.Changes = nil
	for i := range rep.Checks {
		rep.Checks[i].Labels = nil
	}
	rep.Warnings = append(rep.Warnings, limitsOnlyNotice(basePath, out.Path, cfg.Path))
	ropts := report.Options{Strict: opts.Strict, Results: "this run", Wall: report.WallOf(f),
		Rerun: "latgate check --config " + shellQuote(cfg.Path), Bless: blessCommandLine(cfg, opts.Baseline, "")}
	pubErr := sink.Publish(publish.Gate(rep, ropts, locator(cfg)))
	histErr := recordHistory(ctx, env, hist, opts.Keep, cfg, f, "check", string(rep.Verdict))
	return gateOutcome(rep, opts.Strict, outErr, pubErr, histErr)
}

// reportMeasured prints what a run measured. When the run failed or was
// interrupted (merr), nothing is compared: its samples are not the
// population the baseline describes, so it writes them to out (--out, when
// given) as partial results and returns merr.
func reportMeasured(env Env, f *results.File, merr error, out string) error {
	if err := report.Measure(env.Stdout, f); err != nil {
		return err
	}
	if merr == nil {
		return nil
	}
	if out != "" {
		if err := results.Write(out, f); err == nil {
			fmt.Fprintf(env.Stderr, "latgate: partial results written to %s\n", out)
		}
	}
	return merr
}

// writeRecorded atomically writes a results file with its comparison (nil:
// none), in the encoding of every latgate JSON file; a nil file is not
// written.
func writeRecorded(out *publish.File, r compare.Recorded) error {
	if out == nil {
		return nil
	}
	data, err := jsonfile.Encode(r)
	if err != nil {
		return fmt.Errorf("could not write %s %s: encode: %w", out.Role, out.Path, err)
	}
	return out.Write(data)
}
