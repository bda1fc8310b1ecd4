package cli

import (
	"fmt"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/internal/app"
	"github.com/latgate/latgate/pkg/config"
)

func abCommand(a *app.App) *ucli.Command {
	return &ucli.Command{
		Name:      "ab",
		Usage:     "measure two configs now, interleaved, and gate the candidate against the base",
		UsageText: "latgate ab [flags] BASE.yaml CANDIDATE.yaml\n   latgate ab [flags] --targets BASE,CANDIDATE [latgate.yaml]",
		Description: `EXAMPLES:
   # A pull request switches the model: gate it against the base branch's config
   git show origin/main:latgate.yaml > /tmp/base.yaml
   latgate ab /tmp/base.yaml latgate.yaml

   # Which of two targets of one config is faster for our prompts?
   latgate ab --targets gpt-4o-mini,gpt-4.1-mini latgate.yaml

   # Rehearse on the simulator, both configs' base_url
   # "sim:default?level_jump=1.3&level_period=1.5s" (a level jumping x1.3
   # every 1.5 s: still decided), with a JUnit report and the results;
   # flags go before the configs
   latgate ab --junit ab.xml --out ab.json base.yaml candidate.yaml

Measures both configs' targets against their endpoints in one run,
interleaved: in each round every target pair x prompt gets a block, one
request of each side sent together in a seeded random order (AB or BA), so
whatever the endpoint does meanwhile (load rising, a level that jumps)
hits both sides alike. Targets pair by position (target i of BASE with
target i of CANDIDATE), prompts by id; a prompt or target only one side has
is reported, not measured. Both sides use CANDIDATE's run settings (and the
overrides below): run.requests blocks per prompt, run.concurrency requests
in flight in all (half per side on average).

The gate is CANDIDATE's (or --config's): each check's interval pairs the
sides by block (p50: the Hodges-Lehmann estimate of the blocks' own ratios;
other statistics: each side's distribution-free interval, combined with
the correlation of the blocks' two requests), with no day-to-day term,
since both sides were measured in the same minutes. Sequential rounds apply
as in check, up to run.max_requests per prompt and side. The report names
the faster side per prompt and overall ("candidate faster: ttft p50 -38%
[-41%, -35%]"); the verdict holds the candidate to the tolerances.

A server that holds one model at a time (Ollama serving two option sets
of one model) reloads it on every switch between the sides: both sides then
measure the reloads. ab tells: it compares each side's requests sent right
after the other side's with those sent right after its own, and warns with
the figures when the first are slower beyond doubt (x1.25 or more). Then
measure with --schedule blocks: ABBA blocks of --block rounds a side (all
of one side's prompts, then the same requests of the other's), still
paired by block, so the server switches once a block.

Cost: both sides are measured, so an A/B run sends twice a check's requests
(2 x run.requests per prompt at the first look, up to 2 x run.max_requests).
Use it instead of check when the config itself changes (model, endpoint,
max_tokens, a prompt): a baseline measured on another day carries that day's
level, ab does not. See docs/ab.md.

Outputs are check's: the table, --junit, --markdown, --out (both sides' raw
samples and the comparison, schema latgate.ab/v1), and inside GitHub Actions
the job summary, annotations and verdict= in $GITHUB_OUTPUT.

` + abExitHelp,
		Flags: append(append(abRunFlags(), abGateFlags()...),
			&ucli.StringFlag{Name: "config", Aliases: []string{"c"}, Usage: "take the gate settings from this latgate.yaml (default: CANDIDATE's gate)", TakesFile: true},
			&ucli.StringFlag{Name: "targets", Usage: "compare target `BASE,CANDIDATE`: BASE's target BASE with CANDIDATE's target CANDIDATE, or two targets of one config"},
			&ucli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "also write both sides' results, with the comparison, to `FILE`", TakesFile: true},
			&ucli.BoolFlag{Name: "skip-without-key", Usage: "when a variable a target names (api_key_env, sse or ndjson headers_env) is empty, measure nothing and pass with verdict=skipped"},
			&ucli.BoolFlag{Name: "if-changed", Usage: "measure only when the configs differ in a target (model, endpoint, parameters) or a prompt; else pass with verdict=unchanged (the pull-request flow)"},
			&ucli.StringFlag{Name: "schedule", Usage: "`interleave` (a request of each side per block; the default, or the candidate's ab.schedule) or blocks (ABBA blocks of --block rounds a side, still paired: for a server that holds one model at a time and reloads it on every switch)"},
			&ucli.IntFlag{Name: "block", DefaultText: "10, or the candidate's ab.block", Usage: "rounds a side per block under --schedule blocks"},
		),
		Action: func(c *ucli.Context) error {
			for _, arg := range c.Args().Slice() {
				if strings.HasPrefix(arg, "-") {
					return usageErr(fmt.Errorf("flags go before the configs: latgate ab [flags] BASE.yaml CANDIDATE.yaml (got %q after them)", arg))
				}
			}
			req := app.ABRequest{Run: parseRunFlags(c), Gate: parseGateFlags(c), GateConfig: c.String("config"),
				Out: c.String("out"), SkipWithoutKey: c.Bool("skip-without-key"), IfChanged: c.Bool("if-changed")}
			if c.IsSet("schedule") {
				req.Schedule = c.String("schedule")
				if req.Schedule != config.ScheduleInterleave && req.Schedule != config.ScheduleBlocks {
					return usageErr(fmt.Errorf("--schedule is interleave (the default) or blocks, got %q", req.Schedule))
				}
			}
			if c.IsSet("block") {
				req.BlockFlag = c.Int("block")
				if req.BlockFlag < 1 || req.BlockFlag > config.MaxBlock {
					return usageErr(fmt.Errorf("--block must be between 1 and %d rounds, got %d", config.MaxBlock, req.BlockFlag))
				}
			}
			if c.IsSet("targets") {
				b, k, ok := strings.Cut(c.String("targets"), ",")
				if !ok || b == "" || k == "" || strings.Contains(k, ",") {
					return usageErr(fmt.Errorf("--targets takes two target names, BASE,CANDIDATE (e.g. --targets small,large); got %q", c.String("targets")))
				}
				req.Targets = [2]string{b, k}
			}
			switch {
			case c.NArg() == 2:
				req.Base, req.Candidate = c.Args().Get(0), c.Args().Get(1)
			case c.NArg() <= 1 && c.IsSet("targets"):
				req.Base = app.DefaultConfig
				if c.NArg() == 1 {
					req.Base = c.Args().Get(0)
				}
				req.Candidate = req.Base
			default:
				return usageErr(fmt.Errorf("ab takes two configs, BASE and CANDIDATE (or one with --targets BASE,CANDIDATE); got %d argument(s)", c.NArg()))
			}
			return a.AB(c.Context, req)
		},
	}
}

// abGateFlags are the report flags of ab: check's, less --strict-baseline
// (ab has no baseline; a flag it accepted and ignored would mislead).
func abGateFlags() []ucli.Flag {
	var out []ucli.Flag
	for _, f := range gateFlagDefs() {
		if f.Names()[0] != "strict-baseline" {
			out = append(out, f)
		}
	}
	return out
}

// abRunFlags are the run overrides of ab: check's, less --config (ab's
// names the gate) and --base-url (which side would it override?).
func abRunFlags() []ucli.Flag {
	var out []ucli.Flag
	for _, f := range runFlagDefs() {
		switch f.Names()[0] {
		case "config", "base-url":
			continue
		}
		out = append(out, f)
	}
	return out
}
