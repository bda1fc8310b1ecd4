package compare

import (
	"fmt"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// The rules for results that are about to become a baseline (latgate
// bless), beside CannotGate, which refuses a baseline too thin for any of
// the gate's checks (the sample-size rule every check is decided by).

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
