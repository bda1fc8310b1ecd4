package cli

import (
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/internal/app"
)

func blessCommand(a *app.App) *ucli.Command {
	return &ucli.Command{
		Name:      "bless",
		Usage:     "measure (or take a results file) and write it as the new baseline",
		UsageText: "latgate bless [--config latgate.yaml] [--from results.json] [--baseline FILE] [--force]",
		Description: `EXAMPLES:
   # Measure run.bless_requests per prompt (4x a check's) and write the baseline
   latgate bless

   # Make a CI run's results the baseline, without measuring again
   latgate bless --from latgate.results.json

   # Bless a run that drifted or went over its error budget anyway
   latgate bless --force

Writes the baseline that 'latgate check' compares with: raw per-request
samples plus summaries and provenance, in deterministic JSON laid out for
short PR diffs. Commit it; refresh it by review, never silently.

The write is atomic (temp file, fsync, rename): a failed, interrupted or
refused bless leaves the previous baseline byte-for-byte intact. bless
refuses always a partial run, and a baseline that check would refuse: values
no run can have, or a prompt with too few samples for any check to decide
(an empty prompt after every request failed); and, unless --force, a run
whose error rate is over a target's max_error_rate, or one that drifted 3x
or more while it was measured (its second half against its first, by the
gate's own checks: a cold start, a noisy neighbour, a deploy; a smaller
drift the gate calls a change is a warning).
It prints what changed against the previous baseline.

bless measures run.bless_requests per prompt (default 4 x run.requests, 240
at the defaults) and says how many requests that is: the baseline's noise
enters every later check, so a well-measured baseline makes every check's
interval narrower. --requests N measures N instead.

--from blesses a results file measured earlier (e.g. a CI artifact from
'latgate measure --out' or 'latgate check --out') without measuring again.

` + blessExitHelp,
		Flags: append(runFlagDefs(),
			&ucli.StringFlag{Name: "baseline", Aliases: []string{"b"}, Usage: "write the baseline to `FILE` (default: the config's baseline:, or latgate.baseline.json beside it)", TakesFile: true},
			&ucli.StringFlag{Name: "from", Usage: "bless this results `FILE` instead of measuring", TakesFile: true},
			&ucli.BoolFlag{Name: "force", Usage: "bless even over the error budget or after drift within the run (never a partial run, nor a baseline too thin to gate)"},
		),
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usageErr(fmt.Errorf("bless takes no arguments, got %q (did you mean --from %s?)", c.Args().First(), c.Args().First()))
			}
			return a.Bless(c.Context, app.BlessRequest{Run: parseRunFlags(c), Baseline: c.String("baseline"), From: c.String("from"), Force: c.Bool("force")})
		},
	}
}
