package config

import "go.yaml.in/yaml/v3"

// This file holds the knee section of latgate.yaml: how far a target's
// capacity, the knee `latgate sweep` finds, may fall before `latgate trend`
// fails the nightly.

// Knee is how `latgate trend` holds the knee that sweeps record.
type Knee struct {
	// Tolerance is how far below its reference the knee may fall (0.15:
	// 15%) before trend calls it a regression.
	Tolerance float64
}

var kneeTolerance = pctField("tolerance", "15%", pctRange{lo: 0, hi: 1, open: true}, "how far the knee may fall below its reference", "15%",
	func(k *Knee, x float64) { k.Tolerance = x })

var kneeFields = []field[Knee]{kneeTolerance}

func (p *parser) knee(n *yaml.Node) Knee {
	k := defaults(kneeFields)
	if n == nil {
		return k
	}
	m, ok := p.mapping(n, "knee", keysOf(kneeFields))
	if !ok {
		return k
	}
	readFields(p, m, "knee", &k, kneeFields...)
	return k
}
