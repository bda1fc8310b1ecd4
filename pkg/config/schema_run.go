package config

import (
	"slices"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/latgate/latgate/pkg/results"
)

// This file holds the run section of latgate.yaml: how many requests, how
// they are ordered and timed.

func (p *parser) run(n *yaml.Node) (r Run) {
	r = Run{Requests: 60, Warmup: 2, Concurrency: 1, Timeout: 60 * time.Second, Order: "interleave", Seed: 1}
	if n == nil {
		return r
	}
	m, ok := p.mapping(n, "run", []string{"requests", "max_requests", "bless_requests", "warmup", "concurrency", "timeout", "order", "seed"})
	if !ok {
		return r
	}
	defer p.runRounds(m, &r)
	if v := get(m, "requests"); v != nil {
		if x, ok := p.integer(v, "run.requests", "30"); ok {
			if x <= 0 || x > results.MaxPromptRequests {
				p.fail(v, "run.requests", "must be between 1 and %d, got %d; e.g. requests: 30", results.MaxPromptRequests, x)
			} else {
				r.Requests = int(x)
			}
		}
	}
	if v := get(m, "warmup"); v != nil {
		if x, ok := p.integer(v, "run.warmup", "2"); ok {
			if x < 0 || x > results.MaxWarmup {
				p.fail(v, "run.warmup", "must be between 0 and %d, got %d; e.g. warmup: 2 (0 disables warmup)", results.MaxWarmup, x)
			} else {
				r.Warmup = int(x)
			}
		}
	}
	if v := get(m, "concurrency"); v != nil {
		if x, ok := p.integer(v, "run.concurrency", "1"); ok {
			if x < 1 || x > MaxConcurrency {
				p.fail(v, "run.concurrency", "must be between 1 and %d, got %d; e.g. concurrency: 1", MaxConcurrency, x)
			} else {
				r.Concurrency = int(x)
			}
		}
	}
	if v := get(m, "timeout"); v != nil {
		if d, ok := p.duration(v, "run.timeout", "60s"); ok {
			if d <= 0 || d > MaxTimeout {
				p.fail(v, "run.timeout", "must be above 0 and at most %s, got %s; e.g. timeout: 60s", MaxTimeout, d)
			} else {
				r.Timeout = d
			}
		}
	}
	if v := get(m, "order"); v != nil {
		if s, ok := p.str(v, "run.order", "interleave"); ok {
			if !slices.Contains(orders, s) {
				p.fail(v, "run.order", "%q is not an order; use interleave (default) or shuffle", s)
			} else {
				r.Order = s
			}
		}
	}
	if v := get(m, "seed"); v != nil {
		if x, ok := p.integer(v, "run.seed", "1"); ok {
			r.Seed = x
		}
	}
	return r
}

// runRounds reads max_requests and bless_requests (unset: multiples of
// requests, see Run.Cap and Run.BlessN) and checks max_requests ≥ requests.
func (p *parser) runRounds(m map[string]*yaml.Node, r *Run) {
	if v := get(m, "max_requests"); v != nil {
		if x, ok := p.integer(v, "run.max_requests", "150"); ok {
			switch {
			case x <= 0 || x > results.MaxPromptRequests:
				p.fail(v, "run.max_requests", "must be between 1 and %d, got %d; e.g. max_requests: 150", results.MaxPromptRequests, x)
			case int(x) < r.Requests:
				p.fail(v, "run.max_requests", "%d is below run.requests (%d): it is the cap of check's extra rounds; set it to run.requests to measure exactly that many", x, r.Requests)
			default:
				r.MaxRequests = int(x)
			}
		}
	}
	if v := get(m, "bless_requests"); v != nil {
		if x, ok := p.integer(v, "run.bless_requests", "240"); ok {
			if x <= 0 || x > results.MaxPromptRequests {
				p.fail(v, "run.bless_requests", "must be between 1 and %d, got %d; e.g. bless_requests: 240", results.MaxPromptRequests, x)
			} else {
				r.BlessRequests = int(x)
			}
		}
	}
}
