package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/latgate/latgate/internal/sanitize"
	"github.com/latgate/latgate/internal/suggest"
)

// deref follows aliases.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// get returns the value of key, or nil when it is absent or null.
func get(m map[string]*yaml.Node, key string) *yaml.Node {
	n := m[key]
	if isNull(n) {
		return nil
	}
	return n
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// describe names what a node holds, for "want X, got Y" messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		v := n.Value
		if len(v) > 40 {
			v = v[:40] + "…"
		}
		switch n.ShortTag() {
		case "!!null":
			return "null"
		case "!!bool":
			return "the boolean " + v
		case "!!int", "!!float":
			return "the number " + v
		case "!!str":
			return strconv.Quote(v)
		}
		return fmt.Sprintf("%s %q", n.ShortTag(), v)
	}
	return "an unsupported YAML node"
}

// mapping checks that n is a mapping holding only the given keys and returns
// its values by key. Merge keys (<<) are honoured; explicit keys win. A null
// node is an empty mapping.
func (p *parser) mapping(n *yaml.Node, path string, keys []string) (map[string]*yaml.Node, bool) {
	n = deref(n)
	if isNull(n) {
		return map[string]*yaml.Node{}, true
	}
	if n.Kind != yaml.MappingNode {
		where := ""
		if path == "" {
			where = " at the top level"
		}
		p.fail(n, path, "want a mapping (key: value lines)%s, got %s", where, describe(n))
		return nil, false
	}
	m := make(map[string]*yaml.Node)
	lines := make(map[string]int)
	var merged []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			p.fail(k, path, "keys must be plain names, got %s", describe(k))
			continue
		}
		if k.ShortTag() == "!!merge" {
			merged = append(merged, v)
			continue
		}
		key := k.Value
		if first, dup := lines[key]; dup {
			p.fail(k, join(path, key), "duplicate key (first at line %d); keep one", first)
			continue
		}
		lines[key] = k.Line
		if !slices.Contains(keys, key) {
			p.unknown(k, path, keys)
			continue
		}
		m[key] = v
	}
	for _, v := range merged {
		v = deref(v)
		srcs := []*yaml.Node{v}
		if v.Kind == yaml.SequenceNode {
			srcs = v.Content
		}
		for _, src := range srcs {
			if p.merges++; p.merges > maxExtraNodes {
				if p.merges == maxExtraNodes+1 {
					p.fail(src, path, "too many merges (<<); simplify the anchors")
				}
				return m, true
			}
			if src = deref(src); src.Kind != yaml.MappingNode {
				p.fail(src, path, "<< (merge) wants a mapping or a list of mappings, got %s", describe(src))
				continue
			}
			if src == n || p.merging[src] {
				p.fail(src, path, "<< (merge) includes the mapping it is in; remove the cycle")
				continue
			}
			if p.merging == nil {
				p.merging = make(map[*yaml.Node]bool)
			}
			p.merging[n] = true
			sm, _ := p.mapping(src, path, keys)
			delete(p.merging, n)
			for k, sv := range sm {
				if _, ok := m[k]; !ok {
					m[k] = sv
				}
			}
		}
	}
	return m, true
}

// looksLikeSecret reports whether a key looks like it holds a credential.
func looksLikeSecret(key string) bool {
	k := strings.NewReplacer("_", "", "-", "", ".", "").Replace(strings.ToLower(key))
	switch k {
	case "apikey", "key", "token", "apitoken", "accesstoken", "secret", "password", "bearer", "authorization", "openaiapikey":
		return true
	}
	return false
}

func (p *parser) unknown(k *yaml.Node, path string, keys []string) {
	field := join(path, k.Value)
	if looksLikeSecret(k.Value) && slices.Contains(keys, "api_key_env") {
		p.fail(k, field, "API keys never go in the config file; remove this key, put the key in an environment variable and name it with api_key_env (e.g. api_key_env: OPENAI_API_KEY)")
		return
	}
	if looksLikeSecret(k.Value) {
		p.fail(k, field, "credentials never go in the config file; remove this key and set api_key_env on the target to the name of an environment variable holding the key")
		return
	}
	if s := suggest.Closest(k.Value, keys); s != "" {
		p.fail(k, field, "unknown key %q; did you mean %q?", k.Value, s)
		return
	}
	p.fail(k, field, "unknown key %q; valid keys here: %s", k.Value, strings.Join(keys, ", "))
}

// list checks that n is a list and returns its items, aliases followed.
func (p *parser) list(n *yaml.Node, field, example string) ([]*yaml.Node, bool) {
	n = deref(n)
	if n.Kind != yaml.SequenceNode {
		p.fail(n, field, "want a list, got %s; e.g. %s", describe(n), example)
		return nil, false
	}
	items := make([]*yaml.Node, len(n.Content))
	for i, it := range n.Content {
		items[i] = deref(it)
	}
	return items, true
}

func key(field string) string {
	if i := strings.LastIndexByte(field, '.'); i >= 0 {
		return field[i+1:]
	}
	return field
}

// scalar checks that n is a scalar with one of the given tags.
func (p *parser) scalar(n *yaml.Node, field, want, example string, tags ...string) (*yaml.Node, bool) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode || len(tags) > 0 && !slices.Contains(tags, n.ShortTag()) {
		p.fail(n, field, "want %s, got %s; e.g. %s: %s", want, describe(n), key(field), example)
		return nil, false
	}
	return n, true
}

// str returns the literal text of a scalar (numbers are kept as written)
// that must be one line of printable text: every text field of the config
// but a message's content (see payload) is printed somewhere, to a terminal,
// a report, Markdown or a workflow command, so a line break, a terminal
// escape or a bidirectional override is refused here, at its line, before
// anything is measured (see text).
func (p *parser) str(n *yaml.Node, field, example string) (string, bool) {
	n, ok := p.scalar(n, field, "a string", example)
	if !ok {
		return "", false
	}
	if !p.text(n, field, n.Value) {
		return "", false
	}
	return n.Value, true
}

// payload returns the literal text of a scalar that is sent, not printed:
// a message's content, which may hold line breaks and anything else.
func (p *parser) payload(n *yaml.Node, field, example string) (string, bool) {
	n, ok := p.scalar(n, field, "a string", example)
	if !ok {
		return "", false
	}
	return n.Value, true
}

// text is the one rule for the config's text fields: s must be one line of
// printable text (sanitize.Unprintable). It records the problem at n and
// reports whether s passed.
func (p *parser) text(n *yaml.Node, field, s string) bool {
	at, shown := sanitize.FirstUnprintable(s)
	if at < 0 {
		return true
	}
	p.fail(n, field, "holds %s (%s) at byte %d; a config value is one line of printable text, as it is printed in terminals, reports and Markdown: remove it",
		unprintableName(shown), shown, at)
	return false
}

// unprintableName names a character as sanitize.Line shows it.
func unprintableName(shown string) string {
	switch {
	case shown == `\n` || shown == `\r`:
		return "a line break"
	case shown == `\t`:
		return "a tab"
	case shown == `\x1b`:
		return "a terminal escape"
	case shown == `\ufeff`:
		return "a byte-order mark"
	case shown == `\u2028` || shown == `\u2029`:
		return "a line separator"
	case strings.HasPrefix(shown, `\u`):
		return "a bidirectional control"
	case shown == "\ufffd":
		return "a byte that is not UTF-8"
	}
	return "a control character"
}

func (p *parser) integer(n *yaml.Node, field, example string) (int64, bool) {
	n, ok := p.scalar(n, field, "an integer", example, "!!int")
	if !ok {
		return 0, false
	}
	var v int64
	if err := n.Decode(&v); err != nil {
		p.fail(n, field, "want an integer, got %s (out of range?); e.g. %s: %s", describe(n), key(field), example)
		return 0, false
	}
	return v, true
}

func (p *parser) boolean(n *yaml.Node, field string) (bool, bool) {
	n, ok := p.scalar(n, field, "true or false", "true", "!!bool")
	if !ok {
		return false, false
	}
	var v bool
	err := n.Decode(&v)
	return v, err == nil
}

func (p *parser) number(n *yaml.Node, field, example string) (float64, bool) {
	n, ok := p.scalar(n, field, "a number", example, "!!int", "!!float")
	if !ok {
		return 0, false
	}
	var v float64
	if err := n.Decode(&v); err != nil || v != v || v > 1e300 || v < -1e300 {
		p.fail(n, field, "want a finite number, got %s; e.g. %s: %s", describe(n), key(field), example)
		return 0, false
	}
	return v, true
}

// duration parses a Go duration such as 60s or 250ms.
func (p *parser) duration(n *yaml.Node, field, example string) (time.Duration, bool) {
	n, ok := p.scalar(n, field, "a duration", example, "!!str", "!!int", "!!float")
	if !ok {
		return 0, false
	}
	d, err := time.ParseDuration(n.Value)
	if err != nil {
		// The hint repeats the number with a unit only when that would be
		// a valid duration: never "-1d" or "NaNd".
		if v, nerr := strconv.ParseFloat(n.Value, 64); nerr == nil && v > 0 && v <= 1e9 {
			unit := strings.TrimLeft(example, "0123456789.") // a floor suggests ms, a timeout s
			p.fail(n, field, "%s has no unit; add a unit, e.g. %s%s", n.Value, n.Value, unit)
		} else if nerr == nil {
			p.fail(n, field, "%s is not a duration; write a positive number with a unit (ns, us, ms, s, m, h), e.g. %s: %s", describe(n), key(field), example)
		} else {
			p.fail(n, field, "%s is not a duration; write a number with a unit (ns, us, ms, s, m, h), e.g. %s: %s", describe(n), key(field), example)
		}
		return 0, false
	}
	return d, true
}

// fraction parses "5%" or a plain fraction such as 0.05. A plain number above
// 1 or more is refused as ambiguous: 20 means 20% to most people, not
// 2000%, and 1 may mean 1% as easily as 100%.
func (p *parser) fraction(n *yaml.Node, field, example string) (float64, bool) {
	n, ok := p.scalar(n, field, "a percentage", example, "!!str", "!!int", "!!float")
	if !ok {
		return 0, false
	}
	s := strings.TrimSpace(n.Value)
	if num, isPct := strings.CutSuffix(s, "%"); isPct {
		v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || v != v || v > 1e6 || v < -1e6 {
			p.fail(n, field, "%s is not a percentage; write e.g. %s: %s", describe(n), key(field), example)
			return 0, false
		}
		return v / 100, true
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v != v || v > 1e6 || v < -1e6 {
		p.fail(n, field, "%s is not a percentage; write a percentage like %s or a fraction like 0.05", describe(n), example)
		return 0, false
	}
	if v >= 1 && v != 0 { // "1" reads as 1% as easily as 100%
		p.fail(n, field, "%s is ambiguous; write %s%% for a percentage or a fraction below 1 (e.g. 0.05)", s, s)
		return 0, false
	}
	return v, true
}
