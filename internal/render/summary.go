package render

import (
	"fmt"
	"io"

	"github.com/latgate/latgate/internal/sanitize"
	"github.com/latgate/latgate/internal/view"
)

// Summary is the GitHub job summary: the Markdown report with the gate's
// charts, appended to $GITHUB_STEP_SUMMARY inside Actions and written to
// --summary anywhere. Every outcome has one, a skipped run's too.
func Summary() Format {
	return Format{
		Name: "summary",
		Flag: "summary",
		Usage: func(view.Kind) string {
			return "write the GitHub job summary's Markdown (tables and Mermaid charts) to `FILE`, in or outside Actions (GitLab, a local preview)"
		},
		GitHub: StepSummary,
		Shows:  func(k view.Kind) bool { return k != 0 },
		Write:  writeSummary,
	}
}

func writeSummary(w io.Writer, d view.Document) error {
	var err error
	switch d.Kind {
	case view.KindSkipped:
		_, err = fmt.Fprintf(w, "## latgate: skipped\n\n%s\n", sanitize.Markdown(d.Message))
	case view.KindUnchanged:
		_, err = fmt.Fprintf(w, "## latgate ab: not run\n\n%s\n", sanitize.Markdown(d.Message))
	default:
		return writeMarkdown(w, d, true)
	}
	return err
}
