package cli

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/internal/app"
)

const (
	defaultSelftestProfile = "fixed?spin=0s"
	defaultSelftestConc    = "1,16,64,256"
)

func selftestCommand(a *app.App) *ucli.Command {
	return &ucli.Command{
		Name:      "selftest",
		Usage:     "measure latgate's own timing error on this machine, and what a config's checks can resolve",
		UsageText: "latgate selftest [--config latgate.yaml] [--concurrency 1,16,64,256] [--requests N] [--json]",
		Description: `EXAMPLES:
   # latgate's own timing error on this machine, at several concurrencies
   latgate selftest

   # and what this config's checks can resolve from it
   latgate selftest --config latgate.yaml

Runs the built-in simulator in this process on a fixed schedule (TTFT 50ms,
ITL 5ms, 64 tokens), measures it through latgate's real client path, and
compares every token's client stamp with the simulator's flush of the same
token (one process, one monotonic clock). It prints, per concurrency, the
error of the reported TTFT and ITL P50/P95 against that truth and the stamp
delay P95, as the median of --runs runs ± half their range (the run-to-run
spread), and the highest chunk rate this machine sustains with a stamp
delay P95 under 1 ms. CI runners differ: run it where you gate.

With --config it also prints, for each gated check, the smallest change two
runs of run.requests requests can tell apart from latgate's own noise at the
gate's confidence (a bootstrap of whole requests: the gate's unit), and
flags floors under that noise and request counts too small for the
statistic. Your endpoint's own spread adds to this noise: it is the floor
under which no tolerance means anything on this machine.

` + measureExitHelp,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "config", Aliases: []string{"c"}, Usage: "a latgate.yaml whose checks to assess (optional)", TakesFile: true},
			&ucli.StringFlag{Name: "concurrency", Value: defaultSelftestConc, Usage: "comma-separated concurrency levels"},
			&ucli.IntFlag{Name: "requests", DefaultText: "max(16, 2×concurrency)", Usage: "measured requests per run and concurrency"},
			&ucli.IntFlag{Name: "runs", Value: 3, Usage: "runs per concurrency, for the run-to-run spread"},
			&ucli.StringFlag{Name: "profile", Value: defaultSelftestProfile, Usage: "the simulator's schedule (see latgate sim --help); keep it fixed and without spin"},
			&ucli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usageErr(fmt.Errorf("selftest takes no arguments, got %q", c.Args().First()))
			}
			conc, err := parseLevels(c.String("concurrency"))
			if err != nil {
				return usageErr(fmt.Errorf("--concurrency: %w", err))
			}
			return a.Selftest(c.Context, app.SelftestRequest{
				ConfigPath:  c.String("config"),
				Profile:     c.String("profile"),
				Requests:    c.Int("requests"),
				Concurrency: conc,
				Runs:        c.Int("runs"),
				JSON:        c.Bool("json"),
			})
		},
	}
}

// parseLevels parses "1,16,64" into distinct positive levels, ascending.
func parseLevels(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 4096 {
			return nil, fmt.Errorf("%q is not a concurrency level between 1 and 4096", f)
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
