package report

import (
	"fmt"
	"strconv"

	"github.com/latgate/latgate/internal/numfmt"
	"github.com/latgate/latgate/pkg/results"
)

// SendsLine says how an arrival-rate run held its schedule for target t:
// the rate asked and sent, how late latgate's sends were, and how many
// requests waited for a stream (that wait is in their latency, since
// every time counts from the scheduled send). "" for a closed loop.
func SendsLine(t results.Target, run results.Run) string {
	s := t.Sends
	if s == nil || !run.OpenLoop() {
		return ""
	}
	line := fmt.Sprintf("at %s requests/s (%s): %d sent at %s/s, times from each scheduled send; latgate's sends late p50 %s, p99 %s",
		strconv.FormatFloat(run.Rate, 'g', -1, 64), run.Arrival, s.Scheduled, strconv.FormatFloat(s.SentRate, 'f', 2, 64),
		numfmt.Millis(s.LateP50MS), numfmt.Millis(s.LateP99MS))
	if !s.Held() {
		line += fmt.Sprintf(" (beyond %s: the schedule was not held)", numfmt.Millis(results.ScheduleLateMS))
	}
	if s.Queued > 0 {
		line += fmt.Sprintf("; %d waited for a free stream (all %d open; up to %s, p95 %s): the endpoint did not finish requests as fast as they came, and the wait is in their latency",
			s.Queued, run.MaxInFlight, numfmt.Millis(s.QueueMaxMS), numfmt.Millis(s.QueueP95MS))
	}
	return line
}

// Stall lines: a closed-loop request this much slower than its prompt's
// median total, and by at least stallLeastMS, is a stall the loop counted
// once.
const (
	stallFactor  = 10
	stallLeastMS = 250
)

// StallLine says, for a closed-loop run of t, that a request stalled and
// what the loop did not measure (coordinated omission): while its streams
// wait, a closed loop sends nothing, so a stall counts once per stream,
// not for every request that would have arrived during it. "" for an
// arrival-rate run (which measures those requests) or when no request
// stalled.
func StallLine(t results.Target, run results.Run) string {
	if run.OpenLoop() || t.WallMS <= 0 {
		return ""
	}
	worst, wid, wseq, wx := 0.0, "", 0, 0.0
	for _, p := range t.Prompts {
		med := p.Metrics.Get(results.Total)
		if med == nil || med.P50 <= 0 {
			continue
		}
		for _, s := range p.Samples {
			if x := s.Total / med.P50; x >= stallFactor && s.Total-med.P50 >= stallLeastMS && s.Total > worst {
				worst, wid, wseq, wx = s.Total, p.ID, s.Seq, x
			}
		}
	}
	if worst == 0 {
		return ""
	}
	pace := float64(t.Requests) / (t.WallMS / 1000)
	return fmt.Sprintf("request %d of prompt %s took %s (×%.0f its median): a closed loop sends nothing while its streams wait, so a stall counts once per stream; an open loop at this run's pace (%.1f/s) would have sent about %.0f requests during it, each waiting: set run.rate to measure them (coordinated omission)",
		wseq, wid, numfmt.Millis(worst), wx, pace, pace*worst/1000)
}
