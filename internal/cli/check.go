package cli

import (
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/internal/app"
)

func checkCommand(a *app.App) *ucli.Command {
	return &ucli.Command{
		Name:      "check",
		Usage:     "measure and compare with the baseline: the CI gate",
		UsageText: "latgate check [--config latgate.yaml] [--junit junit.xml] [--markdown report.md] [--strict]",
		Description: `EXAMPLES:
   # The gate, on the config in this directory: exit 0 pass, 1 regression
   latgate check

   # Rehearse a regression on the example's simulator: TTFT 1.6x slower
   latgate check --config examples/latgate.yaml --base-url 'sim:default?ttft_factor=1.6'

   # In CI: every report, and the results for 'latgate bless --from'
   latgate check --junit junit.xml --markdown report.md --out results.json

   # Nightly: an undecided check fails, and so does a lost baseline
   latgate check --strict --require-baseline --history latgate.history.jsonl

Measures like 'latgate measure', then compares each gated check
(gate.checks; default TTFT P50 and P90, ITL P50 and P95) with the baseline
'latgate bless' wrote, by a distribution-free interval of current/baseline
(its regression end 97.5% sure, its ok end gate.ok_confidence, 90%):

  regressed     the whole interval is beyond the tolerance (exit 1)
  improved      the whole interval is beyond it on the faster side
  ok            the interval rules out a regression beyond the tolerance
  inconclusive  the interval straddles the tolerance, or the statistic needs
                more requests (P90 36, P95 72 at least, more against a small
                baseline): the report says how many

A target decides per run by its pooled rows ("all prompts"); a prompt fails
the run alone only beyond its tolerance after adjusting for the target's
prompt tests of that check (Holm), and holds it undecided when at its last
look it is beyond its tolerance and apart from the other prompts. While a
gated check is undecided, check measures
planned rounds up to run.max_requests, and says why on stderr; looking
again so adds no false alarms, re-running a failed check until it passes
does. With a baseline, a request past 20x its prompt's total P99 is
stopped: a run that fails so is a regression (exit 1), not a measurement
failure.

A changed config is gated and labelled ("model a -> b", "edited"; a new
prompt is reported, not gated); only a baseline with nothing in common exits
2 (--strict-baseline refuses any difference). Without a baseline file check
measures, reports, writes the results and exits 0 ("no baseline: nothing
was gated"; --require-baseline: exit 2). Inside GitHub Actions it also
writes the job summary, annotations and verdict= to $GITHUB_OUTPUT.

How it decides: docs/gate.md. Baselines and config changes:
docs/baseline.md. The Action's outputs: docs/github-action.md.

` + exitCodesHelp,
		Flags: append(append(append(runFlagDefs(), gateFlagDefs()...), historyFlagDefs()...),
			&ucli.StringFlag{Name: "baseline", Aliases: []string{"b"}, Usage: "the baseline `FILE` (default: the config's baseline:, or latgate.baseline.json beside it)", TakesFile: true},
			&ucli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "also write the results JSON, with the comparison, to `FILE` (without a baseline: default latgate.results.json beside it)", TakesFile: true},
			&ucli.BoolFlag{Name: "require-baseline", Usage: "exit 2 when there is no baseline file, instead of measuring ungated and passing (use it in nightly jobs)"},
			&ucli.StringFlag{Name: "noise-history", Usage: "learn the day-to-day noise from the history `FILE` and never write it (a pull request's check reading the nightly history; default: --history's)", TakesFile: true},
			&ucli.BoolFlag{Name: "skip-without-key", Usage: "when a variable a target names (api_key_env, sse or ndjson headers_env) is empty, measure nothing and pass with verdict=skipped (the action passes it on pull requests from forks and Dependabot, which get no secrets)"},
		),
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usageErr(fmt.Errorf("check takes no arguments, got %q", c.Args().First()))
			}
			return a.Check(c.Context, app.CheckRequest{
				Run: parseRunFlags(c), Gate: parseGateFlags(c), History: parseHistoryFlags(c),
				Baseline: c.String("baseline"), Out: c.String("out"), RequireBaseline: c.Bool("require-baseline"), SkipWithoutKey: c.Bool("skip-without-key"),
				NoiseHistory: c.String("noise-history"),
			})
		},
	}
}
