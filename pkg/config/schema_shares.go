package config

import (
	"strings"

	"github.com/latgate/latgate/pkg/results"
	"go.yaml.in/yaml/v3"
)

// This file holds the gate checks of share metrics (results.ShareMetrics:
// stream_integrity, cache_hit_rate, slo_attainment): a share of requests,
// higher is better, checked against the baseline in points (tolerance:) or
// held to a minimum (min:), e.g.
//
//	gate:
//	  checks:
//	    - {metric: slo_attainment, min: 95%}
//	    - {metric: cache_hit_rate, tolerance: 10%, min: 80%}
//	    - {metric: stream_integrity, off: true}

var shareKeys = []string{"metric", "stat", "tolerance", "min", "off"}

const shareExample = "{metric: slo_attainment, min: 95%}"

// mappingValue returns the value of key in mapping node n, nil when absent.
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func (p *parser) shareCheck(n *yaml.Node, path string) (Check, bool) {
	if v := mappingValue(n, "max"); v != nil {
		p.fail(v, path+".max", "%s is a share of requests, higher is better: hold it to a minimum with min: (e.g. %s), not max", mappingValue(n, "metric").Value, shareExample)
		return Check{}, false
	}
	if v := mappingValue(n, "floor"); v != nil {
		p.fail(v, path+".floor", "%s is a share, not a duration: it has no floor; its tolerance is in points of the share (tolerance: 10%%)", mappingValue(n, "metric").Value)
		return Check{}, false
	}
	m, ok := p.mapping(n, path, shareKeys)
	if !ok {
		return Check{}, false
	}
	c := Check{Metric: mappingValue(n, "metric").Value, Stat: "share"}
	if v := get(m, "stat"); v != nil {
		if s, sok := p.str(v, path+".stat", "share"); sok && s != "share" {
			p.fail(v, path+".stat", "%q: a share metric has one statistic, the share of requests; remove stat (or write stat: share)", s)
			ok = false
		}
	}
	if v := get(m, "off"); v != nil {
		b, bok := p.boolean(v, path+".off")
		ok = ok && bok
		c.Off = b
		if b && (get(m, "tolerance") != nil || get(m, "min") != nil) {
			p.fail(v, path+".off", "a check that is off takes no tolerance or min; remove them, or off")
			ok = false
		}
		if b {
			return c, ok
		}
	}
	if v := get(m, "tolerance"); v != nil {
		if x, xok := p.fraction(v, path+".tolerance", "10%"); !xok {
			ok = false
		} else if x < 0 || x > 1 {
			p.fail(v, path+".tolerance", "must be between 0%% and 100%% (points of the share); e.g. tolerance: 10%%")
			ok = false
		} else {
			c.Tolerance.Rel = x
		}
	}
	if v := get(m, "min"); v != nil {
		if x, xok := p.fraction(v, path+".min", "95%"); !xok {
			ok = false
		} else if x <= 0 || x > 1 {
			p.fail(v, path+".min", "must be above 0%% and at most 100%%; e.g. min: 95%%")
			ok = false
		} else {
			c.Min = x
			c.MinOnly = get(m, "tolerance") == nil
		}
	}
	if get(m, "tolerance") == nil && get(m, "min") == nil && get(m, "off") == nil {
		p.fail(n, path, "missing tolerance or min: check %s against the baseline in points (tolerance: 10%%), hold it to a minimum (min: 95%%), or turn latgate's own check off (off: true); share metrics: %s",
			c.Metric, strings.Join(results.ShareMetrics(), ", "))
		ok = false
	}
	return c, ok
}
