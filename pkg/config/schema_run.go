package config

import (
	"fmt"
	"math"
	"slices"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/latgate/latgate/pkg/results"
)

// This file holds the run section of latgate.yaml: how many requests, how
// they are ordered and timed.

// The fields of run. max_requests is read by hand (runRounds): it is
// checked against requests.
var (
	runRequests = intField("requests", "60", 1, results.MaxPromptRequests, "30", "",
		func(r *Run, x int64) { r.Requests = int(x) })
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
)

var runFields = []field[Run]{runRequests, hand[Run]("max_requests"), runBlessRequests, runWarmup, runConcurrency, runTimeout, runOrder, runSeed}

func (p *parser) run(n *yaml.Node) Run {
	r := defaults(runFields)
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
	readFields(p, m, "run", &r, runRequests, runWarmup, runConcurrency, runTimeout, runOrder, runSeed)
	p.runRounds(m, &r)
	readFields(p, m, "run", &r, runBlessRequests)
	return r
}

// runRounds reads max_requests (unset: a multiple of requests, see Run.Cap)
// and checks max_requests ≥ requests.
func (p *parser) runRounds(m map[string]*yaml.Node, r *Run) {
	v := get(m, "max_requests")
	if v == nil {
		return
	}
	x, ok := p.integer(v, "run.max_requests", "150")
	if !ok {
		return
	}
	switch {
	case x <= 0 || x > results.MaxPromptRequests:
		p.fail(v, "run.max_requests", "must be between 1 and %d, got %d; e.g. max_requests: 150", results.MaxPromptRequests, x)
	case int(x) < r.Requests:
		p.fail(v, "run.max_requests", "%d is below run.requests (%d): it is the cap of check's extra rounds; set it to run.requests to measure exactly that many", x, r.Requests)
	default:
		r.MaxRequests = int(x)
	}
}
