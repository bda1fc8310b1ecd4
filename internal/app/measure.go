package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/latgate/latgate/internal/cost"
	"github.com/latgate/latgate/internal/export"
	"github.com/latgate/latgate/internal/report"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/measure"
	"github.com/latgate/latgate/pkg/results"
)

// MeasureRequest is `latgate measure`: measure the config, print it, and
// write the results (Out) and a history record.
type MeasureRequest struct {
	Run
	History History
	Out     string
	// OpenMetrics is where the run's latencies go as OpenMetrics text
	// ("": nowhere); written only for a complete run.
	OpenMetrics string
}

// Measure measures, prints what it measured, and writes the results file
// and the history record it was asked for. A failed or interrupted run
// still writes what it measured (marked partial) and fails with exit 3.
func (a *App) Measure(ctx context.Context, req MeasureRequest) error {
	if err := req.History.validate(); err != nil {
		return err
	}
	cfg, err := a.loadConfig(req.Run)
	if err != nil {
		return err
	}
	sink := a.Out.Sink()
	sink.InputConfig(cfg)
	sink.Input("the baseline", cfg.Baseline)
	out := sink.Output("--out", req.Out)
	hist := sink.Output("--history", orConfig(req.History.Path, cfg.History))
	om := sink.Output("--openmetrics", req.OpenMetrics)
	if err := sink.Check(); err != nil {
		return UsageError(err)
	}
	f, merr := a.measureRun(ctx, cfg, cfg.Run, req.Quiet, measureHow{})
	if f == nil {
		return merr
	}
	a.exportOTLP(ctx, req.Run, export.Side{File: f})
	if err := report.Measure(a.Out.Stdout, f); err != nil {
		return err
	}
	if err := report.Cost(a.Out.Stdout, "", cost.Run(f.Targets, cost.PriceOf(cfg))); err != nil {
		return err
	}
	a.warnQueueing(f)
	outErr := writeResults(out, compare.Recorded{File: f})
	if out != nil && outErr == nil {
		fmt.Fprintf(a.Out.Stderr, "results written to %s\n", out.Path)
	}
	if merr != nil {
		if outErr != nil {
			a.Out.Note("%v", outErr)
		}
		if om != nil {
			a.Out.Note("--openmetrics %s not written: the run failed, and its figures would read as a complete run's", om.Path)
		}
		return merr
	}
	if om != nil {
		var buf bytes.Buffer
		if err := export.OpenMetrics(&buf, []export.Side{{File: f}}, nil); err != nil {
			return err
		}
		outErr = errors.Join(outErr, om.Write(buf.Bytes()))
	}
	if err := outputErr("", false, outErr, a.recordHistory(ctx, hist, req.History.Keep, cfg, f, "measure", "", time.Time{})); err != nil {
		return fmt.Errorf("%w (the measurement itself was complete)", err)
	}
	return nil
}

// measureRun measures cfg's prompts once with run's settings (measure,
// bless, check without a baseline) and holds the run to its error budget.
// The file is non-nil whenever anything was measured, also with an error
// (partial results).
func (a *App) measureRun(ctx context.Context, cfg *config.Config, run config.Run, quiet bool, how measureHow) (f *results.File, err error) {
	eps, stop, err := a.endpoints(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer stopped(stop, &err)
	f, err = a.measureOn(ctx, cfg, eps, cfg.Prompts, run, quiet, how)
	if err == nil {
		err = budget(f)
	}
	return f, err
}

// measureHow is what a measurement takes beside its run settings.
type measureHow struct {
	// before: what earlier rounds measured (measure.Options.Before).
	before *results.File
	// overBudget: measure every request even when the error budget can no
	// longer be met (measure.Options.OverBudget; bless --force).
	overBudget bool
}

// stopped stops what endpoints started; a server that exited while it was
// measured is an error, put before err (its cause).
func stopped(stop func() error, err *error) {
	if e := stop(); e != nil {
		*err = errors.Join(e, *err)
	}
}

// measureOn measures prompts on running endpoints with run's settings. The
// caller checks the error budget (on the whole of check's rounds); before,
// the earlier rounds, lets measure's give-up rule count them too.
func (a *App) measureOn(ctx context.Context, cfg *config.Config, eps []measure.Endpoint, prompts []config.Prompt, run config.Run, quiet bool, how measureHow) (*results.File, error) {
	opts := measure.Options{
		Endpoints:  eps,
		Prompts:    prompts,
		Run:        run,
		Version:    a.Version,
		ConfigPath: cfg.Path,
		ConfigHash: cfg.Hash,
		Before:     how.before,
		OverBudget: how.overBudget,
	}
	if !quiet {
		progress := a.Out.Progress(a.Now)
		defer progress.Finish()
		opts.Observer = progress
	}
	f, err := a.Deps.Measure(ctx, opts)
	if err != nil {
		return f, measurementErr(err, cfg.Path)
	}
	return f, nil
}

// budget holds a run to its error budget (results.CheckBudget), the
// endpoint's own words added to the error.
func budget(f *results.File) error {
	if err := results.CheckBudget(f); err != nil {
		return measurementErr(withEndpointSaid(err, f), f.ConfigPath)
	}
	return nil
}

// withEndpointSaid adds to a budget error the first distinct messages of
// each failure class, so the exit-3 line (and the JUnit, Markdown and job
// summary that carry it) has the endpoint's own words, not only counts.
func withEndpointSaid(err error, f *results.File) error {
	var said []string
	for _, t := range f.Targets {
		if s := results.EndpointSaid(t.FirstFailures(results.MaxSaidPerClass)); s != "" {
			if len(f.Targets) > 1 {
				s = "target " + t.Label() + ": " + s
			}
			said = append(said, s)
		}
	}
	if len(said) == 0 {
		return err
	}
	return fmt.Errorf("%w%s%s", err, results.SaidSep, strings.Join(said, "; "))
}
