package publish

import (
	"fmt"
	"io"
	"strings"

	"github.com/latgate/latgate/internal/report"
	"github.com/latgate/latgate/internal/trend"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/results"
)

// The verdicts a command writes to $GITHUB_OUTPUT besides a gate's or a
// trend's own.
const (
	// NoBaselineVerdict: check ran without a baseline, measured and
	// reported, nothing gated.
	NoBaselineVerdict = "no-baseline"
	// ErrorVerdict: the command could not decide (exit 2 or 3).
	ErrorVerdict = "error"
)

// Gate is the report of a gate's verdicts (check, compare): the verdict
// table on stdout, JUnit, Markdown, the job summary with its chart, an
// annotation per regression and warning, and verdict=.
func Gate(rep compare.Report, opts report.Options, locate func(target, prompt string) (string, int)) Report {
	return Report{
		Text:        func(w io.Writer) error { return report.Verdicts(w, rep, opts) },
		JUnit:       func(w io.Writer) error { return report.JUnit(w, rep, opts) },
		Markdown:    func(w io.Writer) error { return report.Markdown(w, rep, opts) },
		Summary:     func(w io.Writer) error { return report.GitHubSummary(w, rep, opts) },
		Annotations: func(w io.Writer) error { return report.Annotations(w, rep, opts, locate) },
		Outputs:     []Output{{"verdict", string(rep.Verdict)}},
	}
}

// NoBaseline is the report of a check without a baseline: notice says so
// and how to bless the results, everywhere a verdict would have gone, with
// a ::warning and verdict=no-baseline.
func NoBaseline(notice string, measured *results.File) Report {
	return Report{
		Text: func(w io.Writer) error {
			_, err := fmt.Fprintf(w, "\nwarning: %s\n", notice)
			return err
		},
		JUnit:       func(w io.Writer) error { return report.JUnitNotice(w, notice) },
		Markdown:    func(w io.Writer) error { return report.MarkdownUngated(w, notice, measured) },
		Summary:     func(w io.Writer) error { return report.MarkdownUngated(w, notice, measured) },
		Annotations: func(w io.Writer) error { return report.Command(w, "warning", "latgate: no baseline", notice) },
		Outputs:     []Output{{"verdict", NoBaselineVerdict}},
	}
}

// Slowed is the report of a check stopped because its requests were far
// slower than the baseline allows (compare.Slowed): a regression, with no
// verdict table since nothing was measured to the end. FAIL and the next
// step on stdout, a failing JUnit testcase, Markdown, an ::error and
// verdict=regressed.
func Slowed(msg, next string) Report {
	return Report{
		Text: func(w io.Writer) error {
			_, err := fmt.Fprintf(w, "\nFAIL: %s\n%s\n", msg, next)
			return err
		},
		JUnit:    func(w io.Writer) error { return report.JUnitSlowed(w, msg) },
		Markdown: func(w io.Writer) error { return report.MarkdownSlowed(w, msg, next) },
		Summary:  func(w io.Writer) error { return report.MarkdownSlowed(w, msg, next) },
		Annotations: func(w io.Writer) error {
			return report.Command(w, "error", "latgate: latency regression", annotationText(msg))
		},
		Outputs: []Output{{"verdict", string(compare.Regressed)}},
	}
}

// Trend is the report of the nightly analysis: the text report, JUnit,
// Markdown with its charts (also the job summary), the HTML page,
// annotations, and verdict= with the outputs that name an issue
// (issue-key=, issue-title=).
func Trend(rep trend.Report, warnings []string, opts report.TrendOptions, outputs ...Output) Report {
	md := func(w io.Writer) error { return report.TrendMarkdown(w, rep, warnings, opts) }
	return Report{
		Text:        func(w io.Writer) error { return report.TrendText(w, rep, warnings, opts) },
		JUnit:       func(w io.Writer) error { return report.TrendJUnit(w, rep, warnings, opts) },
		Markdown:    md,
		HTML:        func(w io.Writer) error { return report.TrendHTML(w, rep, warnings, opts) },
		Summary:     md,
		Annotations: func(w io.Writer) error { return report.TrendAnnotations(w, rep, warnings) },
		Outputs:     append([]Output{{"verdict", string(rep.Verdict)}}, outputs...),
	}
}

// PublishFailure reports a command that could not decide (exit 2, or 3
// when measurement is set) wherever its reports were asked for, so a CI
// job shows why instead of a missing file: an errored JUnit testcase, a
// Markdown note, and inside GitHub Actions the job summary, an ::error and
// verdict=error. It is best effort (the exit code tells the rest), and
// writes only where no input can be hit: when the path rule passed, or
// passes now.
func (k *Sink) PublishFailure(cause error, measurement bool) {
	if !k.checked && k.Check() != nil {
		return
	}
	msg := k.Redact(cause.Error())
	title, text := "latgate: could not gate", annotationText(msg)
	if measurement {
		// A measurement failure quotes the endpoint (an error body, a
		// frame), which no annotation carries: point to the reports.
		title = "latgate: measurement failed"
		text = "the measurement failed, so nothing was gated (exit 3): why, in the endpoint's words too, is in the log, the job summary and the JUnit and Markdown reports"
	}
	_ = k.Publish(Report{
		JUnit:       func(w io.Writer) error { return report.JUnitFailure(w, msg) },
		Markdown:    func(w io.Writer) error { return report.MarkdownFailure(w, msg) },
		Summary:     func(w io.Writer) error { return report.MarkdownFailure(w, msg) },
		Annotations: func(w io.Writer) error { return report.Command(w, "error", title, text) },
		Outputs:     []Output{{"verdict", ErrorVerdict}},
	})
}

// AnnotateError emits an ::error annotation inside GitHub Actions: for an
// outcome that was published but could not be written everywhere.
func (s *Streams) AnnotateError(title string, cause error) {
	if s.github != nil {
		_ = report.Command(s.commands, "error", title, annotationText(s.Redact(cause.Error())))
	}
}

// annotationText is msg as an annotation carries it: latgate's words only;
// the endpoint's are in the report and the log.
func annotationText(msg string) string {
	if before, _, ok := strings.Cut(msg, results.SaidSep); ok {
		return before + " (the endpoint's messages are in the log)"
	}
	return msg
}
