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
		Description: `Measures like 'latgate measure', then compares every gated metric and
statistic (gate.checks; default TTFT at P50 and P90, ITL at P50 and P95)
with the baseline that 'latgate bless' wrote. Each check gets a
distribution-free confidence interval of current/baseline (whole requests
the unit, the day-to-day noise between the two runs added), and a verdict:

  regressed     the whole interval is beyond the tolerance (exit 1)
  improved      the whole interval is beyond the tolerance on the faster side
  ok            the interval rules out a regression beyond the tolerance
                (the report says what it ruled out: "rules out > +9%")
  inconclusive  the interval straddles the tolerance, or the statistic needs
                more requests than were taken (P90 needs 36, P95 72); the
                report says about how many more would decide it

A target decides per run: its prompts are pooled into one check per gated
metric and statistic, which decides ok, undecided or regressed; a prompt's
own check fails the run only when it is beyond its tolerance after
adjusting for all the target's prompt tests (Holm). An undecided pooled
check passes with a warning (gate.on_inconclusive: warn; pass, or fail as
--strict does).

Sequential looks: check first measures run.requests per prompt; while some
gated check is undecided, it measures planned rounds for the prompts
holding them (each to its own next look), up to run.max_requests (default
2.5 x run.requests), and says why on stderr. Each look's interval is a
repeated confidence interval (Lan-DeMets alpha spending), so looking again
does not add false alarms; re-running a failed check until it passes does.

The tolerance is relative AND absolute: a change smaller than the floor is
never a regression. An unset floor is latgate's timing resolution (1 ms;
0.25 ms for itl and tpot), so a doubled 5 ms TTFT is a regression.

Absolute limits: a check with max (e.g. {metric: ttft, stat: p95, max: 800ms},
alone or beside a tolerance) also holds each prompt's statistic to that
limit, by the interval of this run's statistic alone: regressed when the
whole interval is above max, ok when it is at or below. Limits need no
baseline: they gate new prompts, and a run without a baseline file.

A pull request that changes the config is gated, not refused: a changed
model, endpoint (base_url), max_tokens, temperature, extra_body or
concurrency is compared with the old baseline and every check is labelled
("model a → b"); an edited prompt is compared and labelled "edited"; a new
prompt is measured and reported as "new: no baseline" (not gated); a removed
one is reported. Only a baseline with no target and prompt in common exits
2; --strict-baseline refuses any difference. Blessing in the same pull
request marks the change as intended.

Without a baseline file, check measures, reports, writes the results (--out,
else latgate.results.json beside the baseline) and exits 0 with the warning
"no baseline: nothing was gated" (verdict=no-baseline in $GITHUB_OUTPUT);
--require-baseline makes that exit 2. A gate with limits (max) gates those
alone then, and exits 1 when one is breached.

Inside GitHub Actions (GITHUB_ACTIONS=true) it also appends the report and a
chart to $GITHUB_STEP_SUMMARY, emits ::error/::warning annotations, and writes
verdict=<regressed|inconclusive|ok|improved|no-baseline|skipped|error> to $GITHUB_OUTPUT.

With --history FILE (or history: in the config) a complete run also adds a
compact record (a few KB) to that JSON Lines file, for 'latgate trend'.

` + exitCodesHelp,
		Flags: append(append(append(runFlagDefs(), gateFlagDefs()...), historyFlagDefs()...),
			&ucli.StringFlag{Name: "baseline", Aliases: []string{"b"}, Usage: "the baseline `FILE` (default: the config's baseline:, or latgate.baseline.json beside it)", TakesFile: true},
			&ucli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "also write the results JSON, with the comparison, to `FILE` (without a baseline: default latgate.results.json beside it)", TakesFile: true},
			&ucli.BoolFlag{Name: "require-baseline", Usage: "exit 2 when there is no baseline file, instead of measuring ungated and passing (use it in nightly jobs)"},
			&ucli.BoolFlag{Name: "skip-without-key", Usage: "when a target's API key variable is empty, measure nothing and pass with verdict=skipped (the action passes it on pull requests from forks and Dependabot, which get no secrets)"},
		),
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usageErr(fmt.Errorf("check takes no arguments, got %q", c.Args().First()))
			}
			return a.Check(c.Context, app.CheckRequest{
				Run: parseRunFlags(c), Gate: parseGateFlags(c), History: parseHistoryFlags(c),
				Baseline: c.String("baseline"), Out: c.String("out"), RequireBaseline: c.Bool("require-baseline"), SkipWithoutKey: c.Bool("skip-without-key"),
			})
		},
	}
}
