package render

import (
	"io"

	"github.com/latgate/latgate/internal/report"
	"github.com/latgate/latgate/internal/view"
)

// JUnit is the JUnit XML report (--junit): a testcase per check or per
// series, or one testcase "latgate" that says why nothing was checked.
// A skipped or unchanged run writes none, so no check run is published.
func JUnit() Format {
	return Format{
		Name: "junit",
		Flag: "junit",
		Usage: func(k view.Kind) string {
			switch k {
			case view.KindGate, view.KindAB:
				return "write a JUnit XML report to `FILE` (one testcase per prompt × metric × statistic)"
			case view.KindTrend:
				return "write a JUnit XML report to `FILE` (one testcase per series)"
			}
			return ""
		},
		Shows: kinds(view.KindGate, view.KindAB, view.KindTrend, view.KindUngated, view.KindSlowed, view.KindFailure),
		Write: writeJUnit,
	}
}

func writeJUnit(w io.Writer, d view.Document) error {
	switch d.Kind {
	case view.KindGate, view.KindAB:
		return report.JUnit(w, d.Gate.Report, d.Gate.Options)
	case view.KindTrend:
		return report.TrendJUnit(w, d.Trend.Report, d.Trend.Warnings, d.Trend.Options)
	case view.KindUngated:
		return report.JUnitNotice(w, d.Message)
	case view.KindSlowed:
		return report.JUnitSlowed(w, d.Message)
	case view.KindFailure:
		return report.JUnitFailure(w, d.Message)
	}
	return nothing("junit", d)
}
