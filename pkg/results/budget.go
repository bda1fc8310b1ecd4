package results

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// BudgetError reports a run that is not good enough to compare: targets
// whose error rate is over their max_error_rate, and prompts none of whose
// requests succeeded (they would be ungated, however small the error rate).
type BudgetError struct {
	Over []Target
	// Empty names target/prompt pairs with requests but no sample.
	Empty []string
}

func (e *BudgetError) Error() string {
	var parts []string
	for _, t := range e.Over {
		parts = append(parts, fmt.Sprintf("target %q: %d of %d requests failed (%.1f%% > %.1f%% max_error_rate): %s",
			t.Name, t.Errors, t.Requests, 100*t.ErrorRate, 100*t.MaxErrorRate, Classes(t.ByClass)))
	}
	msg := ""
	if len(parts) > 0 {
		msg = "error budget exceeded: " + strings.Join(parts, "; ")
	}
	if len(e.Empty) > 0 {
		if msg != "" {
			msg += "; "
		}
		msg += "every request failed for " + strings.Join(e.Empty, ", ") + ": nothing to gate them on"
	}
	return msg
}

// Classes formats failure counts by class as "server 3, timeout 1", sorted.
func Classes(byClass map[string]int) string {
	out := make([]string, 0, len(byClass))
	for k, v := range byClass {
		out = append(out, fmt.Sprintf("%s %d", k, v))
	}
	slices.SortFunc(out, cmp.Compare)
	return strings.Join(out, ", ")
}

// OverBudget reports whether a target's error rate is over the budget max
// (max_error_rate): the one budget rule, for a run, a results file and a
// bless alike.
func (t Target) OverBudget(max float64) bool { return t.Requests > 0 && t.ErrorRate > max }

// CheckBudget returns a *BudgetError when a target is OverBudget its own
// MaxErrorRate or a prompt has requests but no successful one; nil
// otherwise. It reads only the file, so a saved results file is held to the
// same rule as a fresh run.
func CheckBudget(f *File) error {
	e := &BudgetError{}
	for _, t := range f.Targets {
		if t.OverBudget(t.MaxErrorRate) {
			e.Over = append(e.Over, t)
		}
		for _, p := range t.Prompts {
			if p.Requests > 0 && len(p.Samples) == 0 {
				e.Empty = append(e.Empty, fmt.Sprintf("%s/%s (%s)", t.Label(), p.ID, Classes(p.ByClass)))
			}
		}
	}
	if len(e.Over) == 0 && len(e.Empty) == 0 {
		return nil
	}
	return e
}
