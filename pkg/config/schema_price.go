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

// priceField is one price per million tokens: a number from 0 to maxPrice.
func priceField(key string, set func(*Price, float64)) field[Price] {
	return field[Price]{key: key, read: func(p *parser, n *yaml.Node, f string, pr *Price) {
		x, ok := p.number(n, f, "2.50")
		switch {
		case !ok:
		case x < 0:
			p.fail(n, f, "must be ≥ 0 (US dollars per million tokens), got %v; e.g. %s", x, priceExample)
		case x > maxPrice:
			p.fail(n, f, "%s dollars per million tokens is implausible: the price is per million tokens, in dollars; e.g. %s", strconv.FormatFloat(x, 'f', -1, 64), priceExample)
		default:
			set(pr, x)
		}
	}}
}

// The fields of price. cached and cache_write default to input's price
// (set in price, after input is read).
var (
	priceInput      = priceField("input", func(pr *Price, x float64) { pr.Input = x })
	priceCached     = priceField("cached", func(pr *Price, x float64) { pr.Cached = x })
	priceCacheWrite = priceField("cache_write", func(pr *Price, x float64) { pr.CacheWrite = x })
	priceOutput     = priceField("output", func(pr *Price, x float64) { pr.Output = x })
)

var priceFields = []field[Price]{priceInput, priceCached, priceCacheWrite, priceOutput}

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
	pm, ok := p.mapping(n, path, keysOf(priceFields))
	if !ok {
		return nil
	}
	var pr Price
	// input and output first, as they always were: the order of errors on
	// one line.
	readFields(p, pm, path, &pr, priceInput, priceOutput, priceCached, priceCacheWrite)
	if get(pm, "cached") == nil {
		pr.Cached = pr.Input
	}
	if get(pm, "cache_write") == nil {
		pr.CacheWrite = pr.Input
	}
	hasIn, hasOut := get(pm, "input") != nil, get(pm, "output") != nil
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
