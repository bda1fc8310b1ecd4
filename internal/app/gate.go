package app

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/latgate/latgate/internal/cost"
	"github.com/latgate/latgate/internal/diagnose"
	"github.com/latgate/latgate/internal/history"
	"github.com/latgate/latgate/internal/jsonfile"
	"github.com/latgate/latgate/internal/publish"
	"github.com/latgate/latgate/internal/report"
	"github.com/latgate/latgate/internal/trend"
	"github.com/latgate/latgate/pkg/baseline"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/measure"
	"github.com/latgate/latgate/pkg/results"
)

// Gate is what the gate commands (check, compare) are given beside their
// inputs: the report files, and how strictly to gate.
type Gate struct {
	publish.Reports
	// Strict fails (exit 1) on inconclusive checks too.
	Strict bool
	// StrictBaseline refuses (exit 2) a baseline that measured anything
	// other than this config, instead of gating the change and labelling it.
	StrictBaseline bool
	// Wide keeps every column of the text tables (--wide).
	Wide bool
}

// sink is the outputs of a gate command: stdout, the report files and the
// GitHub Actions files.
func (a *App) sink(g Gate) *publish.Sink { return a.Out.ReportSink(g.Reports) }

// publishFailed is the deferred error report of a gate command: a run that
// could not decide (exit 2 or 3) says why in every report it was asked for;
// a run whose verdict was published but not written everywhere says what
// was not written.
func (a *App) publishFailed(sink *publish.Sink, err error) {
	var oe *OutputError
	switch c := ClassOf(err); {
	case errors.As(err, &oe):
		a.Out.AnnotateError("latgate: output not written", err)
	case c == Usage || c == Measurement:
		if next := NextOf(err); next != "" {
			err = fmt.Errorf("%w\nnext: %s", err, next)
		}
		sink.PublishFailure(err, c == Measurement)
	}
}

// loadBaseline loads a baseline; every problem is a Usage problem.
func loadBaseline(path string) (*baseline.File, error) {
	b, err := baseline.Load(path)
	if err != nil {
		return nil, UsageError(err)
	}
	return b, nil
}

// noBaseline reports whether err is a baseline file that does not exist.
func noBaseline(err error) bool { return errors.Is(err, baseline.ErrNotFound) }

func side(run results.Run, targets []results.Target) compare.Side {
	return compare.Side{Run: run, Targets: targets}
}

// planned is what a run of cfg will measure, before measuring.
func planned(cfg *config.Config) compare.Side {
	s := compare.Side{Run: measure.RunOf(cfg.Run)}
	for _, t := range cfg.Targets {
		s.Targets = append(s.Targets, measure.Describe(t, cfg.Prompts))
	}
	return s
}

// admit decides whether cur may be gated against base. By default a changed
// config is gated and labelled (compare.Pair), and only two runs with no
// target × prompt in common, or measured at different arrival rates, are
// refused; with --strict-baseline any difference is refused, as before
// latgate gated changes.
func admit(basePath string, base, cur compare.Side, strict bool) error {
	ms := compare.Compatible(base, cur)
	if len(ms) == 0 {
		return nil
	}
	if i := slices.IndexFunc(ms, func(m compare.Mismatch) bool { return m.Field == compare.FieldRate }); i >= 0 {
		// Not a change to gate: the queue at one load says nothing of the
		// queue at another, so the comparison would be of two loads.
		return mismatchError(fmt.Sprintf("cannot compare with the baseline %s: it was measured at another load:", basePath), ms[i:i+1])
	}
	if strict {
		return mismatchError(fmt.Sprintf("cannot compare with the baseline %s (--strict-baseline: any change is refused; without it, latgate gates the change and labels it): it measured something else:", basePath), ms)
	}
	if compare.Pair(base, cur).Comparable() {
		return nil
	}
	return mismatchError(fmt.Sprintf("cannot compare with the baseline %s: it has no target and prompt in common with this run, so nothing can be gated; bless a baseline for this config (latgate bless). What differs:", basePath), ms)
}

// mismatchError refuses a comparison: the header, then every difference.
func mismatchError(header string, ms []compare.Mismatch) error {
	var b strings.Builder
	b.WriteString(header)
	for _, m := range ms {
		b.WriteString("\n  - ")
		b.WriteString(m.Message())
	}
	return UsageError(errors.New(b.String()))
}

// refuseThin refuses (exit 2) a baseline too thin to gate, by the rule of
// compare.CannotGate: a prompt with fewer samples than any check needs would
// make its checks inconclusive, a silent pass, whatever the run measured.
func refuseThin(path string, base *baseline.File, gate config.Gate) error {
	bad := compare.CannotGate(side(base.Run, base.Targets), gate)
	if len(bad) == 0 {
		return nil
	}
	return UsageError(errors.New(path + ": the baseline cannot gate: " + strings.Join(bad, "; ") +
		": re-create it with `latgate bless` and enough run.requests"))
}

// gated is what a gate's report says of the run it gated, beside the
// comparison: the tail check and compare share.
type gated struct {
	cfg      *config.Config // nil: compare without a config
	gate     config.Gate
	strict   bool
	base     *baseline.File // nil: no baseline (check with limits only)
	basePath string
	// baseFlag is the baseline as the user named it ("": the config's).
	baseFlag string
	// run is check's overrides of the config's run (none for compare),
	// which the commands it suggests repeat.
	run Run
	f   *results.File
	// cur is the run's provenance; from is the results file compare read
	// ("" for a run check measured now).
	cur  trend.Provenance
	from string
	// wide is --wide.
	wide bool
}

// explain attributes rep's regressions to what moved with them between
// the baseline and the run (diagnose.Explain): their reports say why, not
// only that. Without a baseline there is nothing to compare with.
func (g gated) explain(rep *compare.Report) {
	if g.base != nil && g.f != nil {
		diagnose.Explain(rep, side(g.base.Run, g.base.Targets), side(g.f.Run, g.f.Targets))
	}
}

// reportOptions adds to rep the warnings that the baseline may no longer
// describe what the run measured (staleness, other models, runner,
// version), counted to when the run finished (for check, just now; for
// compare, when the saved run was measured, so the same files give the
// same report); and returns how the report heads and ends it.
func (g gated) reportOptions(rep *compare.Report) report.Options {
	opts := report.Options{Strict: g.strict, Results: "this run", Wall: report.WallOf(g.f), OnInconclusive: g.gate.OnInconclusive,
		Order: configOrder(g.f, g.gate), TargetNotes: report.NotesOf(g.f), Wide: g.wide}
	if g.from != "" {
		opts.Results = g.from
	}
	if g.base != nil {
		bp := trend.OfBaseline(g.base)
		rep.Warnings = append(rep.Warnings, trend.Staleness(bp, g.cur, g.gate.MaxBaselineAge, g.f.FinishedAt)...)
		opts.BaselinePath = g.basePath
		opts.Blessed = trend.Blessed(bp, g.f.FinishedAt)
		if g.from != "" {
			opts.Blessed = trend.BlessedBefore(bp, g.f.FinishedAt)
		}
	}
	if g.cfg != nil {
		opts.Cost = cost.Run(g.f.Targets, cost.PriceOf(g.cfg))
		opts.Bless = blessCommandLine(g.cfg, g.run, g.baseFlag, g.from)
		if g.from == "" {
			opts.Rerun = checkCommandLine(g.cfg, g.run)
		}
	}
	return opts
}

// strictGate reports whether an undecided gated check fails the run:
// --strict, or gate.on_inconclusive: fail.
func strictGate(flag bool, g config.Gate) bool {
	return flag || g.OnInconclusive == config.OnInconclusiveFail
}

// dayNoise is the day-to-day noise the gate learns from the history at
// path ("", missing or too short: none, and the gate assumes its
// day_to_day), for a baseline blessed at blessedAt (zero: unknown, taken
// as older than the history): the runs recorded after it are its age. A
// history that cannot be read is said on stderr and not learned from: the
// gate then assumes, and its report says so.
func (a *App) dayNoise(cfg *config.Config, path string, blessedAt time.Time) compare.Noise {
	if path == "" {
		return nil
	}
	h, err := history.Read(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		a.Out.Note("day-to-day noise not learned from the history: %v", err)
		return nil
	}
	h.AtLoad(cfg.Run.Rate) // a day's level at one load is no level at another
	var series []compare.DayLevels
	var want []history.Statistic
	for _, s := range compare.GatedStats(cfg.Gate) {
		want = append(want, history.Statistic(s)) // the same fields: compare imports no history
	}
	for _, l := range history.Series(h.Records, want) {
		after := -1
		if !blessedAt.IsZero() {
			after = 0
			for _, at := range l.At {
				if at.After(blessedAt) {
					after++
				}
			}
		}
		series = append(series, compare.DayLevels{Key: compare.NoiseKey{Target: l.Target, Region: l.Region, Metric: l.Metric, Stat: l.Stat}, Runs: l.Runs, After: after})
	}
	return compare.LearnDayNoise(series)
}

// gateOutcome turns a report into the command's result: nil, ErrRegression,
// or, when some output could not be written (outErrs), an OutputError that
// says the verdict.
func gateOutcome(rep compare.Report, strict bool, outErrs ...error) error {
	fails := rep.Verdict.Fails(strict)
	if err := outputErr(string(rep.Verdict), fails, outErrs...); err != nil {
		return err
	}
	if fails {
		return ErrRegression
	}
	return nil
}

// locator points annotations at each prompt's line in the config.
func locator(cfg *config.Config) func(target, prompt string) (string, int) {
	return func(target, prompt string) (string, int) {
		if cfg == nil {
			return "", 0
		}
		for _, p := range cfg.Prompts {
			if p.ID == prompt {
				return cfg.Path, p.Line
			}
		}
		for _, t := range cfg.Targets {
			if t.Name == target {
				return cfg.Path, t.Line
			}
		}
		return cfg.Path, 0
	}
}

// writeResults atomically writes a results file with its comparison (nil:
// none), in the encoding of every latgate JSON file; a nil file is not
// written.
func writeResults(out *publish.File, r compare.Recorded) error {
	if r.Comparison != nil {
		rep := report.WithReasons(*r.Comparison)
		r.Comparison = &rep
	}
	return writeJSON(out, r)
}

// writeJSON atomically writes v to out in the encoding of every latgate
// JSON file; a nil file is not written.
func writeJSON(out *publish.File, v any) error {
	if out == nil {
		return nil
	}
	data, err := jsonfile.Encode(v)
	if err != nil {
		return fmt.Errorf("could not write %s %s: encode: %w", out.Role, out.Path, err)
	}
	return out.Write(data)
}

// defaultResultsPath is where check writes the results of a run without a
// baseline when --out is not given: beside the baseline, so that
// `latgate bless --from` can make them the first baseline.
func defaultResultsPath(basePath string) string {
	return filepath.Join(filepath.Dir(basePath), "latgate.results.json")
}

// limitsOnlyNotice is the warning of a check without a baseline whose gate
// has absolute limits: only those were gated.
func limitsOnlyNotice(basePath, resultsPath, bless string) string {
	return fmt.Sprintf("no baseline: only the absolute limits (max, min) were gated. There is no baseline at %s, so the relative checks "+
		"compared with nothing. The results are in %s: make them the baseline with `%s`, "+
		"review and commit it.", basePath, resultsPath, bless)
}

// blessCommandLine is the bless command a gate offers as its next step:
// with the config, the run's overrides (Run.overrides: a file measured
// with --concurrency 4 is refused by a bless without it), the baseline when
// it is not the config's, and the results file when one was compared.
func blessCommandLine(cfg *config.Config, run Run, baselinePath, from string) string {
	s := "latgate bless --config " + shellQuote(cfg.Path) + run.overrides(false)
	if baselinePath != "" && baselinePath != cfg.Baseline {
		s += " --baseline " + shellQuote(baselinePath)
	}
	if from != "" {
		s += " --from " + shellQuote(from)
	}
	return s
}

// checkCommandLine is the check command a gate offers to run again: with
// the config and every override of this run.
func checkCommandLine(cfg *config.Config, run Run) string {
	return "latgate check --config " + shellQuote(cfg.Path) + run.overrides(true)
}

// shellQuote quotes s for a POSIX shell when it holds anything but plain
// path characters.
func shellQuote(s string) string {
	plain := s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:@+,", r))
	}) < 0
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
