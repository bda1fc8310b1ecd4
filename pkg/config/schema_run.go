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
)

var runFields = []field[Run]{runRequests, runMaxRequests, runBlessRequests, runWarmup, runConcurrency, runTimeout, runOrder, runSeed}

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
	readFields(p, m, "run", &r, runRequests, runWarmup, runConcurrency, runTimeout, runOrder, runSeed, runMaxRequests)
	if r.MaxRequests != 0 && r.MaxRequests < r.Requests { // unset, it is a multiple of requests (Run.Cap)
		p.fail(get(m, "max_requests"), "run.max_requests", "%d is below run.requests (%d): it is the cap of check's extra rounds; set it to run.requests to measure exactly that many", r.MaxRequests, r.Requests)
		r.MaxRequests = 0 // as unset: the bound on what a run sends (parse) counts the default cap
	}
	readFields(p, m, "run", &r, runBlessRequests)
	return r
}
