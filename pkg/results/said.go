package results

import (
	"fmt"
	"slices"
	"strings"

	"github.com/latgate/latgate/internal/sanitize"
)

// MaxSaidPerClass is how many distinct messages of one failure class
// EndpointSaid keeps: the first ones, in the order the requests were made.
const MaxSaidPerClass = 2

// SaidSep introduces the endpoint's words in a warning or error message:
// "…; the endpoint said: server: \"HTTP 500: …\"". Writers that must keep
// outside text out of markup (Markdown outside a code block, workflow
// annotations) cut the message there.
const SaidSep = "; the endpoint said: "

// maxSaid clips one quoted message in a report.
const maxSaid = 240

// FirstFailures returns the first distinct failures of each class of the
// target's prompts (at most perClass each), in the order the requests were
// made: the endpoint's own words for the reports, which otherwise carry only
// counts by class.
func (t Target) FirstFailures(perClass int) []Failure {
	var all []Failure
	for _, p := range t.Prompts {
		all = append(all, p.Failures...)
	}
	slices.SortStableFunc(all, func(a, b Failure) int { return a.Seq - b.Seq })
	var out []Failure
	n := map[string]int{}
	for _, f := range all {
		if n[f.Class] >= perClass || slices.ContainsFunc(out, func(o Failure) bool { return o.Class == f.Class && o.Message == f.Message }) {
			continue
		}
		n[f.Class]++
		out = append(out, f)
	}
	return out
}

// EndpointSaid formats failures as one phrase for a report line:
//
//	server: "HTTP 500: overloaded"; http: "HTTP 404: model \"x\" not found"
//
// Each message passes through the sanitiser for text from outside (one
// printable line, no workflow command, clipped) here, the one call site:
// results files are read back from disk, so their messages are untrusted
// even though measure sanitised them when it wrote them.
func EndpointSaid(fs []Failure) string {
	parts := make([]string, 0, len(fs))
	for _, f := range fs {
		parts = append(parts, fmt.Sprintf("%s: %q", f.Class, sanitize.Line(f.Message, maxSaid)))
	}
	return strings.Join(parts, "; ")
}
