package config

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/latgate/latgate/internal/suggest"
	"github.com/latgate/latgate/pkg/results"
	"go.yaml.in/yaml/v3"
)

// This file holds the gate section of latgate.yaml: the checks, their
// tolerances, and per-prompt overrides.

// The fields of gate. checks and overrides, lists, are read by hand.
var (
	gateConfidence = pctField("confidence", "95%", pctRange{lo: 0.5, hi: 1, open: true}, "", "95%",
		func(g *Gate, x float64) { g.Confidence = x })
	gateOkConfidence = pctField("ok_confidence", pct(DefaultOkConfidence), pctRange{lo: 0.5, hi: 1, open: true},
		"how sure an ok is that the change is within its tolerance (one-sided)", "90%",
		func(g *Gate, x float64) { g.OkConfidence = x })
	gateResamples = intField("resamples", "2000", 100, 1e6, "2000", "",
		func(g *Gate, x int64) { g.Resamples = int(x) })
	gateSeed = intField("seed", "1", math.MinInt64, math.MaxInt64, "1", "",
		func(g *Gate, x int64) { g.Seed = x })
	gateAggregate = boolField("aggregate", "true",
		func(g *Gate, b bool) { g.Aggregate = b })
	gateDayToDay = pctField("day_to_day", "", pctRange{lo: 0, hi: 1}, // unset: by the endpoint (DayToDayFor)
		"the σ of a run's level from day to day", "2%",
		func(g *Gate, x float64) { g.DayToDay = x })
	gateOnInconclusive = strField("on_inconclusive", OnInconclusiveWarn, OnInconclusiveWarn, func(s string) string {
		valid := []string{OnInconclusivePass, OnInconclusiveWarn, OnInconclusiveFail}
		if !slices.Contains(valid, s) {
			return fmt.Sprintf("%q is not one of %s; e.g. on_inconclusive: warn", s, strings.Join(valid, ", "))
		}
		return ""
	}, func(g *Gate, s string) { g.OnInconclusive = s })
	// max_baseline_age may be in days (see age).
	gateMaxBaselineAge = field[Gate]{key: "max_baseline_age", read: func(p *parser, n *yaml.Node, f string, g *Gate) {
		if d, ok := p.age(n, f); ok {
			g.MaxBaselineAge = d
		}
	}}
)

var gateFields = []field[Gate]{gateConfidence, gateResamples, gateSeed, gateAggregate, hand[Gate]("checks"), hand[Gate]("overrides"),
	gateMaxBaselineAge, gateDayToDay, gateOkConfidence, gateOnInconclusive}

func (p *parser) gate(n *yaml.Node, prompts []Prompt) Gate {
	g := DefaultGate()
	if n == nil {
		return g
	}
	m, ok := p.mapping(n, "gate", keysOf(gateFields))
	if !ok {
		return g
	}
	// Read in this order, not the table's (the order of the keys in
	// messages), so that errors on one line come in the order they always
	// have.
	readFields(p, m, "gate", &g, gateConfidence, gateOkConfidence, gateResamples, gateSeed, gateAggregate,
		gateDayToDay, gateOnInconclusive, gateMaxBaselineAge)
	const checkExample = "checks: [{metric: ttft, stat: p95, tolerance: 20%, floor: 30ms}]"
	if v := get(m, "checks"); v != nil {
		if items, ok := p.list(v, "gate.checks", checkExample); ok {
			if len(items) == 0 {
				p.fail(v, "gate.checks", "empty; list at least one check (%s) or remove the key for the defaults", checkExample)
			}
			g.Checks = nil
			seen := make(map[[2]string]int)
			for i, it := range items {
				f := fmt.Sprintf("gate.checks[%d]", i)
				c, ok := p.check(it, f)
				if !ok {
					continue
				}
				k := [2]string{c.Metric, c.Stat}
				if first, dup := seen[k]; dup {
					p.fail(it, f, "duplicate check %s %s (first at line %d); keep one", c.Metric, c.Stat, first)
					continue
				}
				seen[k] = it.Line
				g.Checks = append(g.Checks, c)
			}
		}
	}
	if v := get(m, "overrides"); v != nil {
		g.Overrides = p.overrides(v, g.Checks, prompts)
	}
	return g
}

// metricStat reads and validates the metric and stat fields of a check
// (shares: where a share metric, which takes no stat, may be named) or of
// an override.
func (p *parser) metricStat(n *yaml.Node, m map[string]*yaml.Node, path string, shares bool) (metric, stat string, ok bool) {
	ok = true
	// A metric that names none leaves it open whether a stat is needed (a
	// share metric takes none): its error is the one to fix.
	unknownMetric := false
	for _, f := range []struct {
		key     string
		allowed []string
		out     *string
	}{{"metric", checkMetrics, &metric}, {"stat", checkStats, &stat}} {
		v := get(m, f.key)
		if v == nil {
			if !unknownMetric {
				p.fail(n, path, "missing required field %s; add e.g. %s: %s", f.key, f.key, f.allowed[1])
			}
			ok = false
			continue
		}
		s, sok := p.str(v, path+"."+f.key, f.allowed[1])
		if !sok {
			ok = false
			continue
		}
		if f.key == "metric" && !slices.Contains(f.allowed, s) {
			p.fail(v, path+".metric", "%s", notAMetric(s, shares))
			unknownMetric = true
			ok = false
			continue
		}
		if !slices.Contains(f.allowed, s) {
			p.fail(v, path+"."+f.key, "%q is not a %s; use one of %s", s, f.key, strings.Join(f.allowed, ", "))
			ok = false
			continue
		}
		*f.out = s
	}
	return metric, stat, ok
}

// notAMetric is the error for metric s, none that a check (shares: with
// the share metrics) or an override may name: the closest name, else all.
func notAMetric(s string, shares bool) string {
	names := checkMetrics
	if shares {
		names = append(slices.Clone(checkMetrics), results.ShareMetrics()...)
	}
	if c := suggest.Closest(s, names); c != "" {
		return fmt.Sprintf("%q is not a metric; did you mean %q?", s, c)
	}
	msg := fmt.Sprintf("%q is not a metric; use one of %s", s, strings.Join(checkMetrics, ", "))
	if shares {
		msg += fmt.Sprintf(", or a share of requests (no stat): %s", strings.Join(results.ShareMetrics(), ", "))
	}
	return msg
}

// tolerance reads tolerance and floor into t, reporting whether any was set.
// The floor of metric tokens_per_s is a rate in tokens/s (a plain number),
// of every other metric a duration.
func (p *parser) tolerance(m map[string]*yaml.Node, path, metric string, t *Tolerance) (set, ok bool) {
	ok = true
	if v := get(m, "tolerance"); v != nil {
		set = true
		if x, xok := p.fraction(v, path+".tolerance", "20%"); !xok {
			ok = false
		} else if x < 0 {
			p.fail(v, path+".tolerance", "must be >= 0%%; e.g. tolerance: 20%%")
			ok = false
		} else {
			t.Rel = x
		}
	}
	if v := get(m, "floor"); v != nil && metric == results.TokensPerS {
		set = true
		if x, xok := p.rateFloor(v, path+".floor"); !xok {
			ok = false
		} else {
			t.FloorRate = x
		}
	} else if v != nil {
		set = true
		if d, dok := p.duration(v, path+".floor", "30ms"); !dok {
			ok = false
		} else if d < 0 {
			p.fail(v, path+".floor", "must be >= 0, got %s; e.g. floor: 30ms", d)
			ok = false
		} else {
			t.Floor = d
		}
	}
	return set, ok
}

// rateFloor reads the floor of a tokens_per_s check: a number of tokens per
// second, optionally written with the unit ("5", "5 tok/s", "5 tokens/s").
// A duration is refused: a rate's floor is not in ms.
func (p *parser) rateFloor(n *yaml.Node, field string) (float64, bool) {
	const fix = "tokens_per_s is a rate, so its floor is in tokens/s, not a duration: a drop smaller than the floor is never a regression; write e.g. floor: 5 (tokens/s) or remove it"
	if n.Kind != yaml.ScalarNode {
		p.fail(n, field, "want a number of tokens/s, got %s; %s", describe(n), fix)
		return 0, false
	}
	v := strings.TrimSpace(n.Value)
	for _, unit := range []string{"tokens/s", "tok/s"} {
		v = strings.TrimSpace(strings.TrimSuffix(v, unit))
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || x != x || x > 1e12 {
		p.fail(n, field, "%s: %s", describe(n), fix)
		return 0, false
	}
	if x < 0 {
		p.fail(n, field, "must be >= 0, got %s; e.g. floor: 5 (tokens/s)", n.Value)
		return 0, false
	}
	return x, true
}

var checkKeys = []string{"metric", "stat", "tolerance", "floor"}

func (p *parser) check(n *yaml.Node, path string) (Check, bool) {
	if n.Kind == yaml.MappingNode {
		if mv := mappingValue(n, "metric"); mv != nil && mv.Kind == yaml.ScalarNode && results.IsShare(mv.Value) {
			return p.shareCheck(n, path) // schema_shares.go
		}
	}
	// A metric that names none (a typo of slo_attainment) leaves open which
	// fields the check takes: a share's min: and off: are no unknown keys,
	// a missing tolerance and a floor's unit are not errors of their own.
	keys := append(slices.Clone(checkKeys), "max")
	unknownMetric := false
	if d := deref(n); d != nil && d.Kind == yaml.MappingNode {
		if mv := mappingValue(d, "metric"); mv != nil && mv.Kind == yaml.ScalarNode && !slices.Contains(checkMetrics, mv.Value) {
			unknownMetric = true
			keys = append(keys, "min", "off")
		}
	}
	m, ok := p.mapping(n, path, keys)
	if !ok {
		return Check{}, false
	}
	if v := get(m, "max"); v != nil {
		// A limit is a duration: say so before the generic metric error.
		if mv := get(m, "metric"); mv != nil && mv.Kind == yaml.ScalarNode && !unknownMetric && !slices.Contains(results.DurationMetrics(), mv.Value) {
			p.fail(mv, path+".metric", "max is a duration limit and %q is not a duration metric; use max with one of %s (tokens_per_s: gate a drop with tolerance:, or put the max on tpot, its reciprocal)",
				mv.Value, strings.Join(results.DurationMetrics(), ", "))
			return Check{}, false
		}
	}
	metric, stat, ok := p.metricStat(n, m, path, true)
	if unknownMetric {
		return Check{}, false // metricStat said why; the rest depends on the metric
	}
	c := Check{Metric: metric, Stat: stat}
	if v := get(m, "max"); v != nil {
		if d, dok := p.duration(v, path+".max", "800ms"); !dok {
			ok = false
		} else if d <= 0 {
			p.fail(v, path+".max", "must be > 0, got %s; e.g. max: 800ms", d)
			ok = false
		} else {
			c.Max = d
		}
	}
	if get(m, "tolerance") == nil {
		if get(m, "max") == nil {
			p.fail(n, path, "missing required field tolerance; add e.g. tolerance: 20%% (and floor: 30ms), or an absolute limit max: 800ms")
			ok = false
		} else if get(m, "floor") != nil {
			p.fail(get(m, "floor"), path+".floor", "a floor belongs to a tolerance, and this check has only max; add e.g. tolerance: 20%% or remove floor")
			ok = false
		} else {
			c.MaxOnly = true
		}
	}
	_, tok := p.tolerance(m, path, metric, &c.Tolerance)
	return c, ok && tok
}

func (p *parser) overrides(n *yaml.Node, checks []Check, prompts []Prompt) []Override {
	const example = "overrides: [{prompt: rag-long, metric: ttft, stat: p95, tolerance: 40%, floor: 60ms}]"
	items, ok := p.list(n, "gate.overrides", example)
	if !ok {
		return nil
	}
	var out []Override
	seen := make(map[[3]string]int)
	for i, it := range items {
		path := fmt.Sprintf("gate.overrides[%d]", i)
		m, ok := p.mapping(it, path, append([]string{"prompt"}, checkKeys...))
		if !ok {
			continue
		}
		o := Override{Line: it.Line}
		if v := get(m, "prompt"); v == nil {
			p.fail(it, path, "missing required field prompt; add the id of a prompt, e.g. prompt: rag-long")
			ok = false
		} else if s, sok := p.str(v, path+".prompt", "rag-long"); sok {
			o.Prompt = s
			if !slices.ContainsFunc(prompts, func(pr Prompt) bool { return pr.ID == s }) {
				ids := make([]string, len(prompts))
				for j, pr := range prompts {
					ids[j] = pr.ID
				}
				p.fail(v, path+".prompt", "no prompt has id %q; use one of %s", s, strings.Join(ids, ", "))
				ok = false
			}
		} else {
			ok = false
		}
		metric, stat, msok := p.metricStat(it, m, path, false)
		o.Metric, o.Stat = metric, stat
		if msok {
			i := slices.IndexFunc(checks, func(c Check) bool { return c.Metric == metric && c.Stat == stat })
			if i < 0 {
				p.fail(it, path, "no check gates %s %s, so there is nothing to override; add it to gate.checks or use a checked metric/stat", metric, stat)
				ok = false
			} else if checks[i].MaxOnly {
				p.fail(it, path, "the check %s %s has only max, no tolerance to override; add a tolerance to the check (beside its max) to compare it with the baseline", metric, stat)
				ok = false
			} else {
				o.Tolerance = checks[i].Tolerance // unset fields inherit from the check
			}
		}
		set, tok := p.tolerance(m, path, metric, &o.Tolerance)
		if !set {
			p.fail(it, path, "sets neither tolerance nor floor; add e.g. tolerance: 40%%, floor: 60ms")
		}
		if !ok || !msok || !tok || !set {
			continue
		}
		k := [3]string{o.Prompt, o.Metric, o.Stat}
		if first, dup := seen[k]; dup {
			p.fail(it, path, "duplicate override for %s %s %s (first at line %d); keep one", o.Prompt, o.Metric, o.Stat, first)
			continue
		}
		seen[k] = it.Line
		out = append(out, o)
	}
	return out
}

// credentialHeader reports header names that carry credentials (api-key,
// X-Api-Key, X-Auth-Token, Proxy-Authorization, ...).
func credentialHeader(canon string) bool {
	l := strings.ToLower(canon)
	for _, w := range []string{"key", "token", "secret", "auth", "password", "cookie"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// age reads a duration that may be in days ("30d") as well as Go's units ("720h").
func (p *parser) age(n *yaml.Node, field string) (time.Duration, bool) {
	if n.Kind == yaml.ScalarNode && strings.HasSuffix(n.Value, "d") {
		days, err := strconv.ParseFloat(strings.TrimSuffix(n.Value, "d"), 64)
		d := time.Duration(days * 24 * float64(time.Hour))
		if err != nil || !(days > 0 && days <= 3650) || d <= 0 { // NaN fails days > 0
			p.fail(n, field, "%q is not an age; write a positive number of days (at most 3650) or a duration, e.g. %s: 30d", n.Value, key(field))
			return 0, false
		}
		return d, true
	}
	d, ok := p.duration(n, field, "30d")
	if ok && d <= 0 {
		p.fail(n, field, "must be > 0, got %s; e.g. %s: 30d", d, key(field))
		return 0, false
	}
	return d, ok
}
