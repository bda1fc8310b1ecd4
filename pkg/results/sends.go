package results

import "math"

// Sends is how an arrival-rate run (Run.OpenLoop) held its schedule for a
// target's measured requests: how many were due, how late latgate sent
// them (its generator's own delay, not the endpoint's), and how many had to
// wait for a free stream because run.max_in_flight were open (the endpoint
// not finishing requests as fast as they arrived: that wait counts in
// their latency).
type Sends struct {
	Scheduled int     `json:"scheduled"`
	LateP50MS float64 `json:"late_p50_ms"`
	LateP99MS float64 `json:"late_p99_ms"`
	LateMaxMS float64 `json:"late_max_ms"`
	// Queued counts the requests that waited for a stream; QueueP95MS and
	// QueueMaxMS are over all requests (0 for those that did not wait).
	Queued     int     `json:"queued"`
	QueueP95MS float64 `json:"queue_p95_ms"`
	QueueMaxMS float64 `json:"queue_max_ms"`
	// SentRate is the measured requests sent per second, from the first
	// send to the last: about the run's rate when the schedule held.
	SentRate float64 `json:"sent_per_s"`
}

// ScheduleLateMS is the median send lateness beyond which an arrival-rate
// run did not hold its schedule: the typical request went out late, so
// latgate's generator could not keep up with the rate (too high for the
// runner, or a runner starved of CPU), the load it put on the endpoint was
// not the one asked for, and what it measured cannot be compared (the
// gate leaves such a target undecided). A late tail alone is jitter: a
// Poisson stream displaced by independent delays is still a Poisson stream
// of the same rate, and the delay itself, counted in every time from the
// schedule, is the busy-runner rule's (compare). At 200 requests per
// second a quiet 2-core runner sends within about 0.1 ms at P99.
const ScheduleLateMS = 5.0

// Held reports whether the schedule held: nil (a closed loop) holds.
func (s *Sends) Held() bool { return s == nil || s.LateP50MS <= ScheduleLateMS }

// At is how late the sends were at quantile q (0.5, or the P99 above it),
// ms: about how much that quantile of a time counted from the schedule
// owes to latgate's generator. 0 for nil.
func (s *Sends) At(q float64) float64 {
	switch {
	case s == nil:
		return 0
	case q <= 0.5:
		return s.LateP50MS
	}
	return s.LateP99MS
}

// Plus is s and o merged, as check's rounds append: counts added, of each
// figure the worse. Nil when both are.
func (s *Sends) Plus(o *Sends) *Sends {
	switch {
	case s == nil:
		return o
	case o == nil:
		return s
	}
	return &Sends{Scheduled: s.Scheduled + o.Scheduled, LateP50MS: max(s.LateP50MS, o.LateP50MS), LateP99MS: max(s.LateP99MS, o.LateP99MS),
		LateMaxMS: max(s.LateMaxMS, o.LateMaxMS), Queued: s.Queued + o.Queued, QueueP95MS: max(s.QueueP95MS, o.QueueP95MS),
		QueueMaxMS: max(s.QueueMaxMS, o.QueueMaxMS), SentRate: min(s.SentRate, o.SentRate)}
}

// validSends reports whether s's figures are a generator's: counted,
// finite, ordered, within the bounds of a run.
func validSends(s *Sends) bool {
	if s == nil {
		return true
	}
	ok := func(xs ...float64) bool {
		for i, x := range xs {
			if !(x >= 0 && x <= MaxTimeoutMS) || i > 0 && x < xs[i-1] {
				return false
			}
		}
		return true
	}
	return s.Scheduled >= 0 && s.Queued >= 0 && s.Queued <= s.Scheduled &&
		ok(s.LateP50MS, s.LateP99MS, s.LateMaxMS) && ok(s.QueueP95MS, s.QueueMaxMS) &&
		s.SentRate >= 0 && !math.IsInf(s.SentRate, 0)
}
