package app

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/latgate/latgate/internal/advise"
	"github.com/latgate/latgate/internal/numfmt"
	"github.com/latgate/latgate/internal/publish"
	"github.com/latgate/latgate/internal/report"
	"github.com/latgate/latgate/internal/view"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/measure"
	"github.com/latgate/latgate/pkg/results"
)

// The traps of a first run (#23): a server that queued latgate's requests
// (results.Queueing), a bless whose run drifted (compare.SelfDrift), a
// baseline an endpoint has outgrown (advise.Rebless), and a server so slow
// that its requests time out, which is a regression (advise.SlowLimits).

// queueWarnings are the queueing warnings of f, one per target.
func queueWarnings(f *results.File) []string {
	if f == nil {
		return nil
	}
	var out []string
	for _, q := range results.Queueing(f.Run, f.Targets) {
		out = append(out, q.String())
	}
	return out
}

// warnQueueing prints the queueing warnings of f on stderr (measure, bless,
// and check without a baseline: the commands with no report to carry them).
func (a *App) warnQueueing(f *results.File) {
	for _, w := range queueWarnings(f) {
		a.Out.Warn("%s", w)
	}
}

// warnBusyRunner warns when a run about to become the baseline was
// measured on a runner too busy to measure precisely (compare.BusyLagMS):
// its delay is in every baseline value, so later checks on a quieter runner
// read faster than the endpoint became, and hide a regression of its size.
func (a *App) warnBusyRunner(f *results.File) {
	for _, t := range f.Targets {
		if lag := t.Lateness.Lag(); lag >= compare.BusyLagMS {
			a.Out.Warn("target %s: latgate's own runner was busy while the baseline was measured (its timers woke up to %s late, p99 of %d probes): "+
				"the baseline carries that delay, so checks on a quieter runner read faster than the endpoint is; bless again on a quieter runner",
				t.Label(), numfmt.Millis(t.Lateness.P99MS), t.Lateness.Probes)
		}
	}
}

// refuseDrift refuses (exit 2; a warning with --force) to bless a run that
// drifted while it was measured by a factor of 2 or more (compare.Severe of
// compare.SelfDrift: its second half against its first, by the gate's own
// checks), and warns of a smaller drift the gate still calls a change. A
// drifted baseline carries the drift as noise into every later check, and
// a run that got faster halfway (a cold start of minutes) makes every
// later check "improved" while hiding tail regressions.
func (a *App) refuseDrift(cfg *config.Config, f *results.File, force bool) error {
	drift := compare.SelfDrift(side(f.Run, f.Targets), cfg.Gate)
	if len(drift) == 0 {
		return nil
	}
	severe := compare.Severe(drift)
	if len(severe) == 0 {
		a.Out.Warn("the run drifted while it was measured: its second half differs from its first beyond the gate's tolerances: %s; "+
			"the baseline is written, but every later check inherits the drift: if it is more than this runner's noise, bless again on a steady endpoint",
			report.DriftSummary(drift))
		return nil
	}
	msg := fmt.Sprintf("the run drifted while it was measured, by %g× or more: its second half differs from its first: %s",
		compare.DriftRefusal, report.DriftSummary(severe))
	if force {
		a.Out.Warn("%s (blessing anyway: --force)", msg)
		return nil
	}
	return UsageError(fmt.Errorf("refusing to bless: %s. A baseline must describe one steady endpoint, or every later check inherits the drift: "+
		"find what changed during the run (a cold start, a noisy neighbour, a deploy) and bless again, or pass --force to write it anyway (the baseline is unchanged)", msg))
}

// reblessWarning is check's suggestion to bless again after a large and
// consistent improvement (advise.Rebless), with the command; "" for none.
func reblessWarning(rep compare.Report, blessCmd string) string {
	im, ok := advise.Rebless(rep)
	if !ok {
		return ""
	}
	if blessCmd == "" {
		return report.ImprovementText(im)
	}
	return report.ImprovementText(im) + ": " + blessCmd
}

// withLimits sets on each endpoint the SlowLimits of its prompts from the
// baseline base (advise.SlowLimits); none without a baseline, where
// run.timeout alone applies, as before.
func withLimits(eps []measure.Endpoint, base compare.Side, timeout time.Duration) {
	limits := advise.SlowLimits(base, timeout)
	for i, ep := range eps {
		ls := limits[compare.TargetID{Name: ep.Target.Name, Region: ep.Target.Region}]
		if len(ls) == 0 {
			continue
		}
		eps[i].Limits = map[string]measure.Limit{}
		for id, l := range ls {
			eps[i].Limits[id] = measure.Limit{After: l.After, Why: report.SlowLimitText(l)}
		}
	}
}

// slowed says why a failed check is a regression of slowness: merr is the
// measurement's failure (a give-up, or the error budget), and at least half
// of the failed requests were stopped at their limit (advise.Slowed).
// ok is false for any other failure, which stays a measurement failure.
func slowed(merr error, f *results.File, base compare.Side, timeout time.Duration) (msg string, ok bool) {
	byClass := map[string]int{}
	var gu *measure.GiveUpError
	stopped := "went over its error budget"
	if errors.As(merr, &gu) {
		maps.Copy(byClass, gu.ByClass)
		stopped = fmt.Sprintf("stopped after %d of %d requests: %s", gu.Done, gu.Planned, gu.Reason)
	} else {
		var be *results.BudgetError
		if !errors.As(merr, &be) {
			return "", false
		}
		for _, t := range f.Targets {
			for k, v := range t.ByClass {
				byClass[k] += v
			}
		}
	}
	if !advise.Slowed(byClass) {
		return "", false
	}
	var limits []string
	for id, ls := range advise.SlowLimits(base, timeout) {
		for p, l := range ls {
			who := p
			if len(f.Targets) > 1 {
				who = results.Label(id.Name, id.Region) + "/" + p
			}
			limits = append(limits, fmt.Sprintf("%s %s", who, l.After.Round(10*time.Millisecond)))
		}
	}
	slices.Sort(limits)
	n := byClass[results.ErrSlow]
	noun := "requests"
	if n == 1 {
		noun = "request"
	}
	return fmt.Sprintf("%d %s timed out at %d× the baseline's total P99 (%s): the endpoint answers far slower than its baseline, "+
		"a regression, not a measurement failure (the run %s)", n, noun, advise.SlowFactor, strings.Join(limits, ", "), stopped), true
}

// checkSlowed ends a check whose requests were far slower than the baseline
// allows: it prints what was measured, writes the partial results to out,
// publishes the regression everywhere (view.Slowed) and fails with exit 1.
func (a *App) checkSlowed(sink *publish.Sink, cfg *config.Config, run Run, baseFlag string, f *results.File, out *publish.File, msg string) error {
	if err := report.Measure(a.Out.Stdout, f); err != nil {
		return err
	}
	outErr := writeResults(out, compare.Recorded{File: f})
	next := "next: find why the endpoint is this much slower (a starved or swapping server, another model, a cold start) and re-run the check: " +
		checkCommandLine(cfg, run) + "; if it is meant to be this slow, bless again: " + blessCommandLine(cfg, run, baseFlag, "")
	pubErr := sink.Publish(view.Slowed(msg, next))
	if err := outputErr(string(compare.Regressed), true, outErr, pubErr); err != nil {
		return err
	}
	return ErrRegression
}

// configOrder is the order the reports list their rows in: the targets and
// prompts as the run measured them (the config's order), the checks as the
// gate lists them.
func configOrder(f *results.File, gate config.Gate) *report.Order {
	o := &report.Order{}
	for _, t := range f.Targets {
		o.Targets = append(o.Targets, t.Label())
		for _, p := range t.Prompts {
			if !slices.Contains(o.Prompts, p.ID) {
				o.Prompts = append(o.Prompts, p.ID)
			}
		}
	}
	for _, c := range gate.Checks {
		if k := c.Metric + " " + c.Stat; !slices.Contains(o.Checks, k) {
			o.Checks = append(o.Checks, k)
		}
	}
	return o
}
