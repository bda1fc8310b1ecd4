package cli

import (
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/internal/app"
)

// Exit codes of history export, which reads the history and writes one file.
const historyExportExitHelp = `EXIT CODES:
   0  exported
   2  usage, config, history or baseline problem (nothing was written)
   3  the OpenMetrics file could not be written`

func historyCommand(a *app.App) *ucli.Command {
	return &ucli.Command{
		Name:  "history",
		Usage: "work with the run history that check --history keeps",
		// Without it urfave/cli takes "history bogus" for "history help
		// bogus" ("No help topic for 'bogus'").
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return unknownCommand(c.Args().First(), c.Command.Subcommands, c.Command.HelpName)
			}
			return ucli.ShowSubcommandHelp(c)
		},
		Subcommands: []*ucli.Command{{
			Name:      "export",
			Usage:     "write the history as timestamped OpenMetrics samples, for a Prometheus backfill",
			UsageText: "latgate history export [--config latgate.yaml] [--history FILE] --openmetrics FILE",
			Description: `EXAMPLES:
   latgate history export --openmetrics history.om
   promtool tsdb create-blocks-from openmetrics history.om ./data   # then point Prometheus at ./data

Every run of the history becomes samples at its time: per target x prompt,
latgate_<metric>_<stat>_seconds for each duration metric and statistic it
recorded (ttft, itl, total, ... at p50, p90, p95, p99, mean) and
latgate_tokens_per_second_<stat>, labelled target, region, prompt and
model. The history is only read. For the figures of one run, as it ends,
use check --openmetrics (no timestamps: what a scrape or the node
exporter's textfile collector reads). See docs/observability.md.

` + historyExportExitHelp,
			Flags: []ucli.Flag{
				&ucli.StringFlag{Name: "config", Aliases: []string{"c"}, Value: app.DefaultConfig, Usage: "the latgate.yaml whose history: is the default", TakesFile: true},
				&ucli.StringFlag{Name: "history", Usage: "the history `FILE` (default: the config's history:)", TakesFile: true},
				&ucli.StringFlag{Name: "openmetrics", Usage: "write the OpenMetrics text to `FILE`", TakesFile: true},
			},
			Action: func(c *ucli.Context) error {
				if c.NArg() > 0 {
					return usageErr(fmt.Errorf("history export takes no arguments, got %q (did you mean --history %s?)", c.Args().First(), c.Args().First()))
				}
				if c.String("openmetrics") == "" {
					return usageErr(fmt.Errorf("history export needs --openmetrics FILE: where to write the samples"))
				}
				return a.HistoryExport(app.HistoryExportRequest{ConfigPath: c.String("config"), History: c.String("history"), OpenMetrics: c.String("openmetrics")})
			},
		}},
	}
}
