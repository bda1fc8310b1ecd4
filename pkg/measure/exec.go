package measure

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/latgate/latgate/pkg/results"
)

// # The executor
//
// Every measurement, a target's run (Run) and the interleaved A/B run
// (RunAB), is one executor over lanes: a lane is one target of one side,
// measured by its own client, with its own give-up rule, usage tally,
// spans, solo probes and measured outcomes. What differs between the two is
// only the schedule, a pure function of the run settings (schedule,
// abSchedule): which lane sends which prompt, in which order, in each of
// the phases the executor runs in turn — cache priming, warmup at the run's
// concurrency, the solo round one request at a time (solo.go), then the
// measured requests. So both record the same things, and a rule added here
// holds for both.

// lane is one target of one side of a measurement.
type lane struct {
	ep   Endpoint
	c    *client
	opts Options // the lane's prompts, run settings and retries
	gu   *giveUp
	// label names the lane's requests in progress events.
	label func(prompt int) (target, name string)

	// meas are the lane's measured jobs in schedule order, with their
	// outcomes, whether each ran, and when it started (ms since the run's
	// start), as aggregate takes them.
	meas     []job
	outcomes []outcome
	ran      []bool
	at       []float64

	mu sync.Mutex // guards spans and usage
	// spans[p] holds when each request of prompt p (warmup included) was
	// in flight, in ms since the run's start: the prompt's and target's
	// wall times.
	spans [][]span
	// usage tallies every request sent (priming, warmup, measured, failed:
	// each may be billed), for the cost of the run.
	usage results.Usage
	// solo keeps each prompt's outcome of the solo round.
	solo []*outcome
}

// newLane returns a lane of ep over opts.Prompts, measuring meas (whose
// outcomes it keeps) after warmup requests of warmup and priming, with the
// HTTP client hc; opts.Before counts toward its error budget.
func newLane(ep Endpoint, hc *http.Client, opts Options, warmup int, meas []job) (*lane, error) {
	c, err := newClient(ep, hc, opts.Prompts)
	if err != nil {
		return nil, err
	}
	n := len(meas)
	budget := ep.MaxErrorRate
	if opts.OverBudget {
		budget = 1 // the give-up's only: Describe records the target's own
	}
	l := &lane{ep: ep, c: c, opts: opts, meas: meas,
		outcomes: make([]outcome, n), ran: make([]bool, n), at: make([]float64, n),
		spans: make([][]span, len(opts.Prompts)), solo: make([]*outcome, len(opts.Prompts)),
		gu: newGiveUp(warmup, n, budget)}
	l.label = func(p int) (string, string) { return ep.Name, opts.Prompts[p].ID }
	if b := opts.Before; b != nil {
		for _, bt := range b.Targets {
			if bt.Name == ep.Name && bt.Region == ep.Region {
				l.gu.spent(bt.Requests, bt.Errors, budget)
			}
		}
	}
	return l, nil
}

// task is one request of a phase: lane's prompt, and for a measured
// request its index in the lane's meas.
type task struct {
	lane, prompt int
	slot         int // index into lane.meas; -1 when not measured
}

// Phases of a measurement, run in this order.
const (
	phasePrime = iota // one request per warm-cache prompt, when no warmup primes it
	phaseWarm         // warmup at the run's concurrency
	phaseSolo         // the last warmup round, one request at a time
	phaseMeasured
	phases
)

// executor runs the phases of a measurement over its lanes.
type executor struct {
	lanes   []*lane
	conc    int
	start   time.Time // spans and at count from it
	total   int       // requests planned, for progress
	observe func(Progress)

	done    atomic.Int64
	authErr atomic.Pointer[AuthError]
	cancel  context.CancelFunc
	// lateness is how late latgate's own runner woke during the measured
	// requests (nil when none ran): every lane's target records it.
	lateness *results.Lateness
	// pace, when set, sends the measured requests at an arrival rate
	// (pace.go) instead of with conc workers.
	pace *pace
}

// run runs plan's phases in order (the solo round and the measured
// requests only while the run goes on) and returns the context's error,
// nil when the run went through.
func (x *executor) run(ctx context.Context, plan [phases][]task) error {
	ctx, x.cancel = context.WithCancel(ctx)
	defer x.cancel()
	for _, t := range plan {
		x.total += len(t)
	}
	x.exec(ctx, plan[phasePrime], phasePrime, x.conc)
	x.exec(ctx, plan[phaseWarm], phaseWarm, x.conc)
	if ctx.Err() == nil {
		x.exec(ctx, plan[phaseSolo], phaseSolo, x.soloWorkers())
	}
	if ctx.Err() == nil {
		p := startProbe()
		if x.pace != nil {
			x.paced(ctx, plan[phaseMeasured], *x.pace)
		} else {
			x.exec(ctx, plan[phaseMeasured], phaseMeasured, x.conc)
		}
		x.lateness = p.stop()
	}
	return ctx.Err()
}

// result is what lane l measured, as a results target, with the runner's
// lateness while it did.
func (x *executor) result(l *lane) results.Target {
	t := l.result()
	t.Lateness = x.lateness
	if x.pace != nil {
		t.Sends = sendsOf(l.outcomes, l.ran, l.at)
	}
	return t
}

// soloWorkers is how many workers send the solo round: one, unless every
// lane's warmup failed: then the probe has nothing to measure, and
// sending its requests one at a time would only make a hung endpoint take
// a timeout per prompt longer to give up ("every warmup request failed").
func (x *executor) soloWorkers() int {
	for _, l := range x.lanes {
		if !l.gu.warmupFailed() {
			return 1
		}
	}
	return x.conc
}

// exec sends tasks with workers workers, in order.
func (x *executor) exec(ctx context.Context, tasks []task, phase, workers int) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, len(tasks)) {
		wg.Go(func() {
			buf := make([]byte, 32<<10)
			for i := range next {
				x.send(ctx, tasks[i], phase, buf, nil)
			}
		})
	}
feed:
	for i := range tasks {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
}

// send sends one request and records it in its lane; d is its schedule in
// an arrival-rate run (nil in a closed loop): its times then count from
// when it was due.
func (x *executor) send(ctx context.Context, t task, phase int, buf []byte, d *due) {
	l := x.lanes[t.lane]
	measured := phase == phaseMeasured
	sent := time.Now()
	started := ms(sent.Sub(x.start))
	o := l.c.do(ctx, t.prompt, l.opts, buf, l.gu)
	ended := ms(time.Since(x.start))
	if d != nil {
		fromSchedule(&o, d, sent)
	}
	l.mu.Lock()
	switch {
	case o.usage != nil: // a chain: each of its steps' requests (chain.go)
		l.usage = *l.usage.Plus(o.usage)
	case o.failure == nil:
		l.usage.Add(&o.sample)
	default:
		l.usage.Add(nil)
	}
	if o.failure != nil && o.failure.Class == results.ErrCanceled && ctx.Err() != nil {
		l.mu.Unlock()
		return // not a measurement: the run stopped under it
	}
	l.spans[t.prompt] = append(l.spans[t.prompt], span{started, ended})
	l.mu.Unlock()
	switch phase {
	case phaseMeasured:
		l.outcomes[t.slot], l.ran[t.slot], l.at[t.slot] = o, true, started
	case phaseSolo:
		l.solo[t.prompt] = &o
	}
	if o.failure != nil && o.failure.Class == results.ErrAuth {
		x.authErr.CompareAndSwap(nil, &AuthError{Target: l.ep.Name, EnvVar: l.ep.APIKeyEnv, Status: o.failure.Status, Msg: o.failure.Message})
		x.cancel()
	}
	if l.gu.finished(o.failure, !measured) {
		x.cancel() // the lane cannot succeed: stop now, with a report
	}
	if x.observe != nil {
		target, prompt := l.label(t.prompt)
		ev := Progress{Target: target, Prompt: prompt, Warmup: !measured, Done: int(x.done.Add(1)), Total: x.total,
			Failure: o.failure, Sent: o.start, ResponseID: o.id}
		if o.failure == nil {
			ev.TTFTMS = o.sample.TTFT
			ev.Sample = &o.sample
		}
		x.observe(ev)
	}
}

// tasks returns jobs as tasks of lane l: measured ones numbered in order.
func tasks(l int, jobs []job, measured bool) []task {
	out := make([]task, len(jobs))
	for i, j := range jobs {
		out[i] = task{lane: l, prompt: j.prompt, slot: -1}
		if measured {
			out[i].slot = i
		}
	}
	return out
}

// result is what the lane measured, as a results target: the measured
// requests aggregated, the solo probes, the wall times and the usage.
func (l *lane) result() results.Target {
	t := aggregate(l.ep, l.opts, l.meas, l.outcomes, l.ran, l.at)
	setSolo(&t, l.solo)
	var all []span
	for i := range t.Prompts {
		t.Prompts[i].WallMS = busy(l.spans[i])
		all = append(all, l.spans[i]...)
	}
	t.WallMS = extent(all)
	u := l.usage
	t.Usage = &u
	return t
}
