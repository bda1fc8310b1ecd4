package app

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/latgate/latgate/internal/export"
	"github.com/latgate/latgate/internal/report"
	"github.com/latgate/latgate/internal/trend"
	"github.com/latgate/latgate/internal/view"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// CompareRequest is `latgate compare`: the gate of check on saved files.
type CompareRequest struct {
	Gate
	Baseline, Results string
	// ConfigPath holds the gate settings; with ConfigOptional (the default
	// path, not given) it is read only if it exists, else the default gate.
	ConfigPath     string
	ConfigOptional bool
}

// Compare gates a saved results file against a baseline: same files, same
// output (the intervals are analytic), the verdicts check would have given.
func (a *App) Compare(req CompareRequest) (err error) {
	sink := a.sink(req.Gate)
	sink.Input("the config", req.ConfigPath)
	sink.Input("BASELINE", req.Baseline)
	sink.Input("RESULTS", req.Results)
	defer func() { a.publishFailed(sink, err) }()
	cfg, gate, source, err := a.gateSettings(req)
	if err != nil {
		return err
	}
	a.Out.Note("gate settings%s: %s", source, report.DescribeGate(gate))
	if cfg != nil {
		sink.InputConfig(cfg)
	}
	if err := sink.Check(); err != nil {
		return UsageError(err)
	}
	base, err := loadBaseline(req.Baseline)
	if err != nil {
		return err
	}
	if err := refuseThin(req.Baseline, base, gate); err != nil {
		return err
	}
	f, err := results.Read(req.Results)
	if err != nil {
		return UsageError(err)
	}
	if f.Partial && f.GaveUp {
		return MeasurementError(fmt.Errorf("%s: the run gave up early (%s): compare a complete run", req.Results, f.PartialReason))
	}
	if f.Partial {
		return UsageError(fmt.Errorf("%s is a partial run (%s): compare a complete one", req.Results, f.PartialReason))
	}
	if err := results.CheckBudget(f); err != nil {
		return MeasurementError(fmt.Errorf("%s: %w: compare a run within its budget", req.Results, err))
	}
	baseSide, curSide := side(base.Run, base.Targets), side(f.Run, f.Targets)
	if err := admit(req.Baseline, baseSide, curSide, req.StrictBaseline); err != nil {
		return err
	}
	// A results file from check records the cap of its rounds: compare at
	// the same looks, so the verdicts are check's.
	var noise compare.Noise
	if cfg != nil {
		noise = a.dayNoise(cfg, cfg.History, base.BlessedAt)
	}
	rep := compare.CompareWith(baseSide, curSide, gate, compare.Setup{Design: compare.NewDesign(f.Run.Requests, f.Run.MaxRequests), Noise: noise, Rules: a.Rules})
	strict := strictGate(req.Strict, gate)
	g := gated{cfg: cfg, gate: gate, strict: strict, base: base, basePath: req.Baseline, baseFlag: req.Baseline, f: f, cur: trend.OfResults(f), from: req.Results, wide: req.Wide}
	g.explain(&rep)
	rep.Warnings = append(rep.Warnings, queueWarnings(f)...)
	blessCmd := ""
	if cfg != nil {
		blessCmd = blessCommandLine(cfg, Run{}, req.Baseline, req.Results)
	}
	if w := reblessWarning(rep, blessCmd); w != "" {
		rep.Warnings = append(rep.Warnings, w)
	}
	return gateOutcome(rep, strict, sink.Publish(view.OfGate(rep, g.reportOptions(&rep), locator(cfg)).WithExport(&rep, export.Side{File: f})))
}

// gateSettings are the gate compare applies: the config's (cfg non-nil),
// or the defaults when the config is optional and absent; source says
// which, for stderr.
func (a *App) gateSettings(req CompareRequest) (cfg *config.Config, gate config.Gate, source string, err error) {
	defaults := ": the defaults (no --config, and no ./" + DefaultConfig + ")"
	if req.ConfigPath == "" {
		return nil, config.DefaultGate(), defaults, nil
	}
	cfg, err = config.Load(req.ConfigPath, ConfigOptions(a.Getenv))
	switch {
	case errors.Is(err, fs.ErrNotExist) && req.ConfigOptional:
		return nil, config.DefaultGate(), defaults, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, gate, "", UsageError(fmt.Errorf("no config at %s: pass --config FILE with the gate settings, or leave it out for the defaults", req.ConfigPath))
	case err != nil:
		return nil, gate, "", UsageError(err)
	}
	a.learnTargets(cfg)
	return cfg, cfg.Gate, " from " + req.ConfigPath, nil
}
