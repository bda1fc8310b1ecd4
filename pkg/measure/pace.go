package measure

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// # The open loop
//
// An arrival-rate run (run.rate) sends a target's measured requests when
// they are due, whatever the endpoint does: the i-th at its arrival time
// (pace.offsets), up to run.max_in_flight open at once. A closed loop sends
// its next request when one ends, so a stalled server is measured once per
// stream while the users who arrived during the stall go unmeasured
// (coordinated omission); here every request due during the stall is sent
// on time, and its latency counts from when it was due. Each request
// records how late latgate sent it (its own delay: the runner's) and how
// long it waited for a free stream (the endpoint not finishing as fast as
// requests arrive); Sends sums them up, and a target whose sends were late
// beyond results.ScheduleLateMS is not gated (compare).

// pace is an arrival-rate run's schedule.
type pace struct {
	rate        float64 // requests per second
	arrival     string  // config.ArrivalPoisson or config.ArrivalConstant
	seed        int64
	maxInFlight int
	spin        time.Duration // of each wait, spun (spinWindow)
}

// paceOf is r's schedule, nil for a closed loop.
func paceOf(r config.Run) *pace {
	if !r.OpenLoop() {
		return nil
	}
	return &pace{rate: r.Rate, arrival: r.Arrival, seed: r.Seed, maxInFlight: max(r.MaxInFlight, 1), spin: spinWindow}
}

// arrivalStream separates the arrivals' random stream from the order's.
const arrivalStream = 0xa1_1e_5a_7e

// offsets returns when each of n requests is due, from the phase's start:
// i/rate for constant arrivals; for poisson the sums of exponential gaps
// drawn from PCG(seed, arrivalStream), so a seed always gives the same
// schedule, scaled to a mean gap of exactly 1/rate. The first request is
// due at once.
func (p pace) offsets(n int) []time.Duration {
	out := make([]time.Duration, n)
	if n == 0 {
		return out
	}
	rng := rand.New(rand.NewPCG(uint64(p.seed), arrivalStream))
	at := 0.0 // seconds
	for i := range out {
		if i > 0 {
			if p.arrival == config.ArrivalConstant {
				at = float64(i) / p.rate
			} else {
				at += rng.ExpFloat64() / p.rate
			}
		}
		out[i] = time.Duration(math.Round(at * 1e9))
	}
	// Scaled so that the run's own rate is the rate asked: n arrivals at
	// random over exactly (n−1)/rate. Unscaled, a seed's sum of gaps is
	// the same draw at every rate (a sweep's steps all a few percent off
	// the same way), and a run's load varies by 1/√n around the rate.
	if last := out[n-1]; p.arrival != config.ArrivalConstant && n > 2 && last > 0 {
		f := float64(n-1) / p.rate * 1e9 / float64(last)
		for i := range out {
			out[i] = time.Duration(math.Round(float64(out[i]) * f))
		}
	}
	return out
}

// due is one paced request's schedule, as the executor sends it: when it
// was due, and how long it waited for a free stream.
type due struct {
	at    time.Time
	queue time.Duration
}

// spinWindow is how much of each wait for a due time is spun instead of
// slept: Go's timers wake up to a millisecond late on their own
// (results.TimerGranularityMS), spinning the last part sends within
// microseconds of the schedule, at a cost of up to rate × spinWindow of
// one core (20% at 200 requests per second).
const spinWindow = time.Millisecond

// waitUntil waits on t until at, the last spin of it spinning; false when
// ctx ended first.
func waitUntil(ctx context.Context, t *time.Timer, at time.Time, spin time.Duration) bool {
	if d := time.Until(at) - spin; d > 0 {
		t.Reset(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return false
		}
	}
	for time.Now().Before(at) {
		if ctx.Err() != nil {
			return false
		}
	}
	return ctx.Err() == nil
}

// lead is how long before a request is due the generator hands it to the
// goroutine that sends it: a goroutine started on a busy runner waits for
// a CPU (over a millisecond at P99 with 256 streams open on 2 cores), so
// it is started early and waits for the due time itself.
const lead = 3 * time.Millisecond

// paced sends tasks at p's arrival times from now, each from its own
// goroutine, at most p.maxInFlight at once: a request due while they are
// all open waits for one to end (its due.queue), and the ones after it keep
// their own due times. A stream's read buffer goes back to the pool when its
// request ends, so memory is bounded by maxInFlight.
func (x *executor) paced(ctx context.Context, tasks []task, p pace) {
	offs := p.offsets(len(tasks))
	free := make(chan []byte, p.maxInFlight) // a free buffer is a free stream
	for range p.maxInFlight {
		free <- nil // allocated on first use
	}
	var wg sync.WaitGroup
	t := time.NewTimer(time.Hour)
	t.Stop()
	start := time.Now()
	var held time.Time // when the last wait for a stream ended
	for i := range tasks {
		at := start.Add(offs[i])
		if !waitUntil(ctx, t, at.Add(-lead), 0) {
			break
		}
		var buf []byte
		select {
		case buf = <-free:
		default: // every stream is open: wait for one
			select {
			case buf = <-free:
			case <-ctx.Done():
			}
			held = time.Now()
		}
		if ctx.Err() != nil {
			break
		}
		// A request that came due while the generator waited for a
		// stream, for it or an earlier one, waited in the queue, not on
		// the runner.
		var queue time.Duration
		if held.After(at) {
			queue = held.Sub(at)
		}
		if buf == nil {
			buf = make([]byte, 32<<10)
		}
		d := due{at: at, queue: queue}
		wg.Go(func() {
			if queue == 0 {
				wt := time.NewTimer(time.Hour)
				ok := waitUntil(ctx, wt, at, p.spin)
				wt.Stop()
				if !ok {
					free <- buf
					return
				}
			}
			x.send(ctx, tasks[i], phaseMeasured, buf, &d)
			free <- buf
		})
	}
	wg.Wait()
}

// fromSchedule makes o's times count from its scheduled send d.at instead
// of its own send: every time from the send (TTFB, TTFT, TTFCT, the first
// status, total, a chain's) grows by the delay, and the sample records how
// late latgate sent it (from sent, when its sending began, less the wait
// for a stream) and that wait. A retried request's earlier attempts and
// waits count in its times, as a user's would.
func fromSchedule(o *outcome, d *due, sent time.Time) {
	late := max(sent.Sub(d.at)-d.queue, 0)
	o.late, o.queue = late, d.queue
	if o.failure != nil {
		return
	}
	s := &o.sample
	shift := ms(max(o.start.Sub(d.at), 0))
	s.TTFB = round3(s.TTFB + shift)
	s.TTFT = round3(s.TTFT + shift)
	s.Total = round3(s.Total + shift)
	if s.HasContent {
		s.TTFCT = round3(s.TTFCT + shift)
	}
	if s.FirstStatus > 0 {
		s.FirstStatus = round3(s.FirstStatus + shift)
	}
	if len(s.Steps) > 0 {
		s.ChainTotal = round3(s.ChainTotal + shift)
		s.ChainTTFTLast = round3(s.ChainTTFTLast + shift)
	}
	s.LateMS, s.QueueMS = round3(ms(late)), round3(ms(d.queue))
}

// sendsOf sums up how a lane's paced requests held their schedule: nil
// when none was paced.
func sendsOf(outcomes []outcome, ran []bool, at []float64) *results.Sends {
	var late, queue []float64
	first, last := math.Inf(1), math.Inf(-1)
	queued := 0
	for i := range outcomes {
		if !ran[i] {
			continue
		}
		o := &outcomes[i]
		late, queue = append(late, ms(o.late)), append(queue, ms(o.queue))
		if o.queue > 0 {
			queued++
		}
		first, last = min(first, at[i]), max(last, at[i])
	}
	if len(late) == 0 {
		return nil
	}
	slices.Sort(late)
	slices.Sort(queue)
	rank := func(xs []float64, q float64) float64 { return round3(xs[int(math.Ceil(q*float64(len(xs))))-1]) }
	s := &results.Sends{Scheduled: len(late), LateP50MS: rank(late, 0.5), LateP99MS: rank(late, 0.99), LateMaxMS: round3(late[len(late)-1]),
		Queued: queued, QueueP95MS: rank(queue, 0.95), QueueMaxMS: round3(queue[len(queue)-1])}
	if span := (last - first) / 1000; len(late) > 1 && span > 0 {
		s.SentRate = round3(float64(len(late)-1) / span)
	}
	return s
}
