package render

import (
	"fmt"
	"io"

	"github.com/latgate/latgate/internal/report"
	"github.com/latgate/latgate/internal/view"
)

// Text is what stdout shows of an outcome: the verdict table, the trend
// report, or a short outcome's line. A run that could not decide prints
// its error on stderr instead (internal/cli).
func Text() Format {
	return Format{
		Name:   "text",
		Stdout: true,
		Shows:  kinds(view.KindGate, view.KindAB, view.KindTrend, view.KindUngated, view.KindSlowed, view.KindSkipped, view.KindUnchanged),
		Write:  writeText,
	}
}

func writeText(w io.Writer, d view.Document) error {
	var err error
	switch d.Kind {
	case view.KindGate:
		return report.Verdicts(w, d.Gate.Report, d.Gate.Options)
	case view.KindAB:
		return report.ABVerdicts(w, d.Gate.Report, d.Gate.AB, d.Gate.Options)
	case view.KindTrend:
		return report.TrendText(w, d.Trend.Report, d.Trend.Warnings, d.Trend.Options)
	case view.KindUngated:
		_, err = fmt.Fprintf(w, "\nwarning: %s\n", d.Message)
	case view.KindSlowed:
		_, err = fmt.Fprintf(w, "\nFAIL: %s\n%s\n", d.Message, d.Next)
	case view.KindSkipped:
		_, err = fmt.Fprintf(w, "latgate: skipped: %s\n", d.Message)
	case view.KindUnchanged:
		_, err = fmt.Fprintf(w, "latgate ab: %s\n", d.Message)
	default:
		return nothing("text", d)
	}
	return err
}
