package baseline

import (
	"fmt"
	"math"
	"strconv"

	"github.com/latgate/latgate/pkg/results"
)

// ChangeKind says what a Change is about.
type ChangeKind string

// Change kinds, in the order Diff reports them within a target.
const (
	TargetAdded   ChangeKind = "target_added"
	TargetRemoved ChangeKind = "target_removed"
	ModelChanged  ChangeKind = "model"
	BaseURLChange ChangeKind = "base_url"
	PromptAdded   ChangeKind = "prompt_added"
	PromptRemoved ChangeKind = "prompt_removed"
	PromptEdited  ChangeKind = "prompt_edited" // its hash changed
	MetricChanged ChangeKind = "metric"
)

// Change is one difference between two baselines.
type Change struct {
	Kind   ChangeKind
	Target string // target name
	Region string // target region, if any
	Prompt string // prompt id (prompt and metric changes)
	// Metric and Stat ("p50", "p95") name a MetricChanged; Old and New are its
	// values (milliseconds, or tokens per second for tokens_per_s), NaN when a
	// side has no value. They are zero for other kinds.
	Metric   string
	Stat     string
	Old, New float64
	// From and To are the old and new model, base URL or prompt hash.
	From, To string
}

// Rel returns the relative change (New−Old)/Old of a metric change, NaN when
// it is undefined (a side missing, or Old zero).
func (c Change) Rel() float64 {
	if math.IsNaN(c.Old) || math.IsNaN(c.New) || c.Old == 0 {
		return math.NaN()
	}
	return (c.New - c.Old) / c.Old
}

// String describes the change on one line, for example
// "primary/greeting ttft p95: 412.1 ms → 455.0 ms (+10.4%)".
func (c Change) String() string {
	where := results.Label(c.Target, c.Region)
	if c.Prompt != "" {
		where += "/" + c.Prompt
	}
	switch c.Kind {
	case TargetAdded:
		return where + ": target added"
	case TargetRemoved:
		return where + ": target removed"
	case ModelChanged:
		return fmt.Sprintf("%s: model %s → %s", where, c.From, c.To)
	case BaseURLChange:
		return fmt.Sprintf("%s: base_url %s → %s", where, c.From, c.To)
	case PromptAdded:
		return where + ": prompt added"
	case PromptRemoved:
		return where + ": prompt removed"
	case PromptEdited:
		return fmt.Sprintf("%s: prompt text changed (hash %s → %s)", where, c.From, c.To)
	case MetricChanged:
		unit := " ms"
		if c.Metric == results.TokensPerS {
			unit = " tok/s"
		}
		s := fmt.Sprintf("%s %s %s: %s → %s", where, c.Metric, c.Stat, value(c.Old, unit), value(c.New, unit))
		if rel := c.Rel(); !math.IsNaN(rel) {
			s += fmt.Sprintf(" (%+.1f%%)", 100*rel)
		}
		return s
	}
	return fmt.Sprintf("%s: %s %s → %s", where, c.Kind, c.From, c.To)
}

// value formats a metric value with about four significant digits.
func value(v float64, unit string) string {
	switch {
	case math.IsNaN(v):
		return "none"
	case math.Abs(v) >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64) + unit
	case math.Abs(v) >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64) + unit
	}
	return strconv.FormatFloat(v, 'f', 3, 64) + unit
}

// Diff returns what changed from baseline from to baseline to, in to's order:
// for each target, whether it was added or its model or base URL changed; then
// for each prompt, whether it was added or edited and how its metrics moved
// (p50 and p95 of ttft, itl, tpot and total, p50 of tokens_per_s; unchanged
// values are left out); then the prompts it lost. Targets that are gone come
// last. Targets match by name and region, prompts by id. It is pure.
func Diff(from, to *File) []Change {
	var out []Change
	oldTargets := map[string]results.Target{}
	for _, t := range from.Targets {
		oldTargets[t.Label()] = t
	}
	newTargets := map[string]bool{}
	for _, nt := range to.Targets {
		newTargets[nt.Label()] = true
		base := Change{Target: nt.Name, Region: nt.Region}
		ot, ok := oldTargets[nt.Label()]
		if !ok {
			out = append(out, with(base, TargetAdded))
			continue
		}
		if ot.Model != nt.Model {
			c := with(base, ModelChanged)
			c.From, c.To = ot.Model, nt.Model
			out = append(out, c)
		}
		if ot.BaseURL != nt.BaseURL {
			c := with(base, BaseURLChange)
			c.From, c.To = ot.BaseURL, nt.BaseURL
			out = append(out, c)
		}
		out = append(out, diffPrompts(base, ot.Prompts, nt.Prompts)...)
	}
	for _, ot := range from.Targets {
		if !newTargets[ot.Label()] {
			out = append(out, with(Change{Target: ot.Name, Region: ot.Region}, TargetRemoved))
		}
	}
	return out
}

func diffPrompts(base Change, from, to []results.Prompt) []Change {
	var out []Change
	oldByID := map[string]results.Prompt{}
	for _, p := range from {
		oldByID[p.ID] = p
	}
	newIDs := map[string]bool{}
	for _, np := range to {
		newIDs[np.ID] = true
		b := base
		b.Prompt = np.ID
		op, ok := oldByID[np.ID]
		if !ok {
			out = append(out, with(b, PromptAdded))
			continue
		}
		if op.Hash != np.Hash {
			c := with(b, PromptEdited)
			c.From, c.To = op.Hash, np.Hash
			out = append(out, c)
		}
		for _, ms := range []struct{ metric, stat string }{
			{results.TTFT, "p50"}, {results.TTFT, "p95"},
			{results.ITL, "p50"}, {results.ITL, "p95"},
			{results.TPOT, "p50"}, {results.TPOT, "p95"},
			{results.Total, "p50"}, {results.Total, "p95"},
			{results.TokensPerS, "p50"},
		} {
			o, n := stat(op.Metrics, ms.metric, ms.stat), stat(np.Metrics, ms.metric, ms.stat)
			if o == n || math.IsNaN(o) && math.IsNaN(n) {
				continue
			}
			c := with(b, MetricChanged)
			c.Metric, c.Stat, c.Old, c.New = ms.metric, ms.stat, o, n
			out = append(out, c)
		}
	}
	for _, op := range from {
		if !newIDs[op.ID] {
			b := base
			b.Prompt = op.ID
			out = append(out, with(b, PromptRemoved))
		}
	}
	return out
}

func with(c Change, k ChangeKind) Change {
	c.Kind = k
	return c
}

// stat returns a p50 or p95 of a metric, NaN when there is none.
func stat(m results.Metrics, metric, stat string) float64 {
	if metric == results.TokensPerS {
		if m.TokensPerS == nil {
			return math.NaN()
		}
		return pick(stat, m.TokensPerS.P50, m.TokensPerS.P95)
	}
	var s *results.Summary
	switch metric {
	case results.TTFT:
		s = m.TTFT
	case results.ITL:
		s = m.ITL
	case results.TPOT:
		s = m.TPOT
	case results.Total:
		s = m.Total
	}
	if s == nil {
		return math.NaN()
	}
	return pick(stat, s.P50, s.P95)
}

func pick(stat string, p50, p95 float64) float64 {
	if stat == "p95" {
		return p95
	}
	return p50
}
