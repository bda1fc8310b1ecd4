package app

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/latgate/latgate/internal/history"
	"github.com/latgate/latgate/internal/publish"
	"github.com/latgate/latgate/internal/report"
	"github.com/latgate/latgate/internal/trend"
	"github.com/latgate/latgate/internal/view"
	"github.com/latgate/latgate/pkg/baseline"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/measure"
)

// TrendRequest is `latgate trend`: change points and drift in the run
// history, the nightly job.
type TrendRequest struct {
	ConfigPath string
	// History and Baseline default to the config's history: and baseline:.
	History, Baseline string
	publish.Reports
	// Window runs are analysed per series, Recent measure the drift, Chart
	// are charted.
	Window, Recent, Chart int
	// Wide keeps every column of the table (--wide).
	Wide bool
	// Now is when the report is made (zero: the clock's now).
	Now time.Time
}

// Trend analyses the history against the config's gate and the baseline,
// and publishes the report; a regression fails with ErrRegression.
func (a *App) Trend(req TrendRequest) error {
	for _, f := range []struct {
		name     string
		v, least int
	}{{"window", req.Window, 3}, {"recent", req.Recent, 1}, {"chart", req.Chart, 2}} {
		if f.v < f.least {
			return UsageError(fmt.Errorf("--%s must be at least %d, got %d", f.name, f.least, f.v))
		}
	}
	now := req.Now
	if now.IsZero() {
		now = a.Now()
	}
	in, err := a.loadHistory(req.ConfigPath, req.History, req.Baseline)
	if err != nil {
		return err
	}
	cfg, base := in.cfg, in.base
	sink := a.Out.ReportSink(req.Reports)
	sink.InputConfig(cfg)
	sink.Input("the history", in.path)
	sink.Input("the baseline", in.basePath)
	if err := sink.Check(); err != nil {
		return UsageError(err)
	}
	rep := trend.Analyze(in.hist.Records, trend.SpecFor(cfg, base), trend.Options{
		Window: req.Window, Recent: req.Recent, Confidence: cfg.Gate.Confidence,
	})
	var blessedAt time.Time
	if base != nil {
		blessedAt = base.BlessedAt
	}
	rep.AddKnees(trend.Knees(in.hist.Sweeps, blessedAt, cfg.Knee.Tolerance))
	warnings := in.warnings
	ropts := report.TrendOptions{History: in.path, Chart: req.Chart, Now: now, Wide: req.Wide}
	if base != nil {
		bp := trend.OfBaseline(base)
		ropts.Baseline = fmt.Sprintf("%s, %s", in.basePath, trend.Blessed(bp, now))
		if n := len(in.hist.Records); n > 0 {
			warnings = append(warnings, trend.Staleness(bp, trend.OfRecord(in.hist.Records[n-1]), cfg.Gate.MaxBaselineAge, now)...)
		}
	} else {
		warnings = append(warnings, in.noBaseline)
	}
	var issue []view.Output
	if key, title, ok := trend.IssueKey(rep, base); ok {
		issue = []view.Output{{Name: "issue-key", Value: key}, {Name: "issue-title", Value: title}}
	}
	regressed := rep.Verdict == trend.Regressed
	if err := outputErr(string(rep.Verdict), regressed, sink.Publish(view.OfTrend(rep, warnings, ropts, issue...))); err != nil {
		a.Out.AnnotateError("latgate: output not written", err)
		return err
	}
	if regressed {
		return ErrRegression
	}
	return nil
}

// TuneRequest is `latgate tune`: tolerances and floors from the history's
// run-to-run variation.
type TuneRequest struct {
	ConfigPath, History string
	// Window runs are learnt from per series.
	Window int
	// FalseAlarm is the false-alarm rate per run (any check of any prompt) to propose
	// tolerances for, strictly between 0 and 0.5.
	FalseAlarm float64
}

// Tune prints the proposal as YAML to paste over gate.checks.
func (a *App) Tune(req TuneRequest) error {
	if req.Window < trend.MinTuneRuns {
		return UsageError(fmt.Errorf("--window must be at least %d, got %d", trend.MinTuneRuns, req.Window))
	}
	in, err := a.loadHistory(req.ConfigPath, req.History, "")
	if err != nil {
		return err
	}
	rep := trend.Tune(in.hist.Records, trend.SpecFor(in.cfg, in.base), trend.TuneOptions{Window: req.Window, FalseAlarm: req.FalseAlarm})
	for _, w := range in.warnings { // not the missing baseline: tune needs none
		a.Out.Warn("%s", w)
	}
	if len(rep.Proposals) == 0 {
		return UsageError(fmt.Errorf("not enough history to tune: %s has %d runs, each series needs at least %d", in.path, len(in.hist.Records), trend.MinTuneRuns))
	}
	return report.TuneYAML(a.Out.Stdout, rep, in.path)
}

// historyInputs is what trend and tune read: the config, the history and
// the baseline (nil when there is none, and noBaseline says so), with the
// warnings reading them gave.
type historyInputs struct {
	cfg            *config.Config
	hist           *history.File
	base           *baseline.File
	path, basePath string
	warnings       []string
	noBaseline     string
}

func (a *App) loadHistory(configPath, historyPath, baselinePath string) (historyInputs, error) {
	var in historyInputs
	cfg, err := a.loadConfig(Run{ConfigPath: configPath})
	if err != nil {
		return in, err
	}
	path := orConfig(historyPath, cfg.History)
	if path == "" {
		return in, UsageError(fmt.Errorf("no history to analyse: pass --history FILE, or set history: in %s (check --history FILE writes it)", cfg.Path))
	}
	hist, err := history.Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return in, UsageError(fmt.Errorf("no history at %s: run 'latgate check --history %s' (nightly) to start one", path, path))
	}
	if err != nil {
		return in, UsageError(err)
	}
	hist.WarnFuture(a.Now())
	var warnings []string
	for i, p := range hist.Problems {
		if i == 5 {
			warnings = append(warnings, fmt.Sprintf("%s: %d more malformed lines skipped", path, len(hist.Problems)-5))
			break
		}
		warnings = append(warnings, fmt.Sprintf("%s: %s", path, p))
	}
	for _, w := range hist.Warnings {
		warnings = append(warnings, fmt.Sprintf("%s: %s", path, w))
	}
	if n := hist.AtLoad(cfg.Run.Rate); n > 0 {
		warnings = append(warnings, fmt.Sprintf("%s: %s at another load than the config's (%s) left out: latency at one load is not compared with another's",
			path, plural(n, "run", "runs"), compare.LoadOf(measure.RunOf(cfg.Run))))
	}
	in = historyInputs{cfg: cfg, hist: hist, path: path, basePath: orConfig(baselinePath, cfg.Baseline), warnings: warnings}
	in.base, err = baseline.Load(in.basePath)
	switch {
	case errors.Is(err, baseline.ErrNotFound):
		in.base = nil
		in.noBaseline = fmt.Sprintf("no baseline at %s: drift from a baseline is not measured (latgate bless writes one)", in.basePath)
	case err != nil:
		return in, UsageError(err)
	}
	return in, nil
}
