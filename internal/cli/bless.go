package cli

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/pkg/baseline"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/report"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
	"github.com/latgate/latgate/pkg/trend"
)

type blessOptions struct {
	runFlags
	Baseline string
	From     string
	Force    bool
}

func blessCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "bless",
		Usage:     "measure (or take a results file) and write it as the new baseline",
		UsageText: "latgate bless [--config latgate.yaml] [--from results.json] [--baseline FILE] [--force]",
		Description: `Writes the baseline that 'latgate check' compares with: raw per-request
samples plus summaries and provenance, in deterministic JSON laid out for
short PR diffs. Commit it; refresh it by review, never silently.

The write is atomic (temp file, fsync, rename): a failed, interrupted or
refused bless leaves the previous baseline byte-for-byte intact. bless
refuses always a partial run, and a baseline that check would refuse: values
no run can have, or a prompt with too few samples for any check to decide
(an empty prompt after every request failed); and, unless --force, a run
whose error rate is over a target's max_error_rate.
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
			&ucli.BoolFlag{Name: "force", Usage: "bless even over the error budget (never a partial run, nor a baseline too thin to gate)"},
		),
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usageErr(fmt.Errorf("bless takes no arguments, got %q (did you mean --from %s?)", c.Args().First(), c.Args().First()))
			}
			return runBless(c.Context, env, blessOptions{runFlags: parseRunFlags(c), Baseline: c.String("baseline"), From: c.String("from"), Force: c.Bool("force")})
		},
	}
}

func runBless(ctx context.Context, env Env, opts blessOptions) error {
	cfg, err := loadConfig(env, opts.runFlags)
	if err != nil {
		return err
	}
	path := cfg.Baseline
	if opts.Baseline != "" {
		path = opts.Baseline
	}
	sink := env.out.Sink()
	sink.InputConfig(cfg)
	sink.Input("--from", opts.From)
	out := sink.Output("the baseline", path)
	if err := sink.Check(); err != nil {
		return usageErr(err)
	}
	var (
		f      *results.File
		forced error // the measurement failure --force blesses anyway
	)
	if opts.From != "" {
		if f, err = results.Read(opts.From); err != nil {
			return usageErr(err)
		}
		if ms := blessMismatch(cfg, f); len(ms) > 0 {
			return usageErr(fmt.Errorf("%s was not measured with %s: %s", opts.From, cfg.Path, strings.Join(ms, "; ")))
		}
	} else {
		// The baseline's noise enters every later comparison, so bless
		// measures more than a check: run.bless_requests (default 4 ×
		// run.requests), or --requests when given.
		why := "--requests"
		if opts.Requests == nil {
			why = fmt.Sprintf("run.bless_requests, %.3g× a check's run.requests; --requests N to change", float64(cfg.Run.BlessN())/float64(cfg.Run.Requests))
			cfg.Run.Requests = cfg.Run.BlessN()
		}
		fmt.Fprintf(env.Stderr, "latgate: bless measures %d requests per prompt (%s): %d requests in all. The baseline's noise enters every later check, so it pays to measure it well.\n",
			cfg.Run.Requests, why, cfg.Run.Requests*len(cfg.Prompts)*len(cfg.Targets))
		var merr error
		f, merr = runMeasurement(ctx, env, cfg, opts.Quiet)
		if f != nil {
			if err := report.Measure(env.Stdout, f); err != nil {
				return err
			}
		}
		if merr != nil {
			var ee *exitError
			if errors.As(merr, &ee) && f != nil && !f.Partial && opts.Force && ee.code == ExitMeasurement && isBudget(merr) {
				fmt.Fprintf(env.Stderr, "latgate: warning: %v (blessing anyway: --force)\n", merr)
				forced = merr
			} else {
				return fmt.Errorf("%w; the baseline %s was not changed", merr, path)
			}
		}
	}
	if err := blessable(cfg, f, opts.Force, env); err != nil {
		return err
	}

	prev, prevErr := baseline.Load(path)
	commit := gitCommit(ctx, env, cfg.Dir)
	b := baseline.FromResults(f, time.Now(), commit)
	if opts.From == "" { // a results file does not say where it was measured
		r := sanitizeRunner(runnerIdentity(env), sanitizer(env, cfg))
		b.Runner = &r
	}
	if err := ctx.Err(); err != nil { // interrupted after measuring: still no bless
		return measurementErr(fmt.Errorf("interrupted: the baseline %s was not changed", path))
	}
	if err := refuseUngateable(b, cfg.Gate, path, forced); err != nil {
		return err
	}
	data, err := baseline.Encode(b)
	if err != nil {
		return usageErr(fmt.Errorf("refusing to bless: %w; the baseline %s is unchanged", err, path))
	}
	if err := out.Write(data); err != nil {
		return outputErr("", false, fmt.Errorf("%w; the previous baseline is unchanged", err))
	}
	fmt.Fprintln(env.Stdout)
	switch {
	case prevErr == nil:
		fmt.Fprintf(env.Stdout, "replacing the baseline %s\n", trend.Blessed(trend.OfBaseline(prev), time.Now()))
		plan := compare.Pair(side(prev.Run, prev.Targets), side(b.Run, b.Targets))
		if err := report.BlessChanges(env.Stdout, plan.Changes); err != nil {
			return err
		}
		if err := report.BlessDiff(env.Stdout, baseline.Diff(prev, b)); err != nil {
			return err
		}
	case errors.Is(prevErr, baseline.ErrNotFound):
		fmt.Fprintln(env.Stdout, "no previous baseline: this is the first.")
	default:
		fmt.Fprintf(env.Stdout, "the previous baseline could not be read (%v); it is replaced.\n", prevErr)
	}
	fmt.Fprintf(env.Stdout, "baseline written to %s: review and commit it.\n", path)
	return nil
}

func isBudget(err error) bool {
	var be *results.BudgetError
	return errors.As(err, &be)
}

// blessMismatch says how a results file differs from the config it is
// blessed under, by compare.Compatible (the rule check holds a run and its
// baseline to), so a baseline never mixes the two. A config target without
// a region stands for every region of that name in the file: a file merged
// from several runners (latgate merge) has one.
func blessMismatch(cfg *config.Config, f *results.File) []string {
	want := planned(cfg)
	var targets []results.Target
	for _, t := range want.Targets {
		n := 0
		for _, g := range f.Targets {
			if t.Region == "" && g.Name == t.Name && g.Region != "" {
				r := t
				r.Region = g.Region
				targets = append(targets, r)
				n++
			}
		}
		if n == 0 {
			targets = append(targets, t)
		}
	}
	want.Targets = targets
	var out []string
	for _, m := range compare.Compatible(want, side(f.Run, f.Targets)) {
		out = append(out, blessWording(m))
	}
	return out
}

// blessWording says what a mismatch means when the "baseline" side is the
// config and the "current" side the results file being blessed.
func blessWording(m compare.Mismatch) string {
	tgt := results.Label(m.Target, m.Region)
	switch {
	case m.Field == compare.FieldTarget && m.Current == "":
		return fmt.Sprintf("target %q is missing", tgt)
	case m.Field == compare.FieldTarget:
		return fmt.Sprintf("target %q is not in the config", tgt)
	case m.Field == compare.FieldPrompt && m.Current == "":
		return fmt.Sprintf("prompt %q of target %q is missing", m.Prompt, tgt)
	case m.Field == compare.FieldPrompt:
		return fmt.Sprintf("prompt %q of target %q is not in the config", m.Prompt, tgt)
	case m.Field == compare.FieldPromptHash:
		return fmt.Sprintf("prompt %q of target %q differs from the config's text", m.Prompt, tgt)
	case m.Field == compare.FieldConcurrency:
		return fmt.Sprintf("run.concurrency is %s in the file, %s in the config", m.Current, m.Baseline)
	}
	return fmt.Sprintf("target %q: %s is %s in the file, %s in the config", tgt, m.Field, m.Current, m.Baseline)
}

// blessable refuses results that must not become a baseline.
func blessable(cfg *config.Config, f *results.File, force bool, env Env) error {
	if f.Partial {
		return usageErr(fmt.Errorf("refusing to bless a partial run (%s): the baseline is unchanged", f.PartialReason))
	}
	budget := map[string]float64{}
	for _, t := range cfg.Targets {
		budget[t.Name] = t.MaxErrorRate
	}
	// Too few samples to gate at all is not here: it is compare.CannotGate's
	// rule, which no --force overrides (refuseUngateable).
	var problems, notes []string
	for _, t := range f.Targets {
		if b, ok := budget[t.Name]; ok && t.OverBudget(b) {
			problems = append(problems, fmt.Sprintf("target %q: error rate %.1f%% is over max_error_rate %.1f%%", t.Name, 100*t.ErrorRate, 100*b))
		}
		for _, p := range t.Prompts {
			n := len(p.Samples)
			for _, c := range cfg.Gate.Checks {
				if need := needOf(c.Stat, cfg.Gate.Confidence); n < need && c.Metric != "itl" {
					notes = append(notes, fmt.Sprintf("%s/%s: %s %s needs %d requests, has %d: it will be inconclusive", t.Name, p.ID, c.Metric, c.Stat, need, n))
				}
			}
		}
	}
	for _, n := range notes {
		fmt.Fprintf(env.Stderr, "latgate: warning: %s (raise run.requests)\n", n)
	}
	if len(problems) == 0 {
		return nil
	}
	if force {
		for _, p := range problems {
			fmt.Fprintf(env.Stderr, "latgate: warning: %s (blessing anyway: --force)\n", p)
		}
		return nil
	}
	return usageErr(fmt.Errorf("refusing to bless: %s; fix the endpoint or raise run.requests, or pass --force (the baseline is unchanged)", strings.Join(problems, "; ")))
}

// needOf is the fewest requests a statistic of the config needs (config.Load
// accepted only statistics that parse).
func needOf(stat string, conf float64) int {
	s, err := stats.ParseStat(stat)
	if err != nil {
		return stats.Stat{P: 0.5}.Need(conf)
	}
	return s.Need(conf)
}

// gitCommit returns the commit being blessed: $GITHUB_SHA in Actions, else
// git's HEAD in the config's directory; "" when unknown.
func gitCommit(ctx context.Context, env Env, dir string) string {
	if sha := env.Getenv("GITHUB_SHA"); sha != "" {
		return sha
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
