package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/latgate/latgate/internal/sanitize"
	"github.com/latgate/latgate/pkg/compare"
)

// This file renders what changed since the baseline (compare.Pair): the
// labels beside each check, the list of changes, and the prompts measured
// without a baseline, for every output that shows verdicts.

// labelled reports whether any check of rep carries a label or rep has
// checks without a baseline: then the tables get a "changed" column.
func labelled(rep compare.Report) bool {
	if len(rep.New) > 0 {
		return true
	}
	for _, c := range ordered(rep) {
		if len(c.Changed) > 0 {
			return true
		}
	}
	return false
}

// labels is a check's labels in one cell: "model a → b; edited".
func labels(c compare.Check) string { return strings.Join(labelsOf(c), "; ") }

// changeSummary names the changes briefly for the outcome line:
// "model a → b (target t); edited: p; new: q; removed: r".
func changeSummary(rep compare.Report) string {
	var settings []string
	group := map[compare.ChangeKind][]string{}
	many := len(targets(append(ordered(rep), rep.New...))) > 1
	for _, c := range rep.Changes {
		if c.Kind == compare.ChangeSetting {
			s := ChangeLabel(c)
			if many && c.Target != "" {
				s += " (" + ChangeWhere(c) + ")"
			}
			settings = append(settings, s)
			continue
		}
		name := c.Prompt
		if c.Prompt == "" {
			name = ChangeWhere(c)
		} else if many {
			name = c.Target + "/" + c.Prompt
		}
		group[c.Kind] = append(group[c.Kind], name)
	}
	parts := settings
	for _, k := range []compare.ChangeKind{compare.ChangeEdited, compare.ChangeNew, compare.ChangeRemoved} {
		if names := group[k]; len(names) > 0 {
			parts = append(parts, string(k)+": "+strings.Join(names, ", "))
		}
	}
	return strings.Join(parts, "; ")
}

// withChanges appends the change summary to an outcome line's detail.
func withChanges(detail string, rep compare.Report) string {
	if s := changeSummary(rep); s != "" {
		return detail + " — changed since the baseline: " + s
	}
	return detail
}

// newWord is the verdict word of a check without a baseline.
const newWord = "new (not gated)"

// Changes writes what changed since the baseline, one line each, as `check`,
// `compare` and `bless` print it:
//
//	changed since the baseline (bless to accept):
//	  target primary: model a → b: compared, labelled
func Changes(w io.Writer, changes []compare.Change, heading string) error {
	if len(changes) == 0 {
		return nil
	}
	ew := &errWriter{w: w}
	fmt.Fprintln(ew, heading)
	for _, c := range changes {
		fmt.Fprintln(ew, "  "+wrap(ChangeMessage(c), lineWidth-2, "    "))
	}
	return ew.err
}

// mdChanges writes the changes as a Markdown list under a heading.
func mdChanges(w io.Writer, rep compare.Report) {
	if len(rep.Changes) == 0 {
		return
	}
	fmt.Fprint(w, "\n### Changed since the baseline\n\n")
	for _, c := range rep.Changes {
		fmt.Fprintf(w, "- %s\n", sanitize.Markdown(ChangeMessage(c)))
	}
	fmt.Fprint(w, "\nA changed model, endpoint, parameter or prompt is gated against the old baseline and labelled; "+
		"if the change is intended, bless the new baseline in this pull request (`latgate bless`) so reviewers see it in the diff.\n")
}

// BlessChanges writes, for `bless`, what the new baseline changes in what is
// measured (model, endpoint, parameters; edited, new and removed prompts),
// so the reviewer of the baseline's diff sees the intended change named:
//
//	this baseline changes what is measured (intended, for the reviewer):
//	  target primary: model a → b
//	  prompt summarize of target primary: edited
func BlessChanges(w io.Writer, changes []compare.Change) error {
	if len(changes) == 0 {
		return nil
	}
	ew := &errWriter{w: w}
	fmt.Fprintln(ew, "this baseline changes what is measured (intended, for the reviewer):")
	for _, c := range changes {
		what := ChangeLabel(c)
		switch c.Kind {
		case compare.ChangeNew:
			what = "new"
		case compare.ChangeEdited:
			what = fmt.Sprintf("edited (hash %s → %s)", short(c.Baseline), short(c.Current))
		}
		fmt.Fprintln(ew, "  "+wrap(ChangeWhere(c)+": "+what, lineWidth-2, "    "))
	}
	return ew.err
}

// short abbreviates a hash to 8 characters.
func short(h string) string {
	if len(h) > 8 {
		return h[:8]
	}
	return h
}
