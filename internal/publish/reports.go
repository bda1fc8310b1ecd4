package publish

import (
	"github.com/latgate/latgate/internal/report"
	"github.com/latgate/latgate/internal/view"
)

// PublishFailure reports a command that could not decide (exit 2, or 3
// when measurement is set) wherever its reports were asked for, so a CI
// job shows why instead of a missing file: an errored JUnit testcase, a
// Markdown note, and inside GitHub Actions the job summary, an ::error and
// verdict=error (view.Failure). It is best effort (the exit code tells the
// rest), and writes only where no input can be hit: when the path rule
// passed, or passes now.
func (k *Sink) PublishFailure(cause error, measurement bool) {
	if !k.checked && k.Check() != nil {
		return
	}
	_ = k.Publish(view.Failure(k.Redact(cause.Error()), measurement))
}

// AnnotateError emits an ::error annotation inside GitHub Actions: for an
// outcome that was published but could not be written everywhere.
func (s *Streams) AnnotateError(title string, cause error) {
	if s.github != nil {
		_ = report.Command(s.commands, "error", title, view.AnnotationText(s.Redact(cause.Error())))
	}
}
