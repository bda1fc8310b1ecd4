package render

import (
	"io"

	"github.com/latgate/latgate/internal/export"
	"github.com/latgate/latgate/internal/view"
)

// OpenMetrics is a run's latencies, and the checks when it was gated, as
// OpenMetrics text (--openmetrics; internal/export). Only an outcome that
// measured has it: a gate, ab, or a check without a baseline.
func OpenMetrics() Format {
	shows := kinds(view.KindGate, view.KindAB, view.KindUngated)
	return Format{
		Name: "openmetrics",
		Flag: "openmetrics",
		Usage: func(k view.Kind) string {
			if k == view.KindGate || k == view.KindAB {
				return "write the run's latencies and the checks as OpenMetrics text to `FILE` (for Prometheus: the textfile collector, promtool backfill; docs/observability.md)"
			}
			return ""
		},
		Shows: shows,
		Write: func(w io.Writer, d view.Document) error {
			switch {
			case !shows(d.Kind):
				return nothing("openmetrics", d)
			case d.Export == nil:
				return nil // measured nothing to export: an empty file
			}
			return export.OpenMetrics(w, d.Export.Sides, d.Export.Report)
		},
	}
}
