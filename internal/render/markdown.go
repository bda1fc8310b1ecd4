package render

import (
	"io"

	"github.com/latgate/latgate/internal/report"
	"github.com/latgate/latgate/internal/view"
)

// Markdown is the report for a pull request comment (--markdown). A
// skipped or unchanged run writes none, so no comment is posted.
func Markdown() Format {
	return Format{
		Name: "markdown",
		Flag: "markdown",
		Usage: func(k view.Kind) string {
			switch k {
			case view.KindGate, view.KindAB:
				return "write the verdicts as Markdown to `FILE` (for a PR comment)"
			case view.KindTrend:
				return "write the report with the charts of the series that changed as Markdown to `FILE`"
			}
			return ""
		},
		Shows: kinds(view.KindGate, view.KindAB, view.KindTrend, view.KindUngated, view.KindSlowed, view.KindFailure),
		Write: func(w io.Writer, d view.Document) error { return writeMarkdown(w, d, false) },
	}
}

// writeMarkdown writes d as Markdown; summary: as the job summary (the
// gate's charts, and the short outcomes that write no report).
func writeMarkdown(w io.Writer, d view.Document, summary bool) error {
	switch d.Kind {
	case view.KindGate:
		if summary {
			return report.GitHubSummary(w, d.Gate.Report, d.Gate.Options)
		}
		return report.Markdown(w, d.Gate.Report, d.Gate.Options)
	case view.KindAB:
		return report.ABMarkdown(w, d.Gate.Report, d.Gate.AB, d.Gate.Options)
	case view.KindTrend:
		return report.TrendMarkdown(w, d.Trend.Report, d.Trend.Warnings, d.Trend.Options)
	case view.KindUngated:
		return report.MarkdownUngated(w, d.Message, d.Measured)
	case view.KindSlowed:
		return report.MarkdownSlowed(w, d.Message, d.Next)
	case view.KindFailure:
		return report.MarkdownFailure(w, d.Message)
	}
	return nothing("markdown", d)
}
