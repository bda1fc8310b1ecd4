package app

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/latgate/latgate/internal/cost"
	"github.com/latgate/latgate/internal/export"
	"github.com/latgate/latgate/internal/publish"
	"github.com/latgate/latgate/internal/report"
	"github.com/latgate/latgate/internal/trend"
	"github.com/latgate/latgate/internal/view"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// CheckRequest is `latgate check`: measure, compare with the baseline, and
// publish the verdict.
type CheckRequest struct {
	Run
	Gate
	History History
	// Baseline is the baseline file ("": the config's baseline:).
	Baseline string
	// Out is where the results go, with the comparison ("": nowhere, or
	// beside the baseline when there is none).
	Out string
	// RequireBaseline makes a missing baseline exit 2 instead of measuring
	// ungated (the nightly job: a lost baseline must not pass unnoticed).
	RequireBaseline bool
	// SkipWithoutKey passes without measuring when a target's key is empty
	// (--skip-without-key; see skipWithoutKey).
	SkipWithoutKey bool
	// NoiseHistory is a history the day-to-day noise is learned from and
	// that is never written (--noise-history: a pull request's check reads
	// the nightly's); "": the history of History, if any.
	NoiseHistory string
}

// Check is the CI gate: load the config and the baseline, refuse what
// cannot be compared, measure in sequential rounds while checks are
// undecided, and publish the verdicts everywhere they were asked for.
func (a *App) Check(ctx context.Context, req CheckRequest) (err error) {
	sink := a.sink(req.Gate)
	sink.Input("the config", req.ConfigPath)
	sink.Input("the baseline", req.Baseline)
	out := sink.Output("--out", req.Out)
	defer func() { a.publishFailed(sink, err) }()
	if err := req.History.validate(); err != nil {
		return err
	}
	cfg, err := a.loadConfig(req.Run)
	if err != nil {
		return err
	}
	if req.SkipWithoutKey {
		if skip, err := a.skipWithoutKey(sink, cfg); skip {
			return err
		}
	}
	basePath := orConfig(req.Baseline, cfg.Baseline)
	sink.InputConfig(cfg)
	sink.Input("the baseline", basePath)
	hist := sink.Output("--history", orConfig(req.History.Path, cfg.History))
	sink.Input("--noise-history", req.NoiseHistory)
	if err := sink.Check(); err != nil {
		return UsageError(err)
	}
	noisePath := orConfig(req.History.Path, cfg.History)
	if req.NoiseHistory != "" {
		noisePath = req.NoiseHistory
	}
	base, err := loadBaseline(basePath)
	switch {
	case noBaseline(err) && req.RequireBaseline:
		return UsageError(fmt.Errorf("%w (--require-baseline: a run without a baseline gates nothing, so it fails)", err))
	case noBaseline(err):
		return a.checkUngated(ctx, sink, cfg, req, basePath, out, hist)
	case err != nil:
		return err
	}
	if err := refuseThin(basePath, base, cfg.Gate); err != nil {
		return err
	}
	baseSide := side(base.Run, base.Targets)
	if err := admit(basePath, baseSide, planned(cfg), req.StrictBaseline); err != nil {
		return err
	}
	f, rep, merr := a.measureSequential(ctx, cfg, baseSide, a.dayNoise(cfg, noisePath, base.BlessedAt), req.Quiet)
	if f == nil {
		return merr
	}
	a.exportOTLP(ctx, req.Run, export.Side{File: f})
	if msg, ok := slowed(merr, f, baseSide, cfg.Run.Timeout); ok {
		return a.checkSlowed(sink, cfg, req.Run, req.Baseline, f, out, msg)
	}
	if err := a.reportMeasured(f, merr, out); err != nil {
		return err
	}
	fmt.Fprintln(a.Out.Stdout)
	strict := strictGate(req.Strict, cfg.Gate)
	g := gated{cfg: cfg, gate: cfg.Gate, strict: strict, base: base, basePath: basePath, baseFlag: req.Baseline, run: req.Run, f: f, cur: a.provenance(cfg, f), wide: req.Wide}
	g.explain(&rep)
	rep.Warnings = append(rep.Warnings, queueWarnings(f)...)
	if w := reblessWarning(rep, blessCommandLine(cfg, req.Run, req.Baseline, "")); w != "" {
		rep.Warnings = append(rep.Warnings, w)
	}
	// The verdict is published whatever could not be written.
	outErr := writeResults(out, compare.Recorded{File: f, Comparison: &rep})
	pubErr := sink.Publish(view.OfGate(rep, g.reportOptions(&rep), locator(cfg)).WithExport(&rep, export.Side{File: f}))
	histErr := a.recordHistory(ctx, hist, req.History.Keep, cfg, f, "check", string(rep.Verdict), base.BlessedAt)
	return gateOutcome(rep, strict, outErr, pubErr, histErr)
}

// checkUngated is check without a baseline: measure, report and write the
// results (to out, else beside the baseline, so that `bless --from` can make
// them the first baseline), then pass with a warning that nothing was
// gated. A failed run still exits 3, its partial results only in out.
func (a *App) checkUngated(ctx context.Context, sink *publish.Sink, cfg *config.Config, req CheckRequest, basePath string, out, hist *publish.File) error {
	res := out
	if res == nil {
		res = sink.Output("the results", defaultResultsPath(basePath))
		if err := sink.Check(); err != nil {
			return UsageError(err)
		}
	}
	if hasLimits(cfg.Gate) {
		return a.checkLimitsOnly(ctx, sink, cfg, req, basePath, out, res, hist)
	}
	f, merr := a.measureRun(ctx, cfg, cfg.Run, req.Quiet, measureHow{})
	if f == nil {
		return merr
	}
	a.exportOTLP(ctx, req.Run, export.Side{File: f})
	if err := a.reportMeasured(f, merr, out); err != nil {
		return err
	}
	if err := report.Cost(a.Out.Stdout, "", cost.Run(f.Targets, cost.PriceOf(cfg))); err != nil {
		return err
	}
	a.warnQueueing(f)
	outErr := writeResults(res, compare.Recorded{File: f})
	pubErr := sink.Publish(view.Ungated(basePath, res.Path, blessCommandLine(cfg, req.Run, req.Baseline, res.Path), f).WithExport(nil, export.Side{File: f}))
	histErr := a.recordHistory(ctx, hist, req.History.Keep, cfg, f, "check", view.NoBaselineVerdict, time.Time{})
	return outputErr(view.NoBaselineVerdict, false, outErr, pubErr, histErr)
}

// hasLimits reports whether some gate check has an absolute limit (max).
func hasLimits(g config.Gate) bool {
	return slices.ContainsFunc(g.Checks, func(c config.Check) bool { return c.Max > 0 || c.Min > 0 && !c.Off })
}

// checkLimitsOnly is check without a baseline when the gate has absolute
// limits: those need no baseline, so they are gated (in sequential rounds
// like any check) and decide the exit code; the relative checks are
// reported as new, as for a prompt the baseline lacks.
func (a *App) checkLimitsOnly(ctx context.Context, sink *publish.Sink, cfg *config.Config, req CheckRequest, basePath string, out, res, hist *publish.File) error {
	f, rep, merr := a.measureSequential(ctx, cfg, compare.Side{}, nil, req.Quiet)
	if f == nil {
		return merr
	}
	a.exportOTLP(ctx, req.Run, export.Side{File: f})
	if err := a.reportMeasured(f, merr, out); err != nil {
		return err
	}
	fmt.Fprintln(a.Out.Stdout)
	outErr := writeResults(res, compare.Recorded{File: f, Comparison: &rep})
	// Everything is "new" against no baseline: say it once, not per row.
	rep.Changes = nil
	for i := range rep.Checks {
		rep.Checks[i].Changed = nil
	}
	rep.Warnings = append(rep.Warnings, limitsOnlyNotice(basePath, res.Path, blessCommandLine(cfg, req.Run, req.Baseline, res.Path)))
	rep.Warnings = append(rep.Warnings, queueWarnings(f)...)
	strict := strictGate(req.Strict, cfg.Gate)
	g := gated{cfg: cfg, gate: cfg.Gate, strict: strict, baseFlag: req.Baseline, run: req.Run, f: f, wide: req.Wide}
	pubErr := sink.Publish(view.OfGate(rep, g.reportOptions(&rep), locator(cfg)).WithExport(&rep, export.Side{File: f}))
	histErr := a.recordHistory(ctx, hist, req.History.Keep, cfg, f, "check", string(rep.Verdict), time.Time{})
	return gateOutcome(rep, strict, outErr, pubErr, histErr)
}

// reportMeasured prints what a run measured. When the run failed or was
// interrupted (merr), nothing is compared: its samples are not the
// population the baseline describes, so it writes them to out (when given)
// as partial results and returns merr.
func (a *App) reportMeasured(f *results.File, merr error, out *publish.File) error {
	if err := report.Measure(a.Out.Stdout, f); err != nil {
		return err
	}
	if merr == nil {
		return nil
	}
	if out != nil && writeResults(out, compare.Recorded{File: f}) == nil {
		a.Out.Note("partial results written to %s", out.Path)
	}
	return merr
}

// provenance is this run's provenance, for check's staleness warnings: the
// results file's, and the runner it is running on.
func (a *App) provenance(cfg *config.Config, f *results.File) trend.Provenance {
	p := trend.OfResults(f)
	runner := a.sanitizedRunner(cfg)
	p.Runner = &runner
	return p
}
