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

var sloKeys = []string{results.TTFB, results.TTFT, results.TTFCT, results.ITL, results.TPOT, results.Total, results.MaxStall}

const sloExample = "slo: {ttft: 500ms, itl: 50ms}"

// slo reads the slo: of a target or prompt, nil when absent.
func (p *parser) slo(m map[string]*yaml.Node, path string) *SLO {
	n := get(m, "slo")
	if n == nil {
		return nil
	}
	path += ".slo"
	sm, ok := p.mapping(n, path, sloKeys)
	if !ok {
		return nil
	}
	var o SLO
	slots := map[string]*time.Duration{results.TTFB: &o.TTFB, results.TTFT: &o.TTFT, results.TTFCT: &o.TTFCT,
		results.ITL: &o.ITL, results.TPOT: &o.TPOT, results.Total: &o.Total, results.MaxStall: &o.MaxStall}
	for _, k := range sloKeys {
		v := get(sm, k)
		if v == nil {
			continue
		}
		d, dok := p.duration(v, path+"."+k, "500ms")
		switch {
		case !dok:
		case d <= 0:
			p.fail(v, path+"."+k, "must be > 0, got %s; e.g. %s", d, sloExample)
		case d > time.Duration(results.MaxMS)*time.Millisecond:
			p.fail(v, path+"."+k, "%s is longer than a day; e.g. %s", d, sloExample)
		default:
			*slots[k] = d
		}
	}
	if o == (SLO{}) && len(sm) == 0 {
		p.fail(n, path, "sets no limit; add one or more of %s, e.g. %s", strings.Join(sloKeys, ", "), sloExample)
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
