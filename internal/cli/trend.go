package cli

import (
	"fmt"
	"slices"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/internal/app"
	"github.com/latgate/latgate/internal/trend"
	"github.com/latgate/latgate/internal/view"
)

const trendExitHelp = `EXIT CODES:
   0  no regression (or too few runs to tell)
   1  the newest runs hold a regression change point that the baseline does
      not have, or have drifted beyond a check's tolerance from the baseline
   2  usage, config, history or baseline problem`

func trendCommand(a *app.App) *ucli.Command {
	return &ucli.Command{
		Name:      "trend",
		Usage:     "find change points and slow drift in the run history (the nightly job)",
		UsageText: "latgate trend [--config latgate.yaml] [--history FILE] [--junit junit.xml] [--markdown trend.md] [--html trend.html]",
		Description: `EXAMPLES:
   # The nightly analysis of the history check --history keeps
   latgate trend --history latgate.history.jsonl

   # With the reports of a nightly job
   latgate trend --junit trend.xml --markdown trend.md --html trend.html

Reads the run history that 'check --history' and 'measure --history' append
to, and for each target × prompt × gated check (gate.checks) analyses the
newest runs (--window):

  change points  E-divisive means (Matteson & James 2014), both ends of a
                 split searched as in Apache Otava, at least 3 runs on each
                 side; a split counts when its sides differ by more than the
                 series' own noise allows (alpha 1% per segment, the noise
                 estimated around the segment levels with its
                 autocorrelation): each with its run, date, commit and size
                 with an interval
  drift          the newest runs (--recent, after the last change point)
                 against the baseline, and against the series' own level
                 when the baseline was blessed

A series is REGRESSED when its newest change point is a slowdown whose
interval (not its estimate) is beyond the check's tolerance (tolerance and
floor, as the gate computes them) and that happened after the baseline was
blessed, or when a drift's interval is wholly beyond it. The intervals are
at the level that keeps false alarms to 5% a night across all the series
(Benjamini–Hochberg), and each change's test is spent over the nights after
it, so an alarm is raised once per change, not re-rolled every night; once
raised it stands on later nights, while the change point is there, until a
bless (more nights can widen the noise, never clear an alarm). A
change within the tolerance, or one the baseline already has, is reported,
not failed. Runs of an edited prompt start a new series. Every report says
when and where the baseline was blessed and warns when it is older than
gate.max_baseline_age, or the model, system fingerprint, runner or latgate
version changed since.

--html writes the whole history as one page: a chart per series (the runs
with their P50 and P95, the segment means, each change point with its
interval, the baseline and its tolerance band, the bless dates) and the
table of verdicts, with no scripts, fonts or images to load. The Markdown
report (and the job summary) charts every series that changed.

Inside GitHub Actions it also appends the report and Mermaid line charts of
the newest runs (--chart) to $GITHUB_STEP_SUMMARY, emits ::error/::warning
annotations, and writes verdict=<regressed|changed|ok|insufficient> to
$GITHUB_OUTPUT; on a regression also issue-key=<target>/<when the baseline was
blessed>, the same for every night until the baseline is blessed again (the
example workflow keeps one issue per key), and issue-title=.

` + trendExitHelp,
		Flags: slices.Concat([]ucli.Flag{
			&ucli.StringFlag{Name: "config", Aliases: []string{"c"}, Value: app.DefaultConfig, Usage: "the latgate.yaml whose checks and tolerances apply", TakesFile: true},
			&ucli.StringFlag{Name: "history", Usage: "the history `FILE` (default: the config's history:)", TakesFile: true},
			&ucli.StringFlag{Name: "baseline", Aliases: []string{"b"}, Usage: "the baseline `FILE` (default: the config's baseline:)", TakesFile: true},
		}, reportFlagDefs(view.KindTrend), []ucli.Flag{
			&ucli.IntFlag{Name: "window", Value: trend.DefaultWindow, Usage: "analyse the newest `N` runs of each series"},
			&ucli.IntFlag{Name: "recent", Value: trend.DefaultRecent, Usage: "measure the drift from the baseline over the newest `N` runs"},
			&ucli.IntFlag{Name: "chart", Value: 30, Usage: "chart the newest `N` runs"},
			wideFlag(),
		}),
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usageErr(fmt.Errorf("trend takes no arguments, got %q (did you mean --history %s?)", c.Args().First(), c.Args().First()))
			}
			return a.Trend(app.TrendRequest{
				ConfigPath: c.String("config"), History: c.String("history"), Baseline: c.String("baseline"),
				Reports: parseReports(c, view.KindTrend),
				Window:  c.Int("window"), Recent: c.Int("recent"), Chart: c.Int("chart"), Wide: c.Bool("wide"),
			})
		},
	}
}
