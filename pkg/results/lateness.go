package results

import "math"

// Lateness is how late latgate's own timers fired while a target was
// measured: a probe wakes every few milliseconds and records how long after
// its deadline it ran. A stream's socket reads wait for the same scheduler,
// so a runner too busy to wake its probe on time also read the stream late:
// tokens that arrived apart were read together (ITL reads as 0, a stream
// as a burst), and every time measured carries the delay. Nil in files
// from before latgate recorded it.
//
// Go's timers on Linux fire up to about a millisecond late on their own
// (TimerGranularityMS), so a quiet runner reads p99 ≈ 1.1 ms.
type Lateness struct {
	Probes int     `json:"probes"`
	P50MS  float64 `json:"late_p50_ms"`
	P95MS  float64 `json:"late_p95_ms"`
	P99MS  float64 `json:"late_p99_ms"`
	MaxMS  float64 `json:"late_max_ms"`
}

// TimerGranularityMS is how late a timer fires on a quiet runner: the
// poller's millisecond wait. Lateness beyond it is the runner's.
const TimerGranularityMS = 1.0

// Lag is how late, beyond the timer granularity, the runner woke in the
// worst 1% of probes (ms): about how much a read of the stream could have
// been delayed by latgate's own runner. 0 when nothing was probed.
func (r *Lateness) Lag() float64 {
	if r == nil || r.Probes == 0 {
		return 0
	}
	return max(0, r.P99MS-TimerGranularityMS)
}

// At is how late, beyond the timer granularity, the runner woke at the
// probes' quantile q (0.5, 0.95 or 0.99; another q takes the next one up):
// about how much that quantile of a measured time could owe to latgate's
// own runner. A quiet runner's timer fires up to a millisecond late,
// evenly, so its quantile q is about q ms: that much is not the runner's.
func (r *Lateness) At(q float64) float64 {
	if r == nil || r.Probes == 0 {
		return 0
	}
	v, at := r.P99MS, 0.99
	switch {
	case q <= 0.5:
		v, at = r.P50MS, 0.5
	case q <= 0.95:
		v, at = r.P95MS, 0.95
	}
	return max(0, v-at*TimerGranularityMS)
}

// Plus is r and o merged, as check's rounds append: the probes added and,
// of each quantile, the worse (a round on a busy runner stays in the
// samples whatever the rounds after it read). Nil when both are.
func (r *Lateness) Plus(o *Lateness) *Lateness {
	switch {
	case r == nil:
		return o
	case o == nil:
		return r
	}
	return &Lateness{Probes: r.Probes + o.Probes, P50MS: max(r.P50MS, o.P50MS), P95MS: max(r.P95MS, o.P95MS),
		P99MS: max(r.P99MS, o.P99MS), MaxMS: max(r.MaxMS, o.MaxMS)}
}

// validLateness reports whether r's figures are a probe's: counted, finite,
// ordered, within the run's longest timeout.
func validLateness(r *Lateness) bool {
	if r == nil {
		return true
	}
	ok := r.Probes >= 0
	for _, v := range []float64{r.P50MS, r.P95MS, r.P99MS, r.MaxMS} {
		ok = ok && !math.IsNaN(v) && v >= 0 && v <= MaxTimeoutMS
	}
	return ok && r.P50MS <= r.P95MS && r.P95MS <= r.P99MS && r.P99MS <= r.MaxMS
}
