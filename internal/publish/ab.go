package publish

import (
	"io"

	"github.com/latgate/latgate/internal/report"
	"github.com/latgate/latgate/pkg/compare"
)

// AB is the report of `latgate ab`: the A/B verdict table on stdout (both
// configs named, the faster side per prompt and overall), JUnit, Markdown
// and the job summary, an annotation per regression and warning, and
// verdict=, as a gate's report.
func AB(rep compare.Report, ab report.AB, opts report.Options, locate func(target, prompt string) (string, int)) Report {
	md := func(w io.Writer) error { return report.ABMarkdown(w, rep, ab, opts) }
	return Report{
		Text:        func(w io.Writer) error { return report.ABVerdicts(w, rep, ab, opts) },
		JUnit:       func(w io.Writer) error { return report.JUnit(w, rep, opts) },
		Markdown:    md,
		Summary:     md,
		Annotations: func(w io.Writer) error { return report.Annotations(w, rep, opts, locate) },
		Outputs:     []Output{{"verdict", string(rep.Verdict)}},
	}
}
