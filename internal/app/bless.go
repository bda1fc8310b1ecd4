package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/latgate/latgate/internal/cost"
	"github.com/latgate/latgate/internal/export"
	"github.com/latgate/latgate/internal/report"
	"github.com/latgate/latgate/internal/trend"
	"github.com/latgate/latgate/pkg/baseline"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// BlessRequest is `latgate bless`: measure (or take a results file) and
// write it as the new baseline.
type BlessRequest struct {
	Run
	// Baseline is the file to write ("": the config's baseline:).
	Baseline string
	// From blesses this results file instead of measuring.
	From string
	// Force blesses a run over its error budget or one that drifted while
	// it was measured (never a partial run, nor a baseline too thin to
	// gate).
	Force bool
}

// Bless writes the baseline that check compares with, atomically: a
// failed, interrupted or refused bless leaves the previous one intact. It
// prints what changed against the previous baseline.
func (a *App) Bless(ctx context.Context, req BlessRequest) error {
	cfg, err := a.loadConfig(req.Run)
	if err != nil {
		return err
	}
	path := orConfig(req.Baseline, cfg.Baseline)
	sink := a.Out.Sink()
	sink.InputConfig(cfg)
	sink.Input("--from", req.From)
	out := sink.Output("the baseline", path)
	if err := sink.Check(); err != nil {
		return UsageError(err)
	}
	f, forced, err := a.blessResults(ctx, cfg, req, path)
	if err != nil {
		return err
	}
	if err := a.blessable(cfg, f, req.Force, forced != nil); err != nil {
		return err
	}
	if err := a.refuseDrift(cfg, f, req.Force); err != nil {
		return err
	}
	a.warnQueueing(f)
	a.warnBusyRunner(f)
	prev, prevErr := baseline.Load(path)
	b := baseline.FromResults(f, a.Now(), a.commit(ctx, cfg.Dir))
	if req.From == "" { // a results file does not say where it was measured
		r := a.sanitizedRunner(cfg)
		b.Runner = &r
	}
	if err := ctx.Err(); err != nil { // interrupted after measuring: still no bless
		return MeasurementError(fmt.Errorf("interrupted: %s", kept(path)))
	}
	if err := refuseUngateable(b, cfg.Gate, path, forced); err != nil {
		return err
	}
	data, err := baseline.Encode(b)
	if err != nil {
		return UsageError(fmt.Errorf("refusing to bless: %w; %s", err, kept(path)))
	}
	if err := out.Write(data); err != nil {
		return outputErr("", false, fmt.Errorf("%w; the previous baseline is unchanged", err))
	}
	w := a.Out.Stdout
	fmt.Fprintln(w)
	switch {
	case prevErr == nil:
		fmt.Fprintf(w, "replacing the baseline %s\n", trend.Blessed(trend.OfBaseline(prev), a.Now()))
		plan := compare.Pair(side(prev.Run, prev.Targets), side(b.Run, b.Targets))
		if err := report.BlessChanges(w, plan.Changes); err != nil {
			return err
		}
		if err := report.BlessDiff(w, baseline.Diff(prev, b)); err != nil {
			return err
		}
	case errors.Is(prevErr, baseline.ErrNotFound):
		fmt.Fprintln(w, "no previous baseline: this is the first.")
	default:
		fmt.Fprintf(w, "the previous baseline could not be read (%v); it is replaced.\n", prevErr)
	}
	fmt.Fprintf(w, "baseline written to %s: review and commit it.\n", path)
	what := "bless cost"
	if req.From != "" {
		what = "measuring " + req.From + " cost"
	}
	return report.Cost(w, what, cost.Run(f.Targets, cost.PriceOf(cfg)))
}

// blessResults are the results bless makes a baseline of: the --from file,
// or a measurement of run.bless_requests per prompt. forced is the
// measurement failure --force blesses anyway (over the error budget).
func (a *App) blessResults(ctx context.Context, cfg *config.Config, req BlessRequest, path string) (f *results.File, forced, err error) {
	if req.From != "" {
		if f, err = results.Read(req.From); err != nil {
			return nil, nil, UsageError(err)
		}
		if ms := blessMismatch(cfg, f); len(ms) > 0 {
			return nil, nil, UsageError(fmt.Errorf("%s was not measured with %s: %s", req.From, cfg.Path, strings.Join(ms, "; ")))
		}
		return f, nil, nil
	}
	// The baseline's noise enters every later comparison, so bless
	// measures more than a check: run.bless_requests (default 4 ×
	// run.requests), or --requests when given. cfg.Run keeps a check's
	// run.requests: "requests" means the same thing everywhere.
	run := cfg.Run
	why := "--requests"
	if req.Requests == nil {
		why = fmt.Sprintf("run.bless_requests, %.3g× a check's run.requests; --requests N to change", float64(cfg.Run.BlessN())/float64(cfg.Run.Requests))
		run.Requests = cfg.Run.BlessN()
	}
	a.Out.Note("bless measures %d requests per prompt (%s): %d requests in all. The baseline's noise enters every later check, so it pays to measure it well.",
		run.Requests, why, run.Requests*len(cfg.Prompts)*len(cfg.Targets))
	// --force blesses a run over its error budget: measure all of it
	// rather than give up when the budget is out of reach.
	f, merr := a.measureRun(ctx, cfg, run, req.Quiet, measureHow{overBudget: req.Force})
	if f != nil {
		a.exportOTLP(ctx, req.Run, export.Side{File: f})
		if err := report.Measure(a.Out.Stdout, f); err != nil {
			return nil, nil, err
		}
	}
	if merr == nil {
		return f, nil, nil
	}
	if f != nil && !f.Partial && req.Force && ClassOf(merr) == Measurement && isBudget(merr) {
		a.Out.Warn("%v (blessing anyway: --force)", merr)
		return f, merr, nil
	}
	return nil, nil, fmt.Errorf("%w; %s", merr, kept(path))
}

// kept says what a refused bless left at path: "the baseline PATH was not
// changed", or, when there was none, that none was written (not an
// "unchanged" file that does not exist).
func kept(path string) string {
	if _, err := os.Stat(path); err != nil && errors.Is(err, fs.ErrNotExist) {
		return "no baseline was written to " + path
	}
	return "the baseline " + path + " was not changed"
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
	case m.Field == compare.FieldRate:
		return fmt.Sprintf("the file was measured at %s, the config asks for %s", m.Current, m.Baseline)
	}
	return fmt.Sprintf("target %q: %s is %s in the file, %s in the config", tgt, m.Field, m.Current, m.Baseline)
}

// blessable refuses results that must not become a baseline: a partial
// run, always; a run over its error budget (compare.OverBudget), unless
// forced (said: the measuring already warned of it). Too few samples for a check is compare.CannotGate's rule, which no
// --force overrides (refuseUngateable).
func (a *App) blessable(cfg *config.Config, f *results.File, force, said bool) error {
	if f.Partial {
		return UsageError(fmt.Errorf("refusing to bless a partial run (%s): the baseline is unchanged", f.PartialReason))
	}
	problems := compare.OverBudget(side(f.Run, f.Targets), cfg.Targets)
	if len(problems) == 0 {
		return nil
	}
	if force {
		if !said { // a measured run's budget error was warned of already, in the endpoint's words
			for _, p := range problems {
				a.Out.Warn("%s (blessing anyway: --force)", p)
			}
		}
		return nil
	}
	return UsageError(fmt.Errorf("refusing to bless: %s; fix the endpoint or raise run.requests, or pass --force (the baseline is unchanged)", strings.Join(problems, "; ")))
}

// refuseUngateable refuses (even with --force) a baseline that check would
// refuse: values no run can have (results.ValidateData) or too few samples
// to gate (compare.CannotGate). A measurement failure keeps its exit code 3.
func refuseUngateable(b *baseline.File, gate config.Gate, path string, merr error) error {
	var problems []string
	if _, err := baseline.Decode(mustEncode(b), path); err != nil {
		problems = append(problems, err.Error())
	} else {
		problems = append(problems, compare.CannotGate(side(b.Run, b.Targets), gate)...)
	}
	if len(problems) == 0 {
		return nil
	}
	err := fmt.Errorf("refusing to bless, even with --force: %s; %s", strings.Join(problems, "; "), kept(path))
	if merr != nil {
		return MeasurementError(fmt.Errorf("%w (%v)", err, merr))
	}
	return UsageError(err)
}

func mustEncode(b *baseline.File) []byte {
	data, err := baseline.Encode(b)
	if err != nil {
		return nil // Decode then says what is wrong
	}
	return data
}
