package config

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/latgate/latgate/pkg/results"
)

// This file holds the run section of latgate.yaml: how many requests, how
// they are ordered and timed.

// The fields of run. max_requests is also checked against requests, by
// hand in run.
var (
	runRequests = intField("requests", "60", 1, results.MaxPromptRequests, "30", "",
		func(r *Run, x int64) { r.Requests = int(x) })
	runMaxRequests = intField("max_requests", "", 1, results.MaxPromptRequests, "150", "",
		func(r *Run, x int64) { r.MaxRequests = int(x) })
	runBlessRequests = intField("bless_requests", "", 1, results.MaxPromptRequests, "240", "",
		func(r *Run, x int64) { r.BlessRequests = int(x) })
	runWarmup = intField("warmup", "2", 0, results.MaxWarmup, "2", " (0 disables warmup)",
		func(r *Run, x int64) { r.Warmup = int(x) })
	runConcurrency = intField("concurrency", "1", 1, MaxConcurrency, "1", "",
		func(r *Run, x int64) { r.Concurrency = int(x) })
	runTimeout = durField("timeout", "60s", MaxTimeout, "60s",
		func(r *Run, d time.Duration) { r.Timeout = d })
	runOrder = strField("order", "interleave", "interleave", func(s string) string {
		if !slices.Contains(orders, s) {
			return fmt.Sprintf("%q is not an order; use interleave (default) or shuffle", s)
		}
		return ""
	}, func(r *Run, s string) { r.Order = s })
	runSeed = intField("seed", "1", math.MinInt64, math.MaxInt64, "1", "",
		func(r *Run, x int64) { r.Seed = x })
	// The open loop (arrival-rate runs): rate, arrival, duration and
	// max_in_flight.
	runRate = numField("rate", "", 0.01, MaxRate, "8", " (requests per second per target: an open-loop run)",
		func(r *Run, x float64) { r.Rate = x })
	runArrival = strField("arrival", "poisson", "poisson", func(s string) string {
		if !slices.Contains(arrivals, s) {
			return fmt.Sprintf("%q is not an arrival process; use poisson (default: random arrivals, seeded by run.seed) or constant (evenly spaced)", s)
		}
		return ""
	}, func(r *Run, s string) { r.Arrival = s })
	runDuration = durField("duration", "", MaxDuration, "60s",
		func(r *Run, d time.Duration) { r.Duration = d })
	runMaxInFlight = intField("max_in_flight", "256", 1, MaxConcurrency, "256", " (open streams at a rate; a request due when they are all open waits, and its wait counts in its latency)",
		func(r *Run, x int64) { r.MaxInFlight = int(x) })
)

// defaultMaxInFlight is run.max_in_flight's default.
const defaultMaxInFlight = 256

// arrivals are the values of run.arrival.
var arrivals = []string{ArrivalPoisson, ArrivalConstant}

// Arrival processes of an open-loop run (run.arrival).
const (
	ArrivalPoisson  = "poisson"  // exponential gaps: requests arrive at random, as users do
	ArrivalConstant = "constant" // evenly spaced
)

var runFields = []field[Run]{runRequests, runMaxRequests, runBlessRequests, runWarmup, runConcurrency, runTimeout, runOrder, runSeed,
	runRate, runArrival, runDuration, runMaxInFlight}

func (p *parser) run(n *yaml.Node, prompts int) Run {
	r := defaults(runFields)
	r.Arrival, r.MaxInFlight = "", 0 // the open loop's, set with run.rate (openLoop)
	if n == nil {
		return r
	}
	m, ok := p.mapping(n, "run", keysOf(runFields))
	if !ok {
		return r
	}
	// Read in this order, not the table's (the order of the keys in
	// messages), so that errors on one line come in the order they always
	// have: the round counts last.
	readFields(p, m, "run", &r, runRequests, runWarmup, runConcurrency, runTimeout, runOrder, runSeed, runMaxRequests)
	readFields(p, m, "run", &r, runRate, runArrival, runDuration, runMaxInFlight)
	p.openLoop(m, &r, prompts)
	if r.MaxRequests != 0 && r.MaxRequests < r.Requests { // unset, it is a multiple of requests (Run.Cap)
		p.fail(get(m, "max_requests"), "run.max_requests", "%d is below run.requests (%d): it is the cap of check's extra rounds; set it to run.requests to measure exactly that many", r.MaxRequests, r.Requests)
		r.MaxRequests = 0 // as unset: the bound on what a run sends (parse) counts the default cap
	}
	readFields(p, m, "run", &r, runBlessRequests)
	return r
}

// openLoop checks the arrival-rate keys against each other and the closed
// loop's, and turns run.duration into run.requests over prompts prompts.
func (p *parser) openLoop(m map[string]*yaml.Node, r *Run, prompts int) {
	if r.Rate == 0 {
		if get(m, "rate") != nil {
			return // a rate was given, and refused: said once, not again for every key with it
		}
		for _, k := range []string{"arrival", "duration", "max_in_flight"} {
			if n := get(m, k); n != nil {
				p.fail(n, "run."+k, "applies to an arrival-rate run only: set run.rate (requests per second per target, e.g. rate: 8), or remove run.%s", k)
			}
		}
		return
	}
	r.Arrival, r.MaxInFlight = cmp.Or(r.Arrival, ArrivalPoisson), cmp.Or(r.MaxInFlight, defaultMaxInFlight)
	if n := get(m, "concurrency"); n != nil {
		p.fail(n, "run.concurrency", "cannot be set with run.rate: a run is either a closed loop (run.concurrency streams, each sending when its last request ends) or an open loop at run.rate requests per second (up to run.max_in_flight streams open); remove one")
		r.Concurrency = 1
	}
	if get(m, "duration") == nil {
		return
	}
	if n := get(m, "requests"); n != nil {
		p.fail(n, "run.requests", "cannot be set with run.duration: at a rate, run.duration × run.rate is what is sent (spread over the prompts); remove one")
		return
	}
	if prompts > 0 {
		r.Requests = max(1, int(math.Ceil(r.Rate*r.Duration.Seconds()/float64(prompts))))
	}
}
