package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/latgate/latgate/internal/sanitize"
)

// --- targets ---

var (
	namePattern = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)
	envPattern  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

var targetKeys = []string{"name", "region", "base_url", "model", "api_key_env", "max_tokens", "temperature", "headers", "extra_body", "include_usage", "max_error_rate"}

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

// reservedBody are request fields latgate sets itself, with how to set them.
var reservedBody = map[string]string{
	"model":          "set the target's model instead",
	"messages":       "write them in the prompts section instead",
	"stream":         "remove it: latgate always streams",
	"stream_options": "set the target's include_usage instead",
	"max_tokens":     "set the target's max_tokens instead",
	"temperature":    "set the target's temperature instead",
}

func (p *parser) target(n *yaml.Node, path string) (Target, bool) {
	m, ok := p.mapping(n, path, targetKeys)
	if !ok {
		return Target{}, false
	}
	t := Target{Line: n.Line, APIKeyEnv: DefaultAPIKeyEnv, MaxTokens: 64, IncludeUsage: true, MaxErrorRate: 0.05}
	if v := get(m, "name"); v == nil {
		p.fail(n, path, "missing required field name; add e.g. name: primary")
	} else if s, ok := p.str(v, path+".name", "primary"); ok {
		if !namePattern.MatchString(s) {
			p.fail(v, path+".name", "%q has characters outside A-Z a-z 0-9 . _ -; use e.g. name: primary", s)
		}
		t.Name = s
	}
	if v := get(m, "region"); v != nil {
		t.Region, _ = p.str(v, path+".region", "eu-west")
	}
	field := path + ".base_url"
	switch v := get(m, "base_url"); {
	case v != nil:
		if s, ok := p.str(v, field, DefaultBaseURL); ok {
			t.BaseURL = p.baseURL(v, field, s)
		}
	case p.getenv("OPENAI_BASE_URL") != "":
		t.BaseURL = p.baseURL(n, field+" (from $OPENAI_BASE_URL)", p.getenv("OPENAI_BASE_URL"))
	default:
		t.BaseURL = DefaultBaseURL
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
	if v := get(m, "max_tokens"); v != nil {
		if x, ok := p.integer(v, path+".max_tokens", "64"); ok {
			if x <= 0 || x > 1<<31 {
				p.fail(v, path+".max_tokens", "must be > 0, got %d; e.g. max_tokens: 64 (the default)", x)
			}
			t.MaxTokens = int(x)
		}
	}
	if v := get(m, "temperature"); v != nil {
		if x, ok := p.number(v, path+".temperature", "0"); ok {
			if x < 0 || x > 2 {
				p.fail(v, path+".temperature", "must be between 0 and 2, got %v; e.g. temperature: 0, or remove it for the server's default", x)
			}
			t.Temperature = &x
		}
	}
	if v := get(m, "headers"); v != nil {
		t.Headers = p.headers(v, path+".headers")
	}
	if v := get(m, "extra_body"); v != nil {
		x, _ := p.value(v, path+".extra_body", 0)
		if xm, ok := x.(map[string]any); ok {
			if len(xm) > 0 {
				t.Extra = xm
			}
			for k := range xm {
				if fix, bad := reservedBody[k]; bad {
					p.fail(deref(v), path+".extra_body."+k, "latgate sets %s itself; %s", k, fix)
				}
			}
		} else if x != nil || deref(v).Kind != yaml.MappingNode {
			p.fail(v, path+".extra_body", "want a mapping of extra request fields, got %s; e.g. extra_body: {top_k: 1}", describe(deref(v)))
		}
	}
	if v := get(m, "include_usage"); v != nil {
		if b, ok := p.boolean(v, path+".include_usage"); ok {
			t.IncludeUsage = b
		}
	}
	if v := get(m, "max_error_rate"); v != nil {
		if x, ok := p.fraction(v, path+".max_error_rate", "5%"); ok {
			if x < 0 || x > 1 {
				p.fail(v, path+".max_error_rate", "must be between 0%% and 100%%; e.g. max_error_rate: 5%%")
			}
			t.MaxErrorRate = x
		}
	}
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

func (p *parser) headers(n *yaml.Node, field string) map[string]string {
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
		if canon == "Authorization" {
			p.fail(k, f, "latgate sets Authorization from the key in the environment variable named by api_key_env; remove this header and set api_key_env instead")
			continue
		}
		if credentialHeader(canon) {
			// A committed config must never hold a key, and output redaction
			// only knows the api_key_env key: refuse rather than leak.
			p.fail(k, f, "looks like a credential header, and header values are committed with the config: keep credentials in the environment (api_key_env, sent as Authorization: Bearer); other credential headers are not supported yet")
			continue
		}
		if v.Kind != yaml.ScalarNode || isNull(v) {
			p.fail(v, f, "want a string value, got %s", describe(v))
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

// --- prompts ---

var (
	promptKeys  = []string{"id", "messages", "messages_file"}
	messageKeys = []string{"role", "content", "name"}
)

const promptExample = `prompts: [{id: greeting, messages: [{role: user, content: "Say hello."}]}]`

func (p *parser) prompts(root, n *yaml.Node) []Prompt {
	if n == nil {
		p.fail(root, "prompts", "missing; add at least one prompt, e.g. %s", promptExample)
		return nil
	}
	items, ok := p.list(n, "prompts", promptExample)
	if !ok {
		return nil
	}
	if len(items) == 0 {
		p.fail(n, "prompts", "empty; add at least one prompt, e.g. %s", promptExample)
	}
	var out []Prompt
	seen := make(map[string]int)
	for i, it := range items {
		pr, ok := p.prompt(it, fmt.Sprintf("prompts[%d]", i))
		if !ok {
			continue
		}
		if first, dup := seen[pr.ID]; dup && pr.ID != "" {
			p.fail(it, fmt.Sprintf("prompts[%d].id", i), "duplicate prompt id %q (first at line %d); ids must be unique", pr.ID, first)
		}
		seen[pr.ID] = pr.Line
		out = append(out, pr)
	}
	return out
}

func (p *parser) prompt(n *yaml.Node, path string) (Prompt, bool) {
	m, ok := p.mapping(n, path, promptKeys)
	if !ok {
		return Prompt{}, false
	}
	pr := Prompt{Line: n.Line}
	if v := get(m, "id"); v == nil {
		p.fail(n, path, "missing required field id; add e.g. id: greeting")
	} else if s, ok := p.str(v, path+".id", "greeting"); ok {
		if !namePattern.MatchString(s) {
			p.fail(v, path+".id", "%q has characters outside A-Z a-z 0-9 . _ -; use e.g. id: greeting", s)
		}
		pr.ID = s
	}
	msgs, file := get(m, "messages"), get(m, "messages_file")
	switch {
	case msgs != nil && file != nil:
		p.fail(file, path, "has both messages and messages_file; keep exactly one")
	case msgs == nil && file == nil:
		p.fail(n, path, "has neither messages nor messages_file; add one, e.g. messages: [{role: user, content: \"Say hello.\"}]")
	case msgs != nil:
		pr.Messages = p.messages(msgs, path+".messages")
	default:
		if s, ok := p.str(file, path+".messages_file", "prompts/rag.json"); ok {
			pr.MessagesFile = s
			pr.Messages = p.messagesFile(file, path+".messages_file", s)
		}
	}
	pr.Hash = hashMessages(pr.Messages)
	return pr, true
}

func (p *parser) messages(n *yaml.Node, field string) []Message {
	items, ok := p.list(n, field, `messages: [{role: user, content: "Say hello."}]`)
	if !ok {
		return nil
	}
	if len(items) == 0 {
		p.fail(n, field, `empty; add at least one message, e.g. {role: user, content: "Say hello."}`)
		return nil
	}
	var out []Message
	for i, it := range items {
		f := fmt.Sprintf("%s[%d]", field, i)
		m, ok := p.mapping(it, f, messageKeys)
		if !ok {
			continue
		}
		var msg Message
		for _, k := range messageKeys {
			if v := get(m, k); v != nil {
				s, _ := p.str(v, f+"."+k, map[string]string{"role": "user", "content": `"Say hello."`, "name": "alice"}[k])
				switch k {
				case "role":
					msg.Role = s
				case "content":
					msg.Content = s
				case "name":
					msg.Name = s
				}
			}
		}
		if k, problem := checkMessage(msg); problem != "" {
			at := it
			if v := get(m, k); v != nil {
				at = v
			}
			p.fail(at, f+"."+k, "%s", problem)
		}
		out = append(out, msg)
	}
	return out
}

// checkMessage returns the field and the problem of an invalid message.
func checkMessage(m Message) (field, problem string) {
	switch {
	case m.Role == "":
		return "role", "missing role; add e.g. role: user (one of " + strings.Join(roles, ", ") + ")"
	case !slices.Contains(roles, m.Role):
		return "role", fmt.Sprintf("%q is not a role; use one of %s", m.Role, strings.Join(roles, ", "))
	case m.Content == "":
		return "content", "missing or empty content; add the message text, e.g. content: \"Say hello.\""
	}
	return "", ""
}

// messagesFile reads a JSON messages file: an array of messages or
// {"messages": [...]}.
func (p *parser) messagesFile(n *yaml.Node, field, rel string) []Message {
	path := p.resolve(rel)
	data, err := readFile(path)
	if err != nil {
		p.fail(n, field, "cannot read %s: %v (relative paths are resolved against the config file's directory)", path, err)
		return nil
	}
	msgs, err := decodeMessages(data, path)
	if err != nil {
		p.fail(n, field, "%v", err)
		return nil
	}
	if len(msgs) == 0 {
		p.fail(n, field, "%s holds no messages; want [{\"role\": \"user\", \"content\": \"...\"}]", path)
		return nil
	}
	for i, m := range msgs {
		if k, problem := checkMessage(m); problem != "" {
			p.fail(n, field, "%s: messages[%d].%s: %s", path, i, k, problem)
		}
	}
	return msgs
}

// readFile reads a regular file of at most maxMessagesFile bytes.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, pe.Err
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, maxMessagesFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxMessagesFile {
		return nil, fmt.Errorf("larger than %d MiB", maxMessagesFile>>20)
	}
	return data, nil
}

// decodeMessages strictly decodes a messages file, naming file:line on error.
func decodeMessages(data []byte, path string) ([]Message, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var msgs []Message
	var err error
	switch {
	case len(trimmed) > 0 && trimmed[0] == '[':
		err = dec.Decode(&msgs)
	case len(trimmed) > 0 && trimmed[0] == '{':
		var w struct {
			Messages []Message `json:"messages"`
		}
		err = dec.Decode(&w)
		msgs = w.Messages
	default:
		return nil, fmt.Errorf(`%s: want a JSON array of messages or an object {"messages": [...]}`, path)
	}
	if err == nil {
		if _, terr := dec.Token(); !errors.Is(terr, io.EOF) {
			err = errors.New("extra data after the JSON value")
		}
	}
	if err != nil {
		var off int64 = -1
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			off = se.Offset
		case errors.As(err, &te):
			off = te.Offset
		case errors.Is(err, io.ErrUnexpectedEOF):
			off = int64(len(data))
		default:
			off = dec.InputOffset()
		}
		line := 1 + bytes.Count(data[:min(max(off, 0), int64(len(data)))], []byte("\n"))
		return nil, fmt.Errorf(`%s:%d: invalid messages JSON: %w; want a JSON array of {"role": ..., "content": ...} or an object {"messages": [...]}`, path, line, err)
	}
	return msgs, nil
}

// --- run ---

func (p *parser) run(n *yaml.Node) Run {
	r := Run{Requests: 60, Warmup: 2, Concurrency: 1, Timeout: 60 * time.Second, Order: "interleave", Seed: 1}
	if n == nil {
		return r
	}
	m, ok := p.mapping(n, "run", []string{"requests", "warmup", "concurrency", "timeout", "order", "seed"})
	if !ok {
		return r
	}
	if v := get(m, "requests"); v != nil {
		if x, ok := p.integer(v, "run.requests", "30"); ok {
			if x <= 0 || x > 1e7 {
				p.fail(v, "run.requests", "must be > 0 (and at most 10000000), got %d; e.g. requests: 30", x)
			} else {
				r.Requests = int(x)
			}
		}
	}
	if v := get(m, "warmup"); v != nil {
		if x, ok := p.integer(v, "run.warmup", "2"); ok {
			if x < 0 || x > 1e7 {
				p.fail(v, "run.warmup", "must be >= 0, got %d; e.g. warmup: 2 (0 disables warmup)", x)
			} else {
				r.Warmup = int(x)
			}
		}
	}
	if v := get(m, "concurrency"); v != nil {
		if x, ok := p.integer(v, "run.concurrency", "1"); ok {
			if x < 1 || x > MaxConcurrency {
				p.fail(v, "run.concurrency", "must be between 1 and %d, got %d; e.g. concurrency: 1", MaxConcurrency, x)
			} else {
				r.Concurrency = int(x)
			}
		}
	}
	if v := get(m, "timeout"); v != nil {
		if d, ok := p.duration(v, "run.timeout", "60s"); ok {
			if d <= 0 {
				p.fail(v, "run.timeout", "must be > 0, got %s; e.g. timeout: 60s", d)
			} else {
				r.Timeout = d
			}
		}
	}
	if v := get(m, "order"); v != nil {
		if s, ok := p.str(v, "run.order", "interleave"); ok {
			if !slices.Contains(orders, s) {
				p.fail(v, "run.order", "%q is not an order; use interleave (default) or shuffle", s)
			} else {
				r.Order = s
			}
		}
	}
	if v := get(m, "seed"); v != nil {
		if x, ok := p.integer(v, "run.seed", "1"); ok {
			r.Seed = x
		}
	}
	return r
}

// --- gate ---

func (p *parser) gate(n *yaml.Node, prompts []Prompt) Gate {
	g := DefaultGate()
	if n == nil {
		return g
	}
	m, ok := p.mapping(n, "gate", []string{"confidence", "resamples", "seed", "aggregate", "checks", "overrides"})
	if !ok {
		return g
	}
	if v := get(m, "confidence"); v != nil {
		if x, ok := p.fraction(v, "gate.confidence", "95%"); ok {
			if x <= 0.5 || x >= 1 {
				p.fail(v, "gate.confidence", "must be above 50%% and below 100%%; e.g. confidence: 95%%")
			} else {
				g.Confidence = x
			}
		}
	}
	if v := get(m, "resamples"); v != nil {
		if x, ok := p.integer(v, "gate.resamples", "2000"); ok {
			if x < 100 || x > 1e6 {
				p.fail(v, "gate.resamples", "must be between 100 and 1000000, got %d; e.g. resamples: 2000", x)
			} else {
				g.Resamples = int(x)
			}
		}
	}
	if v := get(m, "seed"); v != nil {
		if x, ok := p.integer(v, "gate.seed", "1"); ok {
			g.Seed = x
		}
	}
	if v := get(m, "aggregate"); v != nil {
		if b, ok := p.boolean(v, "gate.aggregate"); ok {
			g.Aggregate = b
		}
	}
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

// metricStat reads and validates the metric and stat fields of a check or override.
func (p *parser) metricStat(n *yaml.Node, m map[string]*yaml.Node, path string) (metric, stat string, ok bool) {
	ok = true
	for _, f := range []struct {
		key     string
		allowed []string
		out     *string
	}{{"metric", checkMetrics, &metric}, {"stat", checkStats, &stat}} {
		v := get(m, f.key)
		if v == nil {
			p.fail(n, path, "missing required field %s; add e.g. %s: %s", f.key, f.key, f.allowed[1])
			ok = false
			continue
		}
		s, sok := p.str(v, path+"."+f.key, f.allowed[1])
		if !sok {
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

// tolerance reads tolerance and floor into t, reporting whether any was set.
func (p *parser) tolerance(m map[string]*yaml.Node, path string, t *Tolerance) (set, ok bool) {
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
	if v := get(m, "floor"); v != nil {
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

var checkKeys = []string{"metric", "stat", "tolerance", "floor"}

func (p *parser) check(n *yaml.Node, path string) (Check, bool) {
	m, ok := p.mapping(n, path, checkKeys)
	if !ok {
		return Check{}, false
	}
	metric, stat, ok := p.metricStat(n, m, path)
	c := Check{Metric: metric, Stat: stat}
	if get(m, "tolerance") == nil {
		p.fail(n, path, "missing required field tolerance; add e.g. tolerance: 20%% (and floor: 30ms)")
		ok = false
	}
	_, tok := p.tolerance(m, path, &c.Tolerance)
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
		metric, stat, msok := p.metricStat(it, m, path)
		o.Metric, o.Stat = metric, stat
		if msok {
			i := slices.IndexFunc(checks, func(c Check) bool { return c.Metric == metric && c.Stat == stat })
			if i < 0 {
				p.fail(it, path, "no check gates %s %s, so there is nothing to override; add it to gate.checks or use a checked metric/stat", metric, stat)
				ok = false
			} else {
				o.Tolerance = checks[i].Tolerance // unset fields inherit from the check
			}
		}
		set, tok := p.tolerance(m, path, &o.Tolerance)
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
