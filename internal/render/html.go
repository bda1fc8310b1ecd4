package render

import (
	"io"

	"github.com/latgate/latgate/internal/report"
	"github.com/latgate/latgate/internal/view"
)

// HTML is trend's page (--html): the history as one self-contained page.
func HTML() Format {
	return Format{
		Name: "html",
		Flag: "html",
		Usage: func(k view.Kind) string {
			if k == view.KindTrend {
				return "write the history as one self-contained HTML page to `FILE`: a chart per series and a table of verdicts (opens offline; for GitHub Pages)"
			}
			return ""
		},
		Shows: kinds(view.KindTrend),
		Write: func(w io.Writer, d view.Document) error {
			if d.Kind != view.KindTrend {
				return nothing("html", d)
			}
			return report.TrendHTML(w, d.Trend.Report, d.Trend.Warnings, d.Trend.Options)
		},
	}
}
