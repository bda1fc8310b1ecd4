package app

import (
	"fmt"

	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// The traps of a first run (#23): a server that queued latgate's requests
// (results.Queueing), a bless whose run drifted (compare.SelfDrift), and a
// baseline an endpoint has outgrown (compare.Rebless).

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
			compare.DriftSummary(drift))
		return nil
	}
	msg := fmt.Sprintf("the run drifted while it was measured, by %g× or more: its second half differs from its first: %s",
		compare.DriftRefusal, compare.DriftSummary(severe))
	if force {
		a.Out.Warn("%s (blessing anyway: --force)", msg)
		return nil
	}
	return UsageError(fmt.Errorf("refusing to bless: %s. A baseline must describe one steady endpoint, or every later check inherits the drift: "+
		"find what changed during the run (a cold start, a noisy neighbour, a deploy) and bless again, or pass --force to write it anyway (the baseline is unchanged)", msg))
}

// reblessWarning is check's suggestion to bless again after a large and
// consistent improvement (compare.Rebless), with the command; "" for none.
func reblessWarning(rep compare.Report, blessCmd string) string {
	im, ok := compare.Rebless(rep)
	if !ok {
		return ""
	}
	if blessCmd == "" {
		return im.String()
	}
	return im.String() + ": " + blessCmd
}
