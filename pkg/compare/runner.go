package compare

import (
	"slices"

	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

// A busy runner (#29): when latgate's own process waits for the CPU, it
// reads the stream late — every time it measures carries the delay, and
// tokens that arrived apart are read together. The current run's targets
// record how late latgate's lateness probe woke (results.Lateness); a
// regression that lateness could have caused is not blamed on the
// endpoint.
const (
	// BusyLagMS is the lag (results.Lateness.Lag: the probe's p99 beyond
	// the timer granularity) from which the runner counts as busy. A quiet
	// 2-core machine reads about 0.1 ms; two CPU hogs on it 2–3 ms, four
	// about 3.5 ms.
	BusyLagMS = 1.5
	// lagFactor: a change of at most lagFactor × the runner's lateness at
	// the check's quantile (ms) is one its delay could have made (each read
	// delayed about that much; a gap between two reads by up to twice).
	lagFactor = 2
)

// busyRunner turns each regression of rep the current run's busy runner
// could explain into an undecided check (Stuck StuckRunner, gated: it holds
// the run undecided, and more requests on the same runner cannot help),
// and warns of every busy target, whether or not it changed a verdict.
func busyRunner(rep *Report, base, cur Side) {
	for _, t := range cur.Targets {
		// An arrival-rate run's sends were late by as much again: every
		// time counts from the schedule.
		lag := max(t.Lateness.Lag(), t.Sends.At(0.99)-results.TimerGranularityMS)
		if lag < BusyLagMS {
			continue
		}
		n := 0
		for _, cs := range []*[]Check{&rep.Checks, &rep.Aggregates} {
			for i := range *cs {
				c := &(*cs)[i]
				if c.Target != t.Name || c.Region != t.Region || c.Verdict != Regressed || !explains(*c, t.Lateness, t.Sends, base) {
					continue
				}
				c.Verdict, c.Stuck, c.More, c.Diagnostic, c.RunnerLag = Inconclusive, StuckRunner, -1, false, lag
				n++
			}
		}
		w := Warning{Kind: WarnRunnerBusy, Target: t.Name, Region: t.Region, NameTarget: len(cur.Targets) > 1, Count: n}
		if t.Lateness != nil {
			w.Lateness = *t.Lateness
		}
		if t.Sends != nil {
			w.Sends, w.Rate = *t.Sends, cur.Run.Rate
		}
		rep.Found = append(rep.Found, w)
	}
}

// explains reports whether a runner late by l, whose arrival-rate sends
// (nil for a closed loop) were late by sd, could have made c's
// regression: a duration whose statistic moved by at most lagFactor × the
// lateness at that statistic's quantile (a limit passed by that much); a
// rate (tokens_per_s) whose drop, read as the time the baseline's
// streaming span (TTFT to the end) grew by at that rate, is within the
// same bound (a late read stretches a stream at both ends, and a run that
// gates only the rate has no ITL check to carry the delay); a stream
// whose requests read as bursts when the lag (p99) reaches half of that
// span; an ITL statistic whose baseline and current are both below the
// lag (p99), which such a runner reads as bursts. A cache's hit rate is the endpoint's whatever the runner, and an
// SLO's share is left to its limits (far above a runner's delay).
func explains(c Check, l *results.Lateness, sd *results.Sends, base Side) bool {
	q := quantileOf(c.Stat)
	late := lagFactor*l.At(q) + sd.At(q) // a late send delays every time from the schedule once
	switch {
	case !c.Rule().Builtin():
		return false // a RuleDef's figures need not be milliseconds: its rule decides
	case c.Metric == results.StreamIntegrity:
		return l.Lag() >= streamSpan(base, c)/2
	case c.Metric == results.ITL && max(c.Baseline, c.Current) < l.Lag():
		// Gaps shorter than the runner's delay are read as bursts (a gap
		// of 0 when two tokens share a read): a gap statistic below the
		// lag on both sides is the runner's resolution. One beyond it is
		// not: a 40 ms gap against a baseline of 0 is no late read.
		return true
	case c.IsShare():
		return false
	case results.HigherIsBetter(c.Metric):
		ref := c.Baseline
		if c.Min > 0 {
			ref = c.Min
		}
		span := streamSpan(base, c)
		return span > 0 && c.Current > 0 && span*(ref/c.Current-1) <= late
	case c.Rule() == RuleLimit:
		return c.Current-c.Max <= late
	}
	return c.Current-c.Baseline <= late
}

// quantileOf is the quantile a statistic reads ("p95" → 0.95); a mean
// reads about the middle.
func quantileOf(stat string) float64 {
	if sp, err := stats.ParseStat(stat); err == nil && !sp.Mean {
		return sp.P
	}
	return 0.5
}

// streamSpan is the baseline's median time from the first token to the
// end of c's prompt (all prompts of its target for a pooled check), in
// ms; 0 when the baseline does not say.
func streamSpan(base Side, c Check) float64 {
	i := slices.IndexFunc(base.Targets, func(t results.Target) bool { return t.Name == c.Target && t.Region == c.Region })
	if i < 0 {
		return 0
	}
	t := base.Targets[i]
	m := t.Overall.Metrics
	if j := slices.IndexFunc(t.Prompts, func(p results.Prompt) bool { return p.ID == c.Prompt }); c.Prompt != "" && j >= 0 {
		m = t.Prompts[j].Metrics
	}
	if m.Total == nil || m.TTFT == nil {
		return 0
	}
	return max(0, m.Total.P50-m.TTFT.P50)
}

// missedSchedule leaves undecided every check of a target whose
// arrival-rate run did not hold its schedule (results.Sends.Held): sent
// late, its requests put less load on the endpoint than the rate asks,
// and latency at a lower load reads better than it is, so neither a pass
// nor a regression means anything. More requests on the same runner
// cannot help (Stuck StuckSchedule); the target is warned of.
func missedSchedule(rep *Report, cur Side) {
	for _, t := range cur.Targets {
		if t.Sends.Held() {
			continue
		}
		n := 0
		for _, cs := range []*[]Check{&rep.Checks, &rep.Aggregates} {
			for i := range *cs {
				c := &(*cs)[i]
				if c.Target != t.Name || c.Region != t.Region || c.Verdict == Unbaselined {
					continue // a diagnostic check stays one: undecided, it decides nothing
				}
				c.Verdict, c.Stuck, c.More, c.RunnerLag = Inconclusive, StuckSchedule, -1, t.Sends.LateP99MS
				n++
			}
		}
		rep.Found = append(rep.Found, Warning{Kind: WarnScheduleMissed, Target: t.Name, Region: t.Region,
			NameTarget: len(cur.Targets) > 1, Count: n, Sends: *t.Sends, Rate: cur.Run.Rate})
	}
}
