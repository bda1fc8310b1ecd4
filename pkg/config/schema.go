package config

import (
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"
)

// This file holds the schema's field tables: each section of latgate.yaml
// (run, gate, a target, slo, price) lists its keys once, in a table of
// fields, with each scalar key's type, bounds, default and example. The
// table is the section's one list of keys: what p.mapping allows, what an
// unknown key's message lists (in the table's order) and what
// docs/config.md is checked against (TestDocsKeys).
//
// A key whose value needs more than a type and bounds is a field with a
// read function of its own (max_baseline_age, a duration that may be in
// days), or, for a list, a mapping, or a value checked against other keys,
// a hand field: in the table, so that it is allowed and listed, and read
// by hand-written code in the section's function.
//
// What each key means is docs/config.md's to say: the tests check it
// against the tables rather than keep a second copy of the text here.

// field is one key of a section whose values are kept in an S (Run, Gate,
// Target, SLO, Price).
type field[S any] struct {
	key string
	// def is the default as latgate.yaml spells it ("60s", "95%"), "" for
	// none. It is read like a value, so it passes the field's own bounds,
	// and docs/config.md shows it as written (TestDocsDefaults).
	def string
	// read checks the value at n and keeps it in s; nil for a key read by
	// hand-written code.
	read func(p *parser, n *yaml.Node, field string, s *S)
}

// hand is a key read by hand-written code in its section's function.
func hand[S any](key string) field[S] { return field[S]{key: key} }

// keysOf returns the keys of a section's table, in its order.
func keysOf[S any](fields []field[S]) []string {
	keys := make([]string, len(fields))
	for i, f := range fields {
		keys[i] = f.key
	}
	return keys
}

// defaults returns an S holding the default of each field that has one.
func defaults[S any](fields []field[S]) S {
	var s S
	p := &parser{path: "defaults"}
	for _, f := range fields {
		if f.def != "" && f.read != nil {
			f.read(p, &yaml.Node{Kind: yaml.ScalarNode, Value: f.def}, f.key, &s)
		}
	}
	if err := p.err(); err != nil {
		panic("config: a default outside its own field's bounds: " + err.Error()) // see TestTableDefaults
	}
	return s
}

// readFields reads the given fields of a section from its mapping m, in
// the order given, and keeps their values in s. An absent or null key
// keeps what s holds (its default).
func readFields[S any](p *parser, m map[string]*yaml.Node, path string, s *S, fields ...field[S]) {
	for _, f := range fields {
		if v := get(m, f.key); v != nil {
			f.read(p, v, join(path, f.key), s)
		}
	}
}

// intField is an integer key in [lo, hi]. note follows the example in the
// message of a value out of bounds, e.g. " (0 disables warmup)".
func intField[S any](key, def string, lo, hi int64, example, note string, set func(*S, int64)) field[S] {
	return field[S]{key: key, def: def, read: func(p *parser, n *yaml.Node, f string, s *S) {
		x, ok := p.integer(n, f, example)
		if !ok {
			return
		}
		if x < lo || x > hi {
			p.fail(n, f, "must be between %d and %d, got %d; e.g. %s: %s%s", lo, hi, x, key, example, note)
			return
		}
		set(s, x)
	}}
}

// numField is a number key in [lo, hi]; note as intField's.
func numField[S any](key, def string, lo, hi float64, example, note string, set func(*S, float64)) field[S] {
	return field[S]{key: key, def: def, read: func(p *parser, n *yaml.Node, f string, s *S) {
		x, ok := p.number(n, f, example)
		if !ok {
			return
		}
		if x < lo || x > hi {
			p.fail(n, f, "must be between %v and %v, got %v; e.g. %s: %s%s", lo, hi, x, key, example, note)
			return
		}
		set(s, x)
	}}
}

// pctRange bounds a percentage key: [lo, hi], or (lo, hi) when open.
type pctRange struct {
	lo, hi float64
	open   bool
}

// pctField is a percentage key (see parser.fraction) within r. why, when
// not "", says after the bounds what the value is.
func pctField[S any](key, def string, r pctRange, why, example string, set func(*S, float64)) field[S] {
	bounds := "between " + pct(r.lo) + " and " + pct(r.hi)
	if r.open {
		bounds = "above " + pct(r.lo) + " and below " + pct(r.hi)
	}
	if why != "" {
		bounds += ": " + why
	}
	return field[S]{key: key, def: def, read: func(p *parser, n *yaml.Node, f string, s *S) {
		x, ok := p.fraction(n, f, example)
		if !ok {
			return
		}
		if r.open && (x <= r.lo || x >= r.hi) || !r.open && (x < r.lo || x > r.hi) {
			p.fail(n, f, "must be %s; e.g. %s: %s", bounds, key, example)
			return
		}
		set(s, x)
	}}
}

// pct writes a fraction as a percentage: 0.5 is "50%".
func pct(x float64) string { return strconv.FormatFloat(x*100, 'f', -1, 64) + "%" }

// durField is a duration key above 0 and at most hi.
func durField[S any](key, def string, hi time.Duration, example string, set func(*S, time.Duration)) field[S] {
	return field[S]{key: key, def: def, read: func(p *parser, n *yaml.Node, f string, s *S) {
		d, ok := p.duration(n, f, example)
		if !ok {
			return
		}
		if d <= 0 || d > hi {
			p.fail(n, f, "must be above 0 and at most %s, got %s; e.g. %s: %s", hi, d, key, example)
			return
		}
		set(s, d)
	}}
}

// boolField is a true-or-false key.
func boolField[S any](key, def string, set func(*S, bool)) field[S] {
	return field[S]{key: key, def: def, read: func(p *parser, n *yaml.Node, f string, s *S) {
		if b, ok := p.boolean(n, f); ok {
			set(s, b)
		}
	}}
}

// strField is a one-line text key (see parser.str). check, when not nil,
// returns what is wrong with a value, "" when nothing is.
func strField[S any](key, def, example string, check func(string) string, set func(*S, string)) field[S] {
	return field[S]{key: key, def: def, read: func(p *parser, n *yaml.Node, f string, s *S) {
		v, ok := p.str(n, f, example)
		if !ok {
			return
		}
		if check != nil {
			if problem := check(v); problem != "" {
				p.fail(n, f, "%s", problem)
				return
			}
		}
		set(s, v)
	}}
}
