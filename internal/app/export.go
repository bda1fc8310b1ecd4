package app

import (
	"bytes"

	"github.com/latgate/latgate/internal/export"
)

// HistoryExportRequest is `latgate history export`: the run history in
// another format.
type HistoryExportRequest struct {
	ConfigPath string
	// History defaults to the config's history:.
	History string
	// OpenMetrics is where the timestamped OpenMetrics text goes.
	OpenMetrics string
}

// HistoryExport writes the history as timestamped OpenMetrics samples, for
// a Prometheus backfill. The history is only read.
func (a *App) HistoryExport(req HistoryExportRequest) error {
	in, err := a.loadHistory(req.ConfigPath, req.History, "")
	if err != nil {
		return err
	}
	for _, w := range in.warnings {
		a.Out.Warn("%s", w)
	}
	sink := a.Out.Sink()
	sink.InputConfig(in.cfg)
	sink.Input("the history", in.path)
	out := sink.Output("--openmetrics", req.OpenMetrics)
	if err := sink.Check(); err != nil {
		return UsageError(err)
	}
	var buf bytes.Buffer
	if err := export.HistoryOpenMetrics(&buf, in.hist.Records); err != nil {
		return err
	}
	if err := out.Write(buf.Bytes()); err != nil {
		return outputErr("", false, err)
	}
	a.Out.Note("%s: %s exported to %s as OpenMetrics (backfill it: promtool tsdb create-blocks-from openmetrics %s DIR)",
		in.path, plural(len(in.hist.Records), "run", "runs"), req.OpenMetrics, shellQuote(req.OpenMetrics))
	return nil
}
