package report

import (
	"fmt"
	"strings"

	"github.com/latgate/latgate/internal/advise"
	"github.com/latgate/latgate/internal/numfmt"
	"github.com/latgate/latgate/pkg/compare"
)

// This file words what the gate found about the runs rather than about a
// check: a change between the baseline and the run, the improvement that
// suggests blessing again, and the limit of one request.

// ChangeWhere names what changed: "target primary", "prompt greeting of
// target primary", or "the run" for a run setting.
func ChangeWhere(c compare.Change) string {
	tgt := targetLabel(c.Target, c.Region)
	switch {
	case c.Target == "":
		return "the run"
	case c.Prompt != "":
		return fmt.Sprintf("prompt %s of %s", c.Prompt, tgt)
	}
	return tgt
}

// ChangeMessage says what changed and what the gate did with it, in one
// line.
func ChangeMessage(c compare.Change) string {
	switch c.Kind {
	case compare.ChangeEdited:
		return fmt.Sprintf("%s: edited since the baseline (hash %s → %s): compared, labelled \"edited\"",
			ChangeWhere(c), shortHash(c.Baseline), shortHash(c.Current))
	case compare.ChangeNew:
		return ChangeWhere(c) + ": new, no baseline: measured and reported, not gated"
	case compare.ChangeRemoved:
		return ChangeWhere(c) + ": removed: in the baseline, not in this run"
	}
	return ChangeWhere(c) + ": " + ChangeLabel(c) + ": compared, labelled"
}

// shortHash is a prompt hash as a reader compares it: its first 8
// characters.
func shortHash(h string) string {
	if len(h) > 8 {
		return h[:8] + "…"
	}
	if h == "" {
		return "(none)"
	}
	return h
}

// ImprovementText says a large and consistent improvement (advise.Rebless)
// with the range of the changes:
//
//	6 of 8 checks improved (-85% to -70%) and none regressed: ...
func ImprovementText(im advise.Improvement) string {
	span := numfmt.Pct(im.Changes[0])
	if last := im.Changes[len(im.Changes)-1]; numfmt.Pct(last) != span {
		span += " to " + numfmt.Pct(last)
	}
	noun := "checks"
	if im.Checks == 1 {
		noun = "check"
	}
	return fmt.Sprintf("%d of %d %s improved (%s) and none regressed: the baseline no longer describes this endpoint, "+
		"so its width is slack and a regression as large would pass; if the improvement is meant to stay, bless again",
		im.Improved, im.Checks, noun, span)
}

// SlowLimitText says what a request's limit is (advise.SlowLimits): "20×
// the baseline's total P99 (312 ms)".
func SlowLimitText(l advise.SlowLimit) string {
	return fmt.Sprintf("%d× the baseline's total P99 (%s)", advise.SlowFactor, numfmt.Millis(l.P99))
}

// ChangeLabel is a change as a check's label: "model gpt-4o → gpt-4.1",
// "endpoint api.a.com/v1 → api.b.com/v1", "edited" (a pooled check's:
// "edited: a, b", the prompts it pools), "new: no baseline", "removed".
func ChangeLabel(c compare.Change) string {
	switch c.Kind {
	case compare.ChangeEdited:
		if len(c.Prompts) > 0 {
			return "edited: " + strings.Join(c.Prompts, ", ")
		}
		return "edited"
	case compare.ChangeNew:
		return "new: no baseline"
	case compare.ChangeRemoved:
		return "removed"
	}
	name := c.Field
	switch c.Field {
	case compare.FieldBaseURL:
		name = "endpoint"
	case compare.FieldExtra:
		return "extra_body changed"
	}
	return name + " " + c.Baseline + " → " + c.Current
}

// labelsOf is the words of what changed for c (Check.Changed), in order.
func labelsOf(c compare.Check) []string {
	var out []string // nil when nothing changed: no "labels" in a results file
	for _, ch := range c.Changed {
		out = append(out, ChangeLabel(ch))
	}
	return out
}
