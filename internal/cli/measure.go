package cli

import (
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/internal/app"
)

func measureCommand(a *app.App) *ucli.Command {
	return &ucli.Command{
		Name:      "measure",
		Usage:     "measure latency and print it (and write a results file); no baseline involved",
		UsageText: "latgate measure [--config latgate.yaml] [--out results.json]",
		Description: `EXAMPLES:
   # Measure and print; nothing compared, nothing written
   latgate measure

   # Write the results, e.g. for 'latgate merge' or 'latgate bless --from'
   latgate measure --out results.json --requests 100

Streams every prompt of the config against every target, run.requests times
each (after run.warmup unmeasured requests), interleaving prompts so slow drift
spreads evenly, and prints the P50 and a tail of TTFT, ITL, total time and
tokens/s: P95, or P90 where a prompt has too few requests to bound a P95
(72; the default 60 bound a P90).

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
			&ucli.StringFlag{Name: "openmetrics", Usage: "write the run's latencies as OpenMetrics text to `FILE` (for Prometheus: the textfile collector; a failed run writes none; docs/observability.md)", TakesFile: true},
		),
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usageErr(fmt.Errorf("measure takes no arguments, got %q (did you mean --config %s?)", c.Args().First(), c.Args().First()))
			}
			return a.Measure(c.Context, app.MeasureRequest{Run: parseRunFlags(c), History: parseHistoryFlags(c), Out: c.String("out"), OpenMetrics: c.String("openmetrics")})
		},
	}
}
