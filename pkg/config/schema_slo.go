package config

import (
	"fmt"
	"strings"
	"time"

	"github.com/latgate/latgate/pkg/results"
	"go.yaml.in/yaml/v3"
)

// This file holds slo:, a service-level objective per target or per
// prompt (a prompt's replaces its target's), e.g. slo: {ttft: 500ms, itl:
// 50ms}: the limits a request must all meet to count toward the gate's
// slo_attainment (its goodput).

// SLO is a request's objective: a limit per metric, 0 for none. ITL holds
// when at least 95% of a request's token gaps are within it.
type SLO struct {
	TTFB, TTFT, TTFCT, ITL, TPOT, Total, MaxStall time.Duration
}

// Results returns the SLO as results record it, in milliseconds.
func (o SLO) Results() results.SLO {
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	return results.SLO{TTFB: ms(o.TTFB), TTFT: ms(o.TTFT), TTFCT: ms(o.TTFCT), ITL: ms(o.ITL), TPOT: ms(o.TPOT), Total: ms(o.Total), MaxStall: ms(o.MaxStall)}
}

// SLOFor returns the objective of prompt p on target t: the prompt's, else
// the target's, nil when neither sets one.
func SLOFor(t Target, p Prompt) *SLO {
	if p.SLO != nil {
		return p.SLO
	}
	return t.SLO
}

// sloField is the limit of one metric: a duration above 0, at most a day
// (results.MaxMS).
func sloField(metric string, set func(*SLO, time.Duration)) field[SLO] {
	return field[SLO]{key: metric, read: func(p *parser, n *yaml.Node, f string, o *SLO) {
		d, ok := p.duration(n, f, "500ms")
		switch {
		case !ok:
		case d <= 0:
			p.fail(n, f, "must be > 0, got %s; e.g. %s", d, sloExample)
		case d > time.Duration(results.MaxMS)*time.Millisecond:
			p.fail(n, f, "%s is longer than a day; e.g. %s", d, sloExample)
		default:
			set(o, d)
		}
	}}
}

var sloFields = []field[SLO]{
	sloField(results.TTFB, func(o *SLO, d time.Duration) { o.TTFB = d }),
	sloField(results.TTFT, func(o *SLO, d time.Duration) { o.TTFT = d }),
	sloField(results.TTFCT, func(o *SLO, d time.Duration) { o.TTFCT = d }),
	sloField(results.ITL, func(o *SLO, d time.Duration) { o.ITL = d }),
	sloField(results.TPOT, func(o *SLO, d time.Duration) { o.TPOT = d }),
	sloField(results.Total, func(o *SLO, d time.Duration) { o.Total = d }),
	sloField(results.MaxStall, func(o *SLO, d time.Duration) { o.MaxStall = d }),
}

const sloExample = "slo: {ttft: 500ms, itl: 50ms}"

// slo reads the slo: of a target or prompt, nil when absent.
func (p *parser) slo(m map[string]*yaml.Node, path string) *SLO {
	n := get(m, "slo")
	if n == nil {
		return nil
	}
	path += ".slo"
	sm, ok := p.mapping(n, path, keysOf(sloFields))
	if !ok {
		return nil
	}
	var o SLO
	readFields(p, sm, path, &o, sloFields...)
	if o == (SLO{}) && len(sm) == 0 {
		p.fail(n, path, "sets no limit; add one or more of %s, e.g. %s", strings.Join(keysOf(sloFields), ", "), sloExample)
		return nil
	}
	return &o
}

// String describes the SLO: "ttft ≤ 500ms, itl ≤ 50ms".
func (o SLO) String() string {
	var parts []string
	for _, l := range []struct {
		name string
		d    time.Duration
	}{{results.TTFB, o.TTFB}, {results.TTFT, o.TTFT}, {results.TTFCT, o.TTFCT}, {results.ITL, o.ITL}, {results.TPOT, o.TPOT}, {results.Total, o.Total}, {results.MaxStall, o.MaxStall}} {
		if l.d > 0 {
			parts = append(parts, fmt.Sprintf("%s ≤ %v", l.name, l.d))
		}
	}
	return strings.Join(parts, ", ")
}
