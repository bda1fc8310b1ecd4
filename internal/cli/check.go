package cli

import (
	"context"
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/report"
	"github.com/latgate/latgate/pkg/results"
)

type checkOptions struct {
	runFlags
	gateFlags
	Baseline string
	Out      string
}

func checkCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "check",
		Usage:     "measure and compare with the baseline: the CI gate",
		UsageText: "latgate check [--config latgate.yaml] [--junit junit.xml] [--markdown report.md] [--strict]",
		Description: `Measures like 'latgate measure', then compares every gated metric and
statistic (gate.checks; default TTFT and ITL at P50 and P95) with the baseline
that 'latgate bless' wrote. Each check gets a bootstrap confidence interval of
current/baseline from whole requests, and a verdict:

  regressed     the whole interval is beyond the tolerance (exit 1)
  improved      the whole interval is beyond the tolerance on the faster side
  ok            the interval rules out a regression beyond the tolerance
  inconclusive  the interval straddles the tolerance, or the statistic needs
                more requests than were taken (P95 needs 59); fails with --strict

The tolerance is relative AND absolute: a change smaller than the floor (e.g.
20ms) is never a regression. Before measuring, check refuses (exit 2) a
baseline that measured something else: an edited, added or removed prompt, a
different target, model, endpoint (base_url), max_tokens, temperature,
extra_body or concurrency.

Inside GitHub Actions (GITHUB_ACTIONS=true) it also appends the report and a
chart to $GITHUB_STEP_SUMMARY, emits ::error/::warning annotations, and writes
verdict=<regressed|inconclusive|ok|improved|error> to $GITHUB_OUTPUT.

` + exitCodesHelp,
		Flags: append(append(runFlagDefs(), gateFlagDefs()...),
			&ucli.StringFlag{Name: "baseline", Aliases: []string{"b"}, Usage: "the baseline `FILE` (default: the config's baseline:, or latgate.baseline.json beside it)", TakesFile: true},
			&ucli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "also write the results JSON, with the comparison, to `FILE`", TakesFile: true},
		),
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usageErr(fmt.Errorf("check takes no arguments, got %q", c.Args().First()))
			}
			return runCheck(c.Context, env, checkOptions{
				runFlags: parseRunFlags(c), gateFlags: parseGateFlags(c),
				Baseline: c.String("baseline"), Out: c.String("out"),
			})
		},
	}
}

func runCheck(ctx context.Context, env Env, opts checkOptions) (err error) {
	defer func() {
		if err != nil && exitCode(err) != ExitRegression {
			publishFailure(env, opts.gateFlags, err)
		}
	}()
	cfg, err := loadConfig(env, opts.runFlags)
	if err != nil {
		return err
	}
	basePath := cfg.Baseline
	if opts.Baseline != "" {
		basePath = opts.Baseline
	}
	if err := guardBaseline(basePath, map[string]string{"out": opts.Out, "junit": opts.Junit, "markdown": opts.Markdown}); err != nil {
		opts.gateFlags = gateFlags{} // and write no error report over it either
		return err
	}
	base, err := loadBaseline(basePath)
	if err != nil {
		return err
	}
	baseSide := side(base.Run, base.Targets)
	if ms := compare.Compatible(baseSide, planned(cfg)); len(ms) > 0 {
		return mismatchError(basePath, ms)
	}

	f, merr := runMeasurement(ctx, env, cfg, opts.Quiet)
	if f == nil {
		return merr
	}
	if err := report.Measure(env.Stdout, f); err != nil {
		return err
	}
	if merr != nil {
		// Nothing is compared on a failed or interrupted run: its samples
		// are not the population the baseline describes.
		if opts.Out != "" {
			if err := results.Write(opts.Out, f); err == nil {
				fmt.Fprintf(env.Stderr, "latgate: partial results written to %s\n", opts.Out)
			}
		}
		return merr
	}
	fmt.Fprintln(env.Stdout)
	rep := compare.Compare(baseSide, side(f.Run, f.Targets), cfg.Gate)
	f.Comparison = rep
	if opts.Out != "" {
		if err := results.Write(opts.Out, f); err != nil {
			return usageErr(fmt.Errorf("writing results: %w", err))
		}
	}
	ropts := report.Options{Strict: opts.Strict, BaselinePath: basePath, Results: "this run"}
	if err := publish(env, rep, opts.gateFlags, ropts, locator(cfg)); err != nil {
		return err
	}
	return gateOutcome(rep, opts.Strict)
}
