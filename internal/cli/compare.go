package cli

import (
	"fmt"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/internal/app"
)

func compareCommand(a *app.App) *ucli.Command {
	return &ucli.Command{
		Name:      "compare",
		Usage:     "compare a saved results file with a baseline, offline",
		UsageText: "latgate compare [--config latgate.yaml] BASELINE RESULTS",
		Description: `EXAMPLES:
   # The gate on a CI artifact, offline
   latgate compare latgate.baseline.json results.json

   # With this config's gate, and every report
   latgate compare --config latgate.yaml --junit junit.xml --markdown report.md latgate.baseline.json results.json

The gate of 'latgate check' on saved files: same files, same output (the
intervals are analytic). The gate settings (gate: in latgate.yaml) come from
--config when given, else from ./latgate.yaml when there is one, like the
other commands, else the defaults (TTFT at P50 and P90, ITL at P50 and
P95); stderr says which it used.

` + compareExitHelp,
		Flags: append(gateFlagDefs(),
			&ucli.StringFlag{Name: "config", Aliases: []string{"c"}, Value: app.DefaultConfig, Usage: "take the gate settings from this latgate.yaml (the default file is optional: without it, the default gate)", TakesFile: true},
		),
		Action: func(c *ucli.Context) error {
			for _, arg := range c.Args().Slice() {
				if strings.HasPrefix(arg, "-") {
					return usageErr(fmt.Errorf("flags go before BASELINE and RESULTS: latgate compare [flags] BASELINE RESULTS (got %q after them)", arg))
				}
			}
			if c.NArg() != 2 {
				return usageErr(fmt.Errorf("compare takes two files, BASELINE and RESULTS; got %d argument(s)", c.NArg()))
			}
			return a.Compare(app.CompareRequest{Gate: parseGateFlags(c), Baseline: c.Args().Get(0), Results: c.Args().Get(1),
				ConfigPath: c.String("config"), ConfigOptional: !c.IsSet("config")})
		},
	}
}
