package app

import (
	"github.com/latgate/latgate/pkg/results"
)

// The warnings of a run that measured something other than the endpoint's
// own latency: a server that queued latgate's requests (results.Queueing).

// queueWarnings are the queueing warnings of f, one per target.
func queueWarnings(f *results.File) []string {
	if f == nil {
		return nil
	}
	var out []string
	for _, q := range results.Queueing(f.Run, f.Targets) {
		out = append(out, q.String())
	}
	return out
}

// warnQueueing prints the queueing warnings of f on stderr (measure, bless,
// and check without a baseline: the commands with no report to carry them).
func (a *App) warnQueueing(f *results.File) {
	for _, w := range queueWarnings(f) {
		a.Out.Warn("%s", w)
	}
}
