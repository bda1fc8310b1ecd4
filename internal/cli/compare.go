package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/internal/publish"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/report"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/trend"
)

type compareOptions struct {
	gateFlags
	Baseline, Results string
	ConfigPath        string
	// ConfigOptional: ConfigPath is the default, used only if it exists.
	ConfigOptional bool
}

func compareCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "compare",
		Usage:     "compare a saved results file with a baseline, offline",
		UsageText: "latgate compare [--config latgate.yaml] BASELINE RESULTS",
		Description: `The gate of 'latgate check' on saved files: same files, same output (the
bootstrap is seeded). The gate settings (gate: in latgate.yaml) come from
--config when given, else from ./latgate.yaml when there is one, like the
other commands, else the defaults (TTFT at P50 and P90, ITL at P50 and
P95); stderr says which it used.

` + exitCodesHelp,
		Flags: append(gateFlagDefs(),
			&ucli.StringFlag{Name: "config", Aliases: []string{"c"}, Value: defaultConfig, Usage: "take the gate settings from this latgate.yaml (the default file is optional: without it, the default gate)", TakesFile: true},
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
			return runCompare(env, compareOptions{gateFlags: parseGateFlags(c), Baseline: c.Args().Get(0), Results: c.Args().Get(1), ConfigPath: c.String("config"), ConfigOptional: !c.IsSet("config")})
		},
	}
}

func runCompare(env Env, opts compareOptions) (err error) {
	sink := opts.gateFlags.sink(env)
	sink.Input("the config", opts.ConfigPath)
	sink.Input("BASELINE", opts.Baseline)
	sink.Input("RESULTS", opts.Results)
	defer func() { publishFailed(env, sink, err) }()
	var cfg *config.Config
	gate := config.DefaultGate()
	source := ": the defaults (no --config, and no ./" + defaultConfig + ")"
	if _, statErr := os.Stat(opts.ConfigPath); opts.ConfigPath != "" && (!opts.ConfigOptional || statErr == nil) {
		c, err := config.Load(opts.ConfigPath, configOptions(env))
		if errors.Is(err, fs.ErrNotExist) {
			return usageErr(fmt.Errorf("no config at %s: pass --config FILE with the gate settings, or leave it out for the defaults", opts.ConfigPath))
		}
		if err != nil {
			return usageErr(err)
		}
		cfg, gate, source = c, c.Gate, " from "+opts.ConfigPath
		learnTargets(env, cfg)
	}
	fmt.Fprintf(env.Stderr, "latgate: gate settings%s: %s\n", source, report.DescribeGate(gate))
	if cfg != nil {
		sink.InputConfig(cfg)
	}
	if err := sink.Check(); err != nil {
		return usageErr(err)
	}
	base, err := loadBaseline(opts.Baseline)
	if err != nil {
		return err
	}
	if err := refuseThin(opts.Baseline, base, gate); err != nil {
		return err
	}
	f, err := results.Read(opts.Results)
	if err != nil {
		return usageErr(err)
	}
	if f.Partial && f.GaveUp {
		return measurementErr(fmt.Errorf("%s: the run gave up early (%s): compare a complete run", opts.Results, f.PartialReason))
	}
	if f.Partial {
		return usageErr(fmt.Errorf("%s is a partial run (%s): compare a complete one", opts.Results, f.PartialReason))
	}
	if err := results.CheckBudget(f); err != nil {
		return measurementErr(fmt.Errorf("%s: %w: compare a run within its budget", opts.Results, err))
	}
	baseSide, curSide := side(base.Run, base.Targets), side(f.Run, f.Targets)
	if err := admit(opts.Baseline, baseSide, curSide, opts.StrictBaseline); err != nil {
		return err
	}
	// A results file from check records the cap of its rounds: compare at
	// the same looks, so the verdicts are check's.
	rep := compare.CompareSequential(baseSide, curSide, gate, compare.NewDesign(f.Run.Requests, f.Run.MaxRequests))
	// Staleness and comparability, counted to when the results were measured
	// (so the same files give the same report).
	bp := trend.OfBaseline(base)
	rep.Warnings = append(rep.Warnings, trend.Staleness(bp, trend.OfResults(f), gate.MaxBaselineAge, f.FinishedAt)...)
	ropts := report.Options{Strict: opts.Strict, BaselinePath: opts.Baseline, Blessed: trend.BlessedBefore(bp, f.FinishedAt), Results: opts.Results, Wall: report.WallOf(f)}
	if cfg != nil {
		ropts.Bless = blessCommandLine(cfg, opts.Baseline, opts.Results)
	}
	return gateOutcome(rep, opts.Strict, sink.Publish(publish.Gate(rep, ropts, locator(cfg))))
}

// defaultConfig is the config file every command reads when --config is not given.
const defaultConfig = "latgate.yaml"
