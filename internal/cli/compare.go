package cli

import (
	"fmt"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/measure"
	"github.com/latgate/latgate/pkg/report"
	"github.com/latgate/latgate/pkg/results"
)

type compareOptions struct {
	gateFlags
	Baseline, Results string
	ConfigPath        string
}

func compareCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "compare",
		Usage:     "compare a saved results file with a baseline, offline",
		UsageText: "latgate compare [--config latgate.yaml] BASELINE RESULTS",
		Description: `The gate of 'latgate check' on saved files: same files, same output (the
bootstrap is seeded). The gate settings come from --config when given, else
the defaults (TTFT and ITL at P50 and P95).

` + exitCodesHelp,
		Flags: append(gateFlagDefs(),
			&ucli.StringFlag{Name: "config", Aliases: []string{"c"}, Usage: "take the gate settings from this latgate.yaml", TakesFile: true},
		),
		Action: func(c *ucli.Context) error {
			for _, a := range c.Args().Slice() {
				if strings.HasPrefix(a, "-") {
					return usageErr(fmt.Errorf("flags go before BASELINE and RESULTS: latgate compare [flags] BASELINE RESULTS (got %q after them)", a))
				}
			}
			if c.NArg() != 2 {
				return usageErr(fmt.Errorf("compare takes two files, BASELINE and RESULTS; got %d argument(s)", c.NArg()))
			}
			return runCompare(env, compareOptions{gateFlags: parseGateFlags(c), Baseline: c.Args().Get(0), Results: c.Args().Get(1), ConfigPath: c.String("config")})
		},
	}
}

func runCompare(env Env, opts compareOptions) (err error) {
	defer func() {
		if err != nil && exitCode(err) != ExitRegression {
			publishFailure(env, opts.gateFlags, err)
		}
	}()
	var cfg *config.Config
	gate := config.DefaultGate()
	if opts.ConfigPath != "" {
		c, err := config.Load(opts.ConfigPath, config.Options{Getenv: env.Getenv})
		if err != nil {
			return usageErr(err)
		}
		cfg, gate = c, c.Gate
		learnTargets(env, cfg)
	}
	if err := guardBaseline(opts.Baseline, map[string]string{"junit": opts.Junit, "markdown": opts.Markdown}); err != nil {
		opts.gateFlags = gateFlags{}
		return err
	}
	base, err := loadBaseline(opts.Baseline)
	if err != nil {
		return err
	}
	f, err := results.Read(opts.Results)
	if err != nil {
		return usageErr(err)
	}
	if f.Partial {
		return usageErr(fmt.Errorf("%s is a partial run (%s): compare a complete one", opts.Results, f.PartialReason))
	}
	if err := measure.CheckBudget(f); err != nil {
		return measurementErr(fmt.Errorf("%s: %w: compare a run within its budget", opts.Results, err))
	}
	baseSide, curSide := side(base.Run, base.Targets), side(f.Run, f.Targets)
	if ms := compare.Compatible(baseSide, curSide); len(ms) > 0 {
		return mismatchError(opts.Baseline, ms)
	}
	rep := compare.Compare(baseSide, curSide, gate)
	if err := publish(env, rep, opts.gateFlags, report.Options{Strict: opts.Strict, BaselinePath: opts.Baseline, Results: opts.Results}, locator(cfg)); err != nil {
		return err
	}
	return gateOutcome(rep, opts.Strict)
}
