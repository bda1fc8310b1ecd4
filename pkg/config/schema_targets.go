package config

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/latgate/latgate/internal/sanitize"
	"github.com/latgate/latgate/pkg/results"
)

// This file holds the targets section of latgate.yaml: names, base URLs,
// models, parameters and headers.

var (
	namePattern = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)
	envPattern  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// The fields of a target. Most are read by hand in target: api first (the
// defaults of base_url and api_key_env depend on it), name and model are
// required (model but for the simulator), base_url may come from the
// environment, api_key_env is never echoed, and headers, extra_body, sse,
// slo and price are mappings.
var (
	targetRegion    = strField("region", "", "eu-west", nil, func(t *Target, s string) { t.Region = s })
	targetMaxTokens = intField("max_tokens", "64", 1, results.MaxTokens, "64", " (the default)",
		func(t *Target, x int64) { t.MaxTokens = int(x) })
	targetTemperature = numField("temperature", "", 0, 2, "0", ", or remove it for the server's default",
		func(t *Target, x float64) { t.Temperature = &x })
	targetIncludeUsage = boolField("include_usage", "true",
		func(t *Target, b bool) { t.IncludeUsage = b })
	targetMaxErrorRate = pctField("max_error_rate", "5%", pctRange{lo: 0, hi: 1}, "", "5%",
		func(t *Target, x float64) { t.MaxErrorRate = x })
)

var targetFields = []field[Target]{hand[Target]("name"), targetRegion, hand[Target]("api"), hand[Target]("base_url"), hand[Target]("model"),
	hand[Target]("api_key_env"), targetMaxTokens, targetTemperature, hand[Target]("headers"), hand[Target]("extra_body"),
	targetIncludeUsage, targetMaxErrorRate, hand[Target]("sse"), hand[Target]("ndjson"), hand[Target]("slo"), hand[Target]("price"), hand[Target]("serve")}

const targetExample = "targets: [{name: primary, base_url: https://api.openai.com/v1, model: gpt-4o-mini}]"

func (p *parser) targets(root, n *yaml.Node) []Target {
	if n == nil {
		p.fail(root, "targets", "missing; add at least one target, e.g. %s (base_url: sim measures the built-in simulator)", targetExample)
		return nil
	}
	items, ok := p.list(n, "targets", targetExample)
	if !ok {
		return nil
	}
	if len(items) == 0 {
		p.fail(n, "targets", "empty; add at least one target, e.g. %s", targetExample)
	}
	var out []Target
	seen := make(map[string]int)
	for i, it := range items {
		t, ok := p.target(it, fmt.Sprintf("targets[%d]", i))
		if !ok {
			continue
		}
		if first, dup := seen[t.Name]; dup && t.Name != "" {
			p.fail(it, fmt.Sprintf("targets[%d].name", i), "duplicate target name %q (first at line %d); names must be unique", t.Name, first)
		}
		seen[t.Name] = t.Line
		out = append(out, t)
	}
	return out
}

// reservedBody are request fields latgate sets itself, with how to set
// them: those of every API, and each API's own.
var reservedBody = map[string]string{
	"model":       "set the target's model instead",
	"messages":    "write them in the prompts section instead",
	"stream":      "remove it: latgate always streams",
	"max_tokens":  "set the target's max_tokens instead",
	"temperature": "set the target's temperature instead",
	"tools":       "declare them with the prompt (prompts[].tools) instead",
	"tool_choice": "set the prompt's tool_choice instead",
}

var reservedByAPI = map[string]map[string]string{
	APIChat:      {"stream_options": "set the target's include_usage instead"},
	APIResponses: {"input": "write it in the prompts section instead", "instructions": "write a system message in the prompt instead", "max_output_tokens": "set the target's max_tokens instead"},
	APIAnthropic: {"system": "write a system message in the prompt instead"},
	APIGemini:    {"contents": "write them in the prompts section instead", "systemInstruction": "write a system message in the prompt instead"},
}

// reserved returns how to set a body field latgate sets itself for api, or
// "" when extra_body may set it.
func reserved(api, field string) string {
	if fix, ok := reservedByAPI[api][field]; ok {
		return fix
	}
	if api == APIGemini && field != "model" && field != "messages" {
		return "" // Gemini names these fields differently (generationConfig)
	}
	return reservedBody[field]
}

func (p *parser) target(n *yaml.Node, path string) (Target, bool) {
	m, ok := p.mapping(n, path, keysOf(targetFields))
	if !ok {
		return Target{}, false
	}
	t := defaults(targetFields)
	t.Line = n.Line
	p.api(m, path, &t)
	t.APIKeyEnv = apiDefaults[t.API].keyEnv
	if v := get(m, "name"); v == nil {
		p.fail(n, path, "missing required field name; add e.g. name: primary")
	} else if s, ok := p.str(v, path+".name", "primary"); ok {
		if !namePattern.MatchString(s) {
			p.fail(v, path+".name", "%q has characters outside A-Z a-z 0-9 . _ -; use e.g. name: primary", s)
		}
		t.Name = s
	}
	readFields(p, m, path, &t, targetRegion)
	field := path + ".base_url"
	switch v := get(m, "base_url"); {
	case v != nil:
		if s, ok := p.str(v, field, DefaultBaseURL); ok {
			t.BaseURL = p.baseURL(v, field, s)
		}
	case (t.API == APIChat || t.API == APIResponses) && p.getenv("OPENAI_BASE_URL") != "":
		if env := p.getenv("OPENAI_BASE_URL"); p.text(n, field+" (from $OPENAI_BASE_URL)", env) {
			t.BaseURL = p.baseURL(n, field+" (from $OPENAI_BASE_URL)", env)
		}
	default:
		t.BaseURL = apiDefaults[t.API].baseURL
	}
	if v := get(m, "model"); v != nil {
		if s, ok := p.str(v, path+".model", "gpt-4o-mini"); ok {
			if s == "" {
				p.fail(v, path+".model", "empty; name the model to request, e.g. model: gpt-4o-mini")
			}
			t.Model = s
		}
	} else if strings.HasPrefix(t.BaseURL, "sim") {
		t.Model = "sim" // also for an invalid sim spec, which is reported above
	} else {
		p.fail(n, path, "missing required field model; add e.g. model: gpt-4o-mini")
	}
	if v := get(m, "api_key_env"); v != nil {
		// The value is never echoed: people paste keys here.
		if v = deref(v); v.Kind != yaml.ScalarNode || !envPattern.MatchString(v.Value) {
			p.fail(v, path+".api_key_env", "want the NAME of an environment variable holding the key (letters, digits, _), e.g. api_key_env: OPENAI_API_KEY; never the key itself")
		} else {
			t.APIKeyEnv = v.Value
		}
	}
	readFields(p, m, path, &t, targetMaxTokens, targetTemperature)
	if v := get(m, "headers"); v != nil {
		t.Headers = p.headers(v, path+".headers", t.API)
	}
	if v := get(m, "extra_body"); v != nil {
		x, _ := p.value(v, path+".extra_body", 0)
		if xm, ok := x.(map[string]any); ok {
			if len(xm) > 0 {
				t.Extra = xm
			}
			for k := range xm {
				if fix := reserved(t.API, k); fix != "" {
					p.fail(deref(v), path+".extra_body."+k, "latgate sets %s itself; %s", k, fix)
				}
			}
		} else if x != nil || deref(v).Kind != yaml.MappingNode {
			p.fail(v, path+".extra_body", "want a mapping of extra request fields, got %s; e.g. extra_body: {top_k: 1}", describe(deref(v)))
		}
	}
	readFields(p, m, path, &t, targetIncludeUsage)
	p.apiFields(n, m, path, &t)
	readFields(p, m, path, &t, targetMaxErrorRate)
	t.SLO = p.slo(m, path)         // schema_slo.go
	t.Price = p.price(m, path)     // schema_price.go
	t.Serve = p.serve(m, path, &t) // schema_serve.go
	return t, true
}

// baseURL validates an http(s) URL or a simulator spec and returns it without
// a trailing slash.
func (p *parser) baseURL(n *yaml.Node, field, s string) string {
	const fix = "use an http(s) URL ending in /v1 such as https://api.openai.com/v1 or http://127.0.0.1:11434/v1, or sim for the built-in simulator"
	if s == "sim" {
		return s
	}
	if spec, ok := strings.CutPrefix(s, "sim:"); ok {
		profile, query, _ := strings.Cut(spec, "?")
		if profile == "" && query == "" {
			p.fail(n, field, "%q names no simulator profile; write sim for the default, or sim:PROFILE?key=value", s)
		} else if p.checkSim != nil {
			if err := p.checkSim(spec); err != nil { // same list as every other config error
				p.fail(n, field, "simulator spec %q: %v; see latgate sim --help", spec, err)
			}
		}
		return s
	}
	u, err := url.Parse(s)
	if err != nil {
		p.fail(n, field, "not a valid URL; %s", fix)
		return s
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		p.fail(n, field, "%q is not an http(s) URL; %s", sanitize.URL(s), fix)
		return s
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return s // a trailing slash of the path is kept; the query stays whole
	}
	return strings.TrimRight(s, "/")
}

// validHeaderName reports whether s is an HTTP token (RFC 9110 field-name).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

func (p *parser) headers(n *yaml.Node, field, api string) map[string]string {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		p.fail(n, field, "want a mapping of header names to values, got %s; e.g. headers: {X-Team: search}", describe(n))
		return nil
	}
	h := make(map[string]string)
	seen := make(map[string]int)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		if k.Kind != yaml.ScalarNode || !validHeaderName(k.Value) {
			p.fail(k, field, "%s is not a valid header name; use letters, digits and - (e.g. X-Team)", describe(k))
			continue
		}
		f := field + "." + k.Value
		canon := http.CanonicalHeaderKey(k.Value)
		if first, dup := seen[canon]; dup {
			p.fail(k, f, "duplicate header (first at line %d; header names ignore case); keep one", first)
			continue
		}
		seen[canon] = k.Line
		if kh := KeyHeader(api); canon == "Authorization" || canon == kh {
			p.fail(k, f, "latgate sets %s from the key in the environment variable named by api_key_env (api: %s); remove this header and set api_key_env instead", kh, api)
			continue
		}
		if credentialHeader(canon) {
			// A committed config must never hold a key, and output redaction
			// only knows the keys latgate reads from the environment: refuse
			// rather than leak.
			fix := "keep credentials in the environment: api_key_env (sent as " + KeyHeader(api) + "), or api: sse's or ndjson's headers_env for any other header"
			if appStream(api) {
				fix = "name the environment variable that holds the value in " + api + ".headers_env instead"
			}
			p.fail(k, f, "looks like a credential header, and header values are committed with the config; %s", fix)
			continue
		}
		if v.Kind != yaml.ScalarNode || isNull(v) {
			p.fail(v, f, "want a string value, got %s", describe(v))
			continue
		}
		if !p.text(v, f, v.Value) {
			continue
		}
		h[k.Value] = v.Value
	}
	return h
}

// value converts YAML to JSON-compatible Go values: map[string]any, []any,
// string, bool, int64, uint64, float64 (finite) and nil.
func (p *parser) value(n *yaml.Node, field string, depth int) (any, bool) {
	n = deref(n)
	p.nodes++
	if p.nodes > maxExtraNodes || depth > maxExtraDepth {
		if p.nodes == maxExtraNodes+1 || depth == maxExtraDepth+1 {
			p.fail(n, field, "too large or too deeply nested (over %d values or %d levels); keep extra_body small", maxExtraNodes, maxExtraDepth)
		}
		return nil, false
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := deref(n.Content[i])
			if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!merge" {
				p.fail(k, field, "keys must be strings, got %s", describe(k))
				return nil, false
			}
			if _, dup := m[k.Value]; dup {
				p.fail(k, field+"."+k.Value, "duplicate key; keep one")
				return nil, false
			}
			v, ok := p.value(n.Content[i+1], field+"."+k.Value, depth+1)
			if !ok {
				return nil, false
			}
			m[k.Value] = v
		}
		return m, true
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for i, it := range n.Content {
			v, ok := p.value(it, fmt.Sprintf("%s[%d]", field, i), depth+1)
			if !ok {
				return nil, false
			}
			s = append(s, v)
		}
		return s, true
	case yaml.ScalarNode:
		var v any
		if err := n.Decode(&v); err != nil {
			p.fail(n, field, "cannot read %s: %v", describe(n), err)
			return nil, false
		}
		switch x := v.(type) {
		case nil, string, bool, int64, uint64:
			return x, true
		case int:
			return int64(x), true
		case float64:
			if x != x || x > 1e308 || x < -1e308 {
				p.fail(n, field, "%s has no JSON form; use a finite number", describe(n))
				return nil, false
			}
			return x, true
		case time.Time:
			return n.Value, true
		}
		p.fail(n, field, "%s has no JSON form; use a string, number, boolean, list or mapping", describe(n))
		return nil, false
	}
	p.fail(n, field, "unsupported YAML node")
	return nil, false
}
