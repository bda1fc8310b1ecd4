package config

import (
	"strconv"

	"go.yaml.in/yaml/v3"
)

// This file holds price:, what a target's tokens cost, for the cost of a
// run (internal/cost): price: {input: 2.50, cached: 1.25, output: 10.00}, in
// US dollars per million tokens. It is bookkeeping, not part of what is
// measured: it is in no hash, so a new price never labels a baseline.

// Price is a target's price in US dollars per million tokens: Input for
// prompt tokens neither served from nor written to the prompt cache,
// Cached for those served from it and CacheWrite for those written to it
// (each Input when the config sets none), Output for output tokens
// (reasoning included).
type Price struct {
	Input, Cached, CacheWrite, Output float64
}

var priceKeys = []string{"input", "cached", "cache_write", "output"}

const priceExample = "price: {input: 2.50, cached: 1.25, output: 10.00}"

// maxPrice bounds a price per million tokens: beyond it the value is a
// typo (a price per token, or cents).
const maxPrice = 100_000

// price reads a target's price:, nil when absent.
func (p *parser) price(m map[string]*yaml.Node, path string) *Price {
	n := get(m, "price")
	if n == nil {
		return nil
	}
	path += ".price"
	pm, ok := p.mapping(n, path, priceKeys)
	if !ok {
		return nil
	}
	var pr Price
	read := func(k string, slot *float64) bool {
		v := get(pm, k)
		if v == nil {
			return false
		}
		x, ok := p.number(v, path+"."+k, "2.50")
		switch {
		case !ok:
		case x < 0:
			p.fail(v, path+"."+k, "must be ≥ 0 (US dollars per million tokens), got %v; e.g. %s", x, priceExample)
		case x > maxPrice:
			p.fail(v, path+"."+k, "%s dollars per million tokens is implausible: the price is per million tokens, in dollars; e.g. %s", strconv.FormatFloat(x, 'f', -1, 64), priceExample)
		default:
			*slot = x
		}
		return true
	}
	hasIn, hasOut := read("input", &pr.Input), read("output", &pr.Output)
	if !read("cached", &pr.Cached) {
		pr.Cached = pr.Input
	}
	if !read("cache_write", &pr.CacheWrite) {
		pr.CacheWrite = pr.Input
	}
	if !hasIn || !hasOut {
		missing := "input"
		if hasIn {
			missing = "output"
		} else if !hasOut {
			missing = "input and output"
		}
		p.fail(n, path, "missing %s; a price sets input and output (cached and cache_write are optional, input's price when absent), in US dollars per million tokens, e.g. %s", missing, priceExample)
		return nil
	}
	return &pr
}
