package compare

import (
	"slices"
	"strconv"
	"strings"

	"github.com/latgate/latgate/pkg/results"
)

// A config that differs from what the baseline measured is, in a pull
// request, usually the very change a reviewer should see gated: "this
// system-prompt edit makes TTFT 35% slower". Pair decides what of two runs
// can still be compared and labels every difference, so Compare gates the
// change instead of refusing it:
//
//   - a changed model, endpoint, request parameter or concurrency: compared,
//     every check of that target (or run) labelled "model a → b";
//   - an edited prompt (same id, other text): compared, labelled "edited";
//   - a new prompt or target: measured and reported, "new: no baseline";
//   - a removed prompt or target: reported.
//
// Only two runs with no target × prompt in common cannot be compared at all.

// ChangeKind says what a Change is and how the gate treats it.
type ChangeKind string

// Change kinds.
const (
	// ChangeSetting is a changed model, endpoint, request parameter or run
	// setting: compared, labelled.
	ChangeSetting ChangeKind = "setting"
	// ChangeEdited is a prompt whose text changed: compared, labelled.
	ChangeEdited ChangeKind = "edited"
	// ChangeNew is a prompt or target with no baseline: measured, not gated.
	ChangeNew ChangeKind = "new"
	// ChangeRemoved is a prompt or target in the baseline only.
	ChangeRemoved ChangeKind = "removed"
)

// Change is one difference between a baseline and a run. Target and Region
// are empty for a run setting (concurrency), Prompt for a target-wide change.
// For ChangeSetting, Field is the Mismatch field (model, base_url, …) and
// Baseline and Current its two values.
type Change struct {
	Kind     ChangeKind `json:"kind"`
	Target   string     `json:"target,omitempty"`
	Region   string     `json:"region,omitempty"`
	Prompt   string     `json:"prompt,omitempty"`
	Field    string     `json:"field,omitempty"`
	Baseline string     `json:"baseline,omitempty"`
	Current  string     `json:"current,omitempty"`
	// Prompts are, on a pooled check's edit (Check.Changed), the edited
	// prompts it pools; never in Report.Changes.
	Prompts []string `json:"-"`
}

// Plan is what Pair found: every difference between the two runs, and how
// many target × prompt pairs both have.
type Plan struct {
	Changes []Change
	// Pairs counts the target × prompt pairs present on both sides: the
	// ones Compare gates.
	Pairs int
}

// Comparable reports whether anything at all can be compared.
func (p Plan) Comparable() bool { return p.Pairs > 0 }

// Pair matches cur with base (targets by name and region, prompts by id)
// and returns every difference as a labelled Change, in Compatible's order.
// It never refuses: whether to gate a changed run, refuse it
// (--strict-baseline) or give up (nothing comparable) is the caller's.
func Pair(base, cur Side) Plan {
	var p Plan
	curT := make(map[string]results.Target, len(cur.Targets))
	for _, t := range cur.Targets {
		curT[targetKey(t)] = t
	}
	for _, bt := range base.Targets {
		ct, ok := curT[targetKey(bt)]
		if !ok {
			continue
		}
		for _, bp := range bt.Prompts {
			if slices.ContainsFunc(ct.Prompts, func(c results.Prompt) bool { return c.ID == bp.ID }) {
				p.Pairs++
			}
		}
	}
	for _, m := range Compatible(base, cur) {
		c := Change{Target: m.Target, Region: m.Region, Prompt: m.Prompt, Field: m.Field, Baseline: m.Baseline, Current: m.Current}
		switch m.Field {
		case FieldTarget, FieldPrompt:
			c.Field, c.Baseline, c.Current = "", "", ""
			c.Kind = ChangeNew
			if m.Current == "" {
				c.Kind = ChangeRemoved
			}
		case FieldPromptHash:
			c.Kind, c.Field = ChangeEdited, ""
		case FieldBaseURL:
			c.Kind = ChangeSetting
			c.Baseline, c.Current = displayEndpoint(m.Baseline), displayEndpoint(m.Current)
		default:
			c.Kind = ChangeSetting
		}
		p.Changes = append(p.Changes, c)
	}
	return p
}

// changed returns the changes that apply to a check of target and prompt
// (prompt empty for an aggregate over prompts): run settings, the target's
// settings, and the prompt's edit; an aggregate has one edit naming the
// edited prompts it pools.
func (p Plan) changed(target, region, prompt string, prompts []string) []Change {
	var out []Change
	var edited []string
	for _, c := range p.Changes {
		switch {
		case c.Kind == ChangeSetting && (c.Target == "" || c.Target == target && c.Region == region):
			out = append(out, c)
		case c.Kind == ChangeEdited && c.Target == target && c.Region == region:
			if prompt != "" && c.Prompt == prompt {
				out = append(out, c)
			}
			if prompt == "" && slices.Contains(prompts, c.Prompt) {
				edited = append(edited, c.Prompt)
			}
		}
	}
	if len(edited) > 0 {
		out = append(out, Change{Kind: ChangeEdited, Target: target, Region: region, Prompts: edited})
	}
	return out
}

// label sets what changed for each of the report's checks and aggregates
// (Check.Changed), and adds the changes and the measured values of what
// has no baseline.
func (p Plan) label(rep *Report, cur Side, checks []parsedCheck) {
	rep.Changes = p.Changes
	for _, cs := range [][]Check{rep.Checks, rep.Aggregates} {
		for i := range cs {
			c := &cs[i]
			c.Changed = p.changed(c.Target, c.Region, c.Prompt, c.Prompts)
		}
	}
	isNew := func(t results.Target, prompt string) bool {
		for _, c := range p.Changes {
			if c.Kind == ChangeNew && c.Target == t.Name && c.Region == t.Region && (c.Prompt == "" || c.Prompt == prompt) {
				return true
			}
		}
		return false
	}
	for _, t := range cur.Targets {
		for _, pr := range t.Prompts {
			if !isNew(t, pr.ID) {
				continue
			}
			data := map[string]*dataset{}
			for _, pc := range checks {
				if pc.c.MaxOnly || !results.Applies(pc.c.Metric, pr) {
					continue // its limit check shows the value, and gates it; a chain metric of no chain
				}
				d, ok := data[pc.c.Metric]
				if !ok {
					d = newDataset(pr.Samples, pc.c.Metric)
					data[pc.c.Metric] = d
				}
				c := Check{
					Target: t.Name, Region: t.Region, Prompt: pr.ID, Metric: pc.c.Metric, Stat: pc.c.Stat,
					NCur: d.requests(), Verdict: Unbaselined, Changed: []Change{{Kind: ChangeNew, Target: t.Name, Region: t.Region, Prompt: pr.ID}},
				}
				if pc.c.Metric == results.ITL {
					c.GapsCur = len(d.vals)
				}
				if c.NCur > 0 {
					c.Current = d.stat(pc.spec)
				}
				rep.New = append(rep.New, c)
			}
		}
	}
}

// displayEndpoint shortens a base URL for a label: without the scheme, and
// the simulator's spec as written.
func displayEndpoint(raw string) string {
	if raw == "" {
		return strconv.Quote(raw)
	}
	e := endpoint(raw)
	if e == "sim" {
		return raw
	}
	_, rest, ok := strings.Cut(e, "://")
	if !ok {
		return e
	}
	return rest
}
