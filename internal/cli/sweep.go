package cli

import (
	"fmt"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/internal/app"
)

const sweepExitHelp = `EXIT CODES:
   0  the sweep was measured (whatever its knees)
   2  usage or config problem (nothing was measured)
   3  measurement failure: endpoint unreachable, auth failure, or the sweep
      was interrupted (what was measured is printed and written, marked
      partial)`

func sweepCommand(a *app.App) *ucli.Command {
	return &ucli.Command{
		Name:      "sweep",
		Usage:     "measure at rising arrival rates and find each target's knee: the highest rate that meets its SLO",
		UsageText: "latgate sweep --rates 2,4,8,16 [--config latgate.yaml] [--duration 30s] [--goal 95%] [--out sweep.json]",
		Description: `EXAMPLES:
   # Where does the server stop meeting its SLO? 30 s at each rate
   latgate sweep --rates 2,4,8,16,32 --duration 30s

   # Rehearse on the simulator: 8 batch slots of about 95 ms, a knee near 84/s
   latgate sweep --rates 20,40,60,80,100 --base-url 'sim:fixed?capacity=8&ttft=60ms&itl=5ms&tokens=8'

Measures every target of the config at each rate in turn, as an arrival-rate
run (run.rate: requests arrive at that rate whatever the server does, every
time counted from the scheduled send; run.arrival, run.max_in_flight and
run.seed apply), and prints, per target and rate: the rate latgate sent at,
TTFT P50 and P95, ITL and total P95, the goodput (the share of requests that
met their prompt's slo:, failed requests meeting none) and how late latgate's
sends were. Each rate measures run.requests a prompt, or --duration × rate
spread over the prompts.

The knee is the highest rate at which at least --goal of the requests met
their SLO: where the goodput, interpolated between the rates around it,
falls below the goal, with a 95% interval from the same crossing of each
rate's Wilson bounds. Past the knee the queue grows with every request: the
sweep stops after a rate at which every target is more than 10 points below
the goal. --out writes every rate and knee (latgate.sweep/v1); --history
(or history: in the config) adds each target's knee to the run history, so
that 'latgate trend' fails the nightly when the knee falls beyond knee.tolerance
(docs/load.md).

` + sweepExitHelp,
		Flags: append(append(runFlagDefs(), historyFlagDefs()...),
			&ucli.StringFlag{Name: "rates", Usage: "the arrival `RATES` to measure at, requests per second per target, ascending and comma-separated (e.g. 2,4,8,16)"},
			&ucli.DurationFlag{Name: "duration", DefaultText: "run.requests a prompt", Usage: "how long to measure each rate (requests = rate × duration, spread over the prompts)"},
			&ucli.StringFlag{Name: "goal", Value: "95%", Usage: "the share of requests that must meet their SLO at a rate below the knee"},
			&ucli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write the sweep (latgate.sweep/v1) to `FILE`", TakesFile: true},
		),
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usageErr(fmt.Errorf("sweep takes no arguments, got %q (rates go in --rates, e.g. --rates 2,4,8)", c.Args().First()))
			}
			rates, err := parseRates(c.String("rates"))
			if err != nil {
				return usageErr(err)
			}
			goal, err := parseShare(c.String("goal"))
			if err != nil {
				return usageErr(fmt.Errorf("--goal: %w", err))
			}
			if c.IsSet("concurrency") {
				return usageErr(fmt.Errorf("--concurrency does not apply to a sweep: it sends at each of --rates (an open loop), not with a number of streams"))
			}
			return a.Sweep(c.Context, app.SweepRequest{Run: parseRunFlags(c), Rates: rates, Duration: c.Duration("duration"), Goal: goal, Out: c.String("out"), History: parseHistoryFlags(c)})
		},
	}
}

// parseRates reads "2,4,8": numbers (the app checks their range and order).
func parseRates(s string) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []float64
	for f := range strings.SplitSeq(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(f), "/s"), 64)
		if err != nil {
			return nil, fmt.Errorf("--rates: %q is not a number of requests per second (e.g. --rates 2,4,8)", strings.TrimSpace(f))
		}
		out = append(out, v)
	}
	return out, nil
}

// parseShare reads "95%" or "0.95": a share above 0 and at most 1.
func parseShare(s string) (float64, error) {
	v, err := parseFraction(s, "share", "95% or 0.95")
	if err != nil {
		return 0, err
	}
	if !(v > 0 && v <= 1) {
		return 0, fmt.Errorf("%s must be above 0%% and at most 100%% (written 95%% or 0.95)", s)
	}
	return v, nil
}
