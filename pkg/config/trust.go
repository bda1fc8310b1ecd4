package config

import (
	"bytes"
	"errors"
	"io"
	"maps"
	"net"
	"net/url"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// This file holds the rule that keeps a pull request's config from sending
// the API key somewhere new: the endpoints a config sends keys to, and those
// of one config that another (the default branch's, which review let in)
// does not send.

// Endpoint is where a target sends a value it reads from the environment:
// the variable, the header that carries it, and the origin of its
// base_url. Every header whose value comes from the environment is one
// (api_key_env's, and each of sse's or ndjson's headers_env): a pull request that could
// send any of them somewhere new could send the key there. The simulator is
// no endpoint (it runs inside latgate).
type Endpoint struct {
	KeyEnv string // the environment variable whose value is sent
	Header string // the header it is sent in (canonical form)
	Origin string // scheme://host:port of base_url, see Origin
	Target string // the target's name
	Line   int    // the target's line in its config
}

// Origin returns the origin of an http(s) URL as scheme://host:port, the
// scheme and host lowercased and the scheme's default port made explicit, so
// that two spellings of one server compare equal; "" for anything else
// (sim, sim:PROFILE, a URL without a host).
func Origin(baseURL string) string {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil || u.Host == "" {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	switch {
	case scheme != "http" && scheme != "https":
		return ""
	case port == "" && scheme == "https":
		port = "443"
	case port == "":
		port = "80"
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// Endpoints returns where c's targets send values from the environment:
// one per variable a target that is not the simulator sends (its
// api_key_env first, then its sse or ndjson headers_env by header name), in config
// order. A target that names no variable sends none and has no endpoint.
func (c *Config) Endpoints() []Endpoint {
	var out []Endpoint
	for _, t := range c.Targets {
		o := Origin(t.BaseURL)
		if o == "" || t.IsSim() {
			continue
		}
		e := Endpoint{Origin: o, Target: t.Name, Line: t.Line}
		if t.APIKeyEnv != "" {
			e.KeyEnv, e.Header = t.APIKeyEnv, KeyHeader(t.APIName())
			out = append(out, e)
		}
		// Every API whose target carries headers_env (sse, ndjson): read
		// through Stream, the one place that knows them, so a new API's
		// headers cannot slip past the rule (an ndjson target's did).
		_, headers := t.Stream()
		for _, h := range slices.Sorted(maps.Keys(headers)) {
			e.KeyEnv, e.Header = headers[h], h
			out = append(out, e)
		}
	}
	return out
}

// TrustedEndpoints returns where the targets of the config in data send
// their keys, reading its targets section only: the trusted config is
// another version of the config (the default branch's), whose prompts,
// messages files and gate need not resolve where it is read, nor be of this
// release's schema. path names the file in errors. A targets section that
// does not parse is an error: nothing it says can be trusted.
func TrustedEndpoints(data []byte, path string, opts Options) ([]Endpoint, error) {
	ts, err := TrustedTargets(data, path, opts)
	if err != nil {
		return nil, err
	}
	return (&Config{Targets: ts}).Endpoints(), nil
}

// TrustedTargets returns the targets of the config in data, read as
// TrustedEndpoints reads them (the targets section only).
func TrustedTargets(data []byte, path string, opts Options) ([]Target, error) {
	p := &parser{path: path, getenv: opts.Getenv}
	if p.getenv == nil {
		p.getenv = func(string) string { return "" }
	}
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil // an empty file sends no key anywhere
		}
		p.syntax(err, data)
		return nil, p.err()
	}
	root := deref(&doc)
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = deref(root.Content[0])
	}
	var targets *yaml.Node
	if root.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(root.Content); i += 2 {
			if k := deref(root.Content[i]); k.Kind == yaml.ScalarNode && k.Value == "targets" {
				targets = root.Content[i+1]
			}
		}
	}
	if targets == nil || isNull(targets) {
		return nil, nil
	}
	ts := p.targets(root, targets)
	if err := p.err(); err != nil {
		return nil, err
	}
	return ts, nil
}

// Untrusted returns the endpoints of candidate that trusted lacks: a
// variable sent to an origin that the trusted endpoints never send that
// variable to, in whatever header. (Another variable to the same origin, or
// the same variable elsewhere, is new: either could hand a secret to
// someone who never had it. The header does not matter: the origin that
// already gets the value may get it in another header.)
func Untrusted(candidate, trusted []Endpoint) []Endpoint {
	var out []Endpoint
	for _, e := range candidate {
		if !slices.ContainsFunc(trusted, func(t Endpoint) bool { return t.KeyEnv == e.KeyEnv && t.Origin == e.Origin }) {
			out = append(out, e)
		}
	}
	return out
}

// UnreviewedServes returns the targets of candidate whose serve: the
// trusted targets do not have: no trusted target of the same name starts
// the same command, in the same directory (as written) with the same env
// and pass_env (the secrets it gets).
// A pull request that edits the config must not add a command to the
// runner's job; the trusted config's commands were reviewed when they
// landed.
func UnreviewedServes(candidate, trusted []Target) []Target {
	var out []Target
	for _, t := range candidate {
		if t.Serve == nil {
			continue
		}
		if !slices.ContainsFunc(trusted, func(u Target) bool {
			return u.Name == t.Name && u.Serve != nil && slices.Equal(u.Serve.Command, t.Serve.Command) &&
				u.Serve.dir == t.Serve.dir && maps.Equal(u.Serve.Env, t.Serve.Env) && slices.Equal(u.Serve.PassEnv, t.Serve.PassEnv)
		}) {
			out = append(out, t)
		}
	}
	return out
}
