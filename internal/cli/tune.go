package cli

import (
	"fmt"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/internal/app"
	"github.com/latgate/latgate/internal/trend"
)

const tuneExitHelp = `EXIT CODES:
   0  the proposal was printed
   2  usage, config or history problem, or no series has enough runs (8)`

func tuneCommand(a *app.App) *ucli.Command {
	return &ucli.Command{
		Name:      "tune",
		Usage:     "propose tolerances and floors from the run-to-run variation in the history",
		UsageText: "latgate tune [--config latgate.yaml] [--history FILE] [--false-alarm 1%]",
		Description: `EXAMPLES:
   # Propose tolerances and floors from the history, 1% false alarms a run
   latgate tune --history latgate.history.jsonl

   # Stricter: 0.5% of runs fail some check of an unchanged endpoint
   latgate tune --false-alarm 0.5%

Estimates, for each target × prompt × gated check, how much the statistic
varies from run to run on an unchanged endpoint (time of day, provider load),
from the history that 'check --history' keeps (at least 8 runs; the more
runs, the tighter the proposal), and prints a YAML snippet for latgate.yaml:
gate.checks with a tolerance and floor per check, and gate.overrides for the
prompts that vary more. The tolerances are proposed for a false-alarm rate
per run (--false-alarm, default 1%): an unchanged endpoint fails some check
of some prompt in at most that share of runs. Each series' variation is
taken at an upper confidence bound that allows for its estimate coming from
few, autocorrelated runs, and the series are correlated as the history
shows. Each line says the variation it was learnt from and how many runs a
tighter proposal needs; the head gives the false-alarm rate per run of the
tolerances you have now and of the proposal. The rates count run-to-run
variation on both sides (the baseline is one run too); the gate also needs
its interval to clear the tolerance, so real rates are lower.

` + tuneExitHelp,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "config", Aliases: []string{"c"}, Value: app.DefaultConfig, Usage: "the latgate.yaml whose checks to tune", TakesFile: true},
			&ucli.StringFlag{Name: "history", Usage: "the history `FILE` (default: the config's history:)", TakesFile: true},
			&ucli.IntFlag{Name: "window", Value: trend.DefaultWindow, Usage: "learn from the newest `N` runs of each series"},
			&ucli.StringFlag{Name: "false-alarm", Value: "1%", Usage: "the false-alarm `RATE` per run (any check of any prompt) to propose tolerances for"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usageErr(fmt.Errorf("tune takes no arguments, got %q", c.Args().First()))
			}
			rate, err := parseRate(c.String("false-alarm"))
			if err != nil {
				return usageErr(fmt.Errorf("--false-alarm: %w", err))
			}
			return a.Tune(app.TuneRequest{ConfigPath: c.String("config"), History: c.String("history"), Window: c.Int("window"), FalseAlarm: rate})
		},
	}
}

// parseRate reads "1%" or "0.01": a rate strictly between 0 and 50%.
func parseRate(s string) (float64, error) {
	v, err := parseFraction(s, "rate", "1% or 0.01")
	if err != nil {
		return 0, err
	}
	if !(v > 0 && v < 0.5) {
		return 0, fmt.Errorf("%s must be above 0%% and below 50%%", s)
	}
	return v, nil
}

// parseFraction reads "95%" or "0.95" as a fraction (what names it, and e.g.
// two ways to write it, for the error).
func parseFraction(s, what, example string) (float64, error) {
	t := strings.TrimSpace(s)
	v, err := strconv.ParseFloat(strings.TrimSuffix(t, "%"), 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a %s; write e.g. %s", s, what, example)
	}
	if strings.HasSuffix(t, "%") {
		v /= 100
	}
	return v, nil
}
