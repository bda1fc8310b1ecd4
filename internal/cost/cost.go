// Package cost says what a run cost: the usage tokens its requests
// reported (results.Usage: prompt, cached and output tokens of every
// request sent, priming, warmup and failed ones included) at the prices
// the config sets per target (config.Price, US dollars per million
// tokens). It is pure: usage and prices in, amounts out.
//
// It never estimates: a request that reported no usage (an endpoint that
// sends none, a failure) is counted as unknown, and a target of which no
// request reported usage has an unknown cost, not a cost of 0.
package cost

import (
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// Amount is what some requests cost.
type Amount struct {
	// USD is the cost of the requests that reported usage.
	USD float64
	// Requests is the requests sent; Unknown how many of them reported no
	// usage, so are not in USD.
	Requests, Unknown int
}

// Known reports whether any of the requests reported usage: without, USD
// says nothing.
func (a Amount) Known() bool { return a.Requests > a.Unknown }

func (a Amount) plus(b Amount) Amount {
	return Amount{USD: a.USD + b.USD, Requests: a.Requests + b.Requests, Unknown: a.Unknown + b.Unknown}
}

// Of prices a usage tally, per million tokens: prompt tokens served from
// the cache at Cached, written to it at CacheWrite, the others at Input;
// output tokens at Output.
func Of(u results.Usage, p config.Price) Amount {
	plain := max(u.PromptTokens-u.CachedTokens-u.CacheWriteTokens, 0)
	usd := (float64(plain)*p.Input + float64(u.CachedTokens)*p.Cached + float64(u.CacheWriteTokens)*p.CacheWrite + float64(u.OutputTokens)*p.Output) / 1e6
	return Amount{USD: usd, Requests: u.Requests, Unknown: u.Unknown}
}

// Target is one priced target's cost in a run.
type Target struct {
	// Name is the target's label, "name" or "name@region".
	Name string
	// All is the whole run; Rounds the part of it that check's sequential
	// rounds after the first added (zero when there were none).
	All, Rounds Amount
	// Recorded is false for a results file from before latgate recorded
	// usage: its cost is unknown.
	Recorded bool
}

// Bill is a run's cost: one line per target with a price, in the run's
// order, and the targets without one; and what the whole run sent, priced
// or not.
type Bill struct {
	Targets  []Target
	Unpriced []string
	Sent     Sent
}

// Sent is what a run sent to every target, priced or not: its requests
// (priming, warmup and failed ones included) and the tokens of those that
// reported usage.
type Sent struct {
	results.Usage
	// Recorded is false when some target's results record no usage
	// (measured before latgate recorded it): the figures are then not the
	// whole run's.
	Recorded bool
}

// Add adds the usage of one target's results (nil when they record none).
func (s *Sent) Add(u *results.Usage) {
	if u == nil {
		s.Recorded = false
		return
	}
	s.Requests += u.Requests
	s.Unknown += u.Unknown
	s.PromptTokens += u.PromptTokens
	s.CachedTokens += u.CachedTokens
	s.CacheWriteTokens += u.CacheWriteTokens
	s.OutputTokens += u.OutputTokens
}

// Priced reports whether any target has a price: a bill without is not
// worth a line.
func (b Bill) Priced() bool { return len(b.Targets) > 0 }

// Total is the bill's targets added up.
func (b Bill) Total() (all, rounds Amount) {
	for _, t := range b.Targets {
		all, rounds = all.plus(t.All), rounds.plus(t.Rounds)
	}
	return all, rounds
}

// PriceOf returns the price of a results target in cfg (by name and
// region), false when it has none.
func PriceOf(cfg *config.Config) func(t results.Target) (config.Price, bool) {
	return func(t results.Target) (config.Price, bool) {
		if cfg == nil {
			return config.Price{}, false
		}
		for _, ct := range cfg.Targets {
			if ct.Name == t.Name && ct.Region == t.Region && ct.Price != nil {
				return *ct.Price, true
			}
		}
		return config.Price{}, false
	}
}

// Run is the bill of the targets of a run at price's prices.
func Run(targets []results.Target, price func(results.Target) (config.Price, bool)) Bill {
	b := Bill{Sent: Sent{Recorded: len(targets) > 0}}
	for _, t := range targets {
		b.Sent.Add(t.Usage)
		p, ok := price(t)
		if !ok {
			b.Unpriced = append(b.Unpriced, t.Label())
			continue
		}
		line := Target{Name: t.Label(), Recorded: t.Usage != nil}
		if t.Usage != nil {
			line.All = Of(*t.Usage, p)
		}
		if t.RoundsUsage != nil {
			line.Rounds = Of(*t.RoundsUsage, p)
		}
		b.Targets = append(b.Targets, line)
	}
	return b
}
