package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/internal/publish"
	"github.com/latgate/latgate/pkg/baseline"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/history"
	"github.com/latgate/latgate/pkg/report"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/trend"
)

type trendOptions struct {
	ConfigPath string
	History    string
	Baseline   string
	Junit      string
	Markdown   string
	Window     int
	Recent     int
	Chart      int
	Now        time.Time
}

const trendExitHelp = `EXIT CODES:
   0  no regression (or too few runs to tell)
   1  the newest runs hold a regression change point that the baseline does
      not have, or have drifted beyond a check's tolerance from the baseline
   2  usage, config, history or baseline problem`

func trendCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "trend",
		Usage:     "find change points and slow drift in the run history (the nightly job)",
		UsageText: "latgate trend [--config latgate.yaml] [--history FILE] [--junit junit.xml] [--markdown trend.md]",
		Description: `Reads the run history that 'check --history' and 'measure --history' append
to, and for each target × prompt × gated check (gate.checks) analyses the
newest runs (--window):

  change points  E-divisive means (Matteson & James 2014, as in Apache Otava)
                 with a seeded permutation test (199 permutations, p <= 0.01)
                 and at least 3 runs on each side: each with its run, date,
                 commit and size with an interval
  drift          the newest runs (--recent, after the last change point)
                 against the baseline, with an interval that counts the
                 run-to-run noise of both sides

A series is REGRESSED when its newest change point is a slowdown beyond the
check's tolerance (tolerance and floor, as the gate computes them) that
happened after the baseline was blessed, or when its drift interval is wholly
beyond the tolerance. A change within the tolerance, or one the baseline
already has, is reported, not failed. Runs of an edited prompt start a new
series. Every report says when and where the baseline was blessed and warns
when it is older than gate.max_baseline_age, or the model, system
fingerprint, runner or latgate version changed since.

Inside GitHub Actions it also appends the report and a Mermaid line chart of
the newest runs (--chart) to $GITHUB_STEP_SUMMARY, emits ::error/::warning
annotations, and writes verdict=<regressed|changed|ok|insufficient> to
$GITHUB_OUTPUT; on a regression also issue-key=<target>/<when the baseline was
blessed>, the same for every night until the baseline is blessed again (the
example workflow keeps one issue per key), and issue-title=.

` + trendExitHelp,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "config", Aliases: []string{"c"}, Value: "latgate.yaml", Usage: "the latgate.yaml whose checks and tolerances apply", TakesFile: true},
			&ucli.StringFlag{Name: "history", Usage: "the history `FILE` (default: the config's history:)", TakesFile: true},
			&ucli.StringFlag{Name: "baseline", Aliases: []string{"b"}, Usage: "the baseline `FILE` (default: the config's baseline:)", TakesFile: true},
			&ucli.StringFlag{Name: "junit", Usage: "write a JUnit XML report to `FILE` (one testcase per series)", TakesFile: true},
			&ucli.StringFlag{Name: "markdown", Usage: "write the report with its chart as Markdown to `FILE`", TakesFile: true},
			&ucli.IntFlag{Name: "window", Value: trend.DefaultWindow, Usage: "analyse the newest `N` runs of each series"},
			&ucli.IntFlag{Name: "recent", Value: trend.DefaultRecent, Usage: "measure the drift from the baseline over the newest `N` runs"},
			&ucli.IntFlag{Name: "chart", Value: 30, Usage: "chart the newest `N` runs"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usageErr(fmt.Errorf("trend takes no arguments, got %q (did you mean --history %s?)", c.Args().First(), c.Args().First()))
			}
			return runTrend(env, trendOptions{
				ConfigPath: c.String("config"), History: c.String("history"), Baseline: c.String("baseline"),
				Junit: c.String("junit"), Markdown: c.String("markdown"),
				Window: c.Int("window"), Recent: c.Int("recent"), Chart: c.Int("chart"), Now: time.Now(),
			})
		},
	}
}

func runTrend(env Env, opts trendOptions) error {
	for _, f := range []struct {
		name     string
		v, least int
	}{{"window", opts.Window, 3}, {"recent", opts.Recent, 1}, {"chart", opts.Chart, 2}} {
		if f.v < f.least {
			return usageErr(fmt.Errorf("--%s must be at least %d, got %d", f.name, f.least, f.v))
		}
	}
	in, err := loadHistoryInputs(env, opts.ConfigPath, opts.History, opts.Baseline)
	if err != nil {
		return err
	}
	cfg, hist, base, path, basePath, warnings := in.cfg, in.hist, in.base, in.path, in.basePath, in.warnings
	sink := env.out.ReportSink(publish.Reports{JUnit: opts.Junit, Markdown: opts.Markdown})
	sink.InputConfig(cfg)
	sink.Input("the history", path)
	sink.Input("the baseline", basePath)
	if err := sink.Check(); err != nil {
		return usageErr(err)
	}
	spec := trend.SpecFor(cfg, base)
	rep := trend.Analyze(hist.Records, spec, trend.Options{
		Window: opts.Window, Recent: opts.Recent, Confidence: cfg.Gate.Confidence, Seed: uint64(cfg.Gate.Seed),
	})
	ropts := report.TrendOptions{History: path, Chart: opts.Chart, Now: opts.Now}
	if base != nil {
		bp := trend.OfBaseline(base)
		ropts.Baseline = fmt.Sprintf("%s, %s", basePath, trend.Blessed(bp, opts.Now))
		if n := len(hist.Records); n > 0 {
			warnings = append(warnings, trend.Staleness(bp, trend.OfRecord(hist.Records[n-1]), cfg.Gate.MaxBaselineAge, opts.Now)...)
		}
	}
	var issue []publish.Output
	if key, title, ok := trend.IssueKey(rep, base); ok {
		issue = []publish.Output{{Name: "issue-key", Value: key}, {Name: "issue-title", Value: title}}
	}
	regressed := rep.Verdict == trend.Regressed
	if err := outputErr(string(rep.Verdict), regressed, sink.Publish(publish.Trend(rep, warnings, ropts, issue...))); err != nil {
		env.out.AnnotateError("latgate: output not written", err)
		return err
	}
	if regressed {
		return errRegression
	}
	return nil
}

// historyInputs is what trend and tune read: the config, the history and
// the baseline (nil when there is none), with the warnings reading them gave.
type historyInputs struct {
	cfg            *config.Config
	hist           *history.File
	base           *baseline.File
	path, basePath string
	warnings       []string
}

func loadHistoryInputs(env Env, configPath, historyPath, baselinePath string) (historyInputs, error) {
	var in historyInputs
	cfg, err := loadConfig(env, runFlags{ConfigPath: configPath})
	if err != nil {
		return in, err
	}
	path := historyPath
	if path == "" {
		path = cfg.History
	}
	if path == "" {
		return in, usageErr(fmt.Errorf("no history to analyse: pass --history FILE, or set history: in %s (check --history FILE writes it)", cfg.Path))
	}
	hist, err := history.Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return in, usageErr(fmt.Errorf("no history at %s: run 'latgate check --history %s' (nightly) to start one", path, path))
	}
	if err != nil {
		return in, usageErr(err)
	}
	var warnings []string
	for i, p := range hist.Problems {
		if i == 5 {
			warnings = append(warnings, fmt.Sprintf("%s: %d more malformed lines skipped", path, len(hist.Problems)-5))
			break
		}
		warnings = append(warnings, fmt.Sprintf("%s: %s", path, p))
	}
	for _, w := range hist.Warnings {
		warnings = append(warnings, fmt.Sprintf("%s: %s", path, w))
	}
	basePath := cfg.Baseline
	if baselinePath != "" {
		basePath = baselinePath
	}
	base, err := baseline.Load(basePath)
	switch {
	case errors.Is(err, baseline.ErrNotFound):
		base = nil
		warnings = append(warnings, fmt.Sprintf("no baseline at %s: drift from a baseline is not measured (latgate bless writes one)", basePath))
	case err != nil:
		return in, usageErr(err)
	}
	return historyInputs{cfg: cfg, hist: hist, base: base, path: path, basePath: basePath, warnings: warnings}, nil
}

// resultsProvenance is this run's provenance, for check's staleness
// warnings: the results file's, and the runner it is running on.
func resultsProvenance(env Env, cfg *config.Config, f *results.File) trend.Provenance {
	p := trend.OfResults(f)
	runner := sanitizeRunner(runnerIdentity(env), sanitizer(env, cfg))
	p.Runner = &runner
	return p
}
