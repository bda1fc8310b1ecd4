package compare

import (
	"fmt"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

// The rules for results that are about to become a baseline (latgate
// bless), beside CannotGate, which refuses a baseline no check can use.

// Unresolved lists the checks of gate that s holds too few samples to
// decide, whatever the other side of a comparison will measure: the
// sample-size rule every check is decided by (Check.Shortfall: a statistic's
// requests, and for itl its gaps and the requests they come from), applied
// to one side. bless says so; CannotGate, which applies the same rule per
// gated check, then refuses such a baseline.
// Limits (max) need no baseline and are not listed. Each entry names
// target/prompt, the check, what it needs and what it has.
func Unresolved(s Side, gate config.Gate) []string {
	conf := gate.Confidence
	if conf <= 0 || conf >= 1 {
		conf = DefaultConfidence
	}
	var out []string
	for _, t := range s.Targets {
		for _, p := range t.Prompts {
			data := map[string]*dataset{}
			for _, c := range gate.Checks {
				if c.MaxOnly {
					continue
				}
				if _, err := stats.ParseStat(c.Stat); err != nil {
					continue // config.Load refuses such a check
				}
				d, ok := data[c.Metric]
				if !ok {
					d = newDataset(p.Samples, c.Metric)
					data[c.Metric] = d
				}
				// The baseline on both sides: the check is short on either
				// exactly when the baseline is.
				k := Check{Metric: c.Metric, Stat: c.Stat, NBase: d.requests(), NCur: d.requests()}
				if c.Metric == results.ITL {
					k.GapsBase, k.GapsCur = len(d.vals), len(d.vals)
				}
				k.Need, k.NeedRequests = need(c.Stat, c.Metric, conf)
				if k.NBase == 0 || k.resolved() {
					continue
				}
				have, need, unit := k.unresolved()
				out = append(out, fmt.Sprintf("%s/%s: %s %s needs %d %s, has %d: it will be inconclusive",
					results.Label(t.Name, t.Region), p.ID, c.Metric, c.Stat, need, unit, have))
			}
		}
	}
	return out
}

// OverBudget lists the targets of s whose error rate is over the
// max_error_rate their config target gives them (Target.OverBudget). A
// result target is its config target by identity: the same name and region,
// or the config target of that name without a region, which stands for
// every region of a file merged from several runners.
func OverBudget(s Side, targets []config.Target) []string {
	var out []string
	for _, t := range s.Targets {
		ct, ok := configTarget(targets, t)
		if ok && t.OverBudget(ct.MaxErrorRate) {
			out = append(out, fmt.Sprintf("target %q: error rate %.1f%% is over max_error_rate %.1f%%", t.Label(), 100*t.ErrorRate, 100*ct.MaxErrorRate))
		}
	}
	return out
}

// configTarget is the config target a results target was measured as.
func configTarget(targets []config.Target, t results.Target) (config.Target, bool) {
	for _, c := range targets {
		if c.Name == t.Name && c.Region == t.Region {
			return c, true
		}
	}
	for _, c := range targets {
		if c.Name == t.Name && c.Region == "" {
			return c, true
		}
	}
	return config.Target{}, false
}
