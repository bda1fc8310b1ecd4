package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/latgate/latgate/internal/cost"
)

// Cost writes CostLine wrapped as the text report's lines, nothing when no
// target has a price.
func Cost(w io.Writer, what string, b cost.Bill) error {
	line := CostLine(what, b)
	if line == "" {
		return nil
	}
	_, err := fmt.Fprintln(w, wrap(line, lineWidth, "  "))
	return err
}

// CostLine says what a run sent and cost, from its bill (internal/cost):
// its tokens always, its cost when a target has a price, "" when the run
// records no usage (results from before latgate recorded it):
//
//	cost: $0.0042 for 84 requests (priming and warmup included); the gate's extra rounds added $0.0011 of it (22 requests); tokens: 3360 prompt, 1344 output
//	cost: $0.31 in all; primary: $0.30 for 84 requests; fallback: unknown (none of its 84 requests reported usage); tokens: …
//	sent: 84 requests (priming and warmup included); tokens: 3360 prompt, 1344 output; no price set (a target's price: gives the cost)
//
// what names the run ("" for "cost", "bless cost" for a bless).
func CostLine(what string, b cost.Bill) string {
	if !b.Priced() {
		return sentLine(strings.TrimSuffix(what, "cost"), b.Sent)
	}
	if what == "" {
		what = "cost"
	}
	all, rounds := b.Total()
	var parts []string
	if len(b.Targets) == 1 {
		t := b.Targets[0]
		line := amount(t)
		if t.Recorded && t.All.Known() && t.All.Unknown == 0 {
			line += " (priming and warmup included)"
		}
		parts = append(parts, line)
	} else {
		total := money(all.USD) + " in all"
		if !all.Known() {
			total = "unknown"
		} else if all.Unknown > 0 || !allRecorded(b) {
			total = "at least " + total
		}
		parts = append(parts, total)
		for _, t := range b.Targets {
			parts = append(parts, t.Name+": "+amount(t))
		}
	}
	switch {
	case rounds.Requests == 0:
	case !rounds.Known():
		parts = append(parts, fmt.Sprintf("the gate's extra rounds sent %s of them, of unknown cost (no usage reported)", requests(rounds.Requests)))
	default:
		parts = append(parts, fmt.Sprintf("the gate's extra rounds added %s of it (%s)", money(rounds.USD), requests(rounds.Requests)))
	}
	if tk := tokens(b.Sent); tk != "" {
		parts = append(parts, tk)
	}
	if len(b.Unpriced) > 0 {
		parts = append(parts, "no price for "+strings.Join(b.Unpriced, ", "))
	}
	return what + ": " + strings.Join(parts, "; ")
}

// sentLine is CostLine without a price: the requests and tokens the run
// sent, so that every run says what it asked of the endpoint.
func sentLine(prefix string, s cost.Sent) string {
	if !s.Recorded || s.Requests == 0 {
		return ""
	}
	parts := []string{requests(s.Requests) + " (priming and warmup included)"}
	if tk := tokens(s); tk != "" {
		parts = append(parts, tk)
	}
	parts = append(parts, "no price set (a target's price: gives the cost)")
	return prefix + "sent: " + strings.Join(parts, "; ")
}

// tokens says the prompt and output tokens of s, as the endpoint reported
// them, and of how many requests when some did not: `tokens: 3360 prompt,
// 1344 output`; "tokens unknown: none of the 84 requests reported usage".
func tokens(s cost.Sent) string {
	switch {
	case !s.Recorded || s.Requests == 0:
		return ""
	case s.Unknown >= s.Requests:
		return fmt.Sprintf("tokens unknown: none of the %s reported usage", requests(s.Requests))
	}
	line := fmt.Sprintf("tokens: %d prompt, %d output", s.PromptTokens, s.OutputTokens)
	if s.CachedTokens > 0 {
		line = fmt.Sprintf("tokens: %d prompt (%d of them cached), %d output", s.PromptTokens, s.CachedTokens, s.OutputTokens)
	}
	if s.Unknown > 0 {
		line += fmt.Sprintf(", as %d of %s reported", s.Requests-s.Unknown, requests(s.Requests))
	}
	return line
}

func allRecorded(b cost.Bill) bool {
	for _, t := range b.Targets {
		if !t.Recorded {
			return false
		}
	}
	return true
}

// amount is one target's cost in words.
func amount(t cost.Target) string {
	a := t.All
	switch {
	case !t.Recorded:
		return "unknown (its results record no usage: measured before latgate recorded it)"
	case !a.Known():
		return fmt.Sprintf("unknown (none of its %s reported usage)", requests(a.Requests))
	case a.Unknown > 0:
		return fmt.Sprintf("%s for the %d of %s that reported usage (%d unknown)", money(a.USD), a.Requests-a.Unknown, requests(a.Requests), a.Unknown)
	}
	return money(a.USD) + " for " + requests(a.Requests)
}

func requests(n int) string {
	if n == 1 {
		return "1 request"
	}
	return fmt.Sprintf("%d requests", n)
}

// money is US dollars to two significant digits below a dollar ($0.0031,
// $0.50), to the cent up to $100, whole dollars beyond.
func money(v float64) string {
	switch {
	case v <= 0:
		return "$0"
	case v >= 100:
		return fmt.Sprintf("$%.0f", v)
	case v >= 1:
		return fmt.Sprintf("$%.2f", v)
	}
	decimals := int(-math.Floor(math.Log10(v))) + 1
	return fmt.Sprintf("$%.*f", decimals, v)
}
