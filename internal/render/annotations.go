package render

import (
	"io"

	"github.com/latgate/latgate/internal/report"
	"github.com/latgate/latgate/internal/view"
)

// Annotations are the outcome as GitHub annotations (workflow commands,
// inside Actions only): one per regression and warning of a gate or a
// trend, one for a short outcome.
func Annotations() Format {
	return Format{
		Name:   "annotations",
		GitHub: Commands,
		Shows:  kinds(view.KindGate, view.KindAB, view.KindTrend, view.KindUngated, view.KindSlowed, view.KindFailure, view.KindSkipped),
		Write:  writeAnnotations,
	}
}

func writeAnnotations(w io.Writer, d view.Document) error {
	switch d.Kind {
	case view.KindGate, view.KindAB:
		return report.Annotations(w, d.Gate.Report, d.Gate.Options, d.Gate.Locate)
	case view.KindTrend:
		return report.TrendAnnotations(w, d.Trend.Report, d.Trend.Warnings)
	case view.KindUngated:
		return report.Command(w, "warning", "latgate: no baseline", d.Message)
	case view.KindSlowed:
		return report.Command(w, "error", "latgate: latency regression", view.AnnotationText(d.Message))
	case view.KindFailure:
		if d.Measurement {
			// A measurement failure quotes the endpoint (an error body, a
			// frame), which no annotation carries: point to the reports.
			return report.Command(w, "error", "latgate: measurement failed",
				"the measurement failed, so nothing was gated (exit 3): why, in the endpoint's words too, is in the log, the job summary and the JUnit and Markdown reports")
		}
		return report.Command(w, "error", "latgate: could not gate", view.AnnotationText(d.Message))
	case view.KindSkipped:
		return report.Command(w, "notice", "latgate skipped", d.Message)
	}
	return nothing("annotations", d)
}
