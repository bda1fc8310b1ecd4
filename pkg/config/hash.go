package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
)

// shortHash is the first 16 hex characters of the sha256 of the JSON of v.
// encoding/json sorts map keys, so maps hash canonically.
func shortHash(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		// Parse only builds JSON-compatible values; this is a programming error.
		panic("config: hash: " + err.Error())
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:16]
}

// hashMessages is the canonical hash of a prompt's messages (role, content,
// name): the same text hashes the same however it was written.
func hashMessages(msgs []Message) string {
	if msgs == nil {
		msgs = []Message{}
	}
	return shortHash(msgs)
}

// ParamsHash is a hash of the target's extra body fields (canonical JSON),
// or "" when there are none; results record it as params.extra_hash.
func (t Target) ParamsHash() string {
	if len(t.Extra) == 0 {
		return ""
	}
	return shortHash(t.Extra)
}

// hashURL drops credentials (user:pass@) from a base URL.
func hashURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	u.User = nil
	return u.String()
}

// hash is the canonical hash of everything that shapes latency. Header values
// and API key names are left out: values may be secrets and neither changes
// what is measured.
func (c *Config) hash() string {
	type target struct {
		Name         string         `json:"name"`
		Model        string         `json:"model"`
		BaseURL      string         `json:"base_url"`
		MaxTokens    int            `json:"max_tokens"`
		Temperature  *float64       `json:"temperature"`
		IncludeUsage bool           `json:"include_usage"`
		Extra        map[string]any `json:"extra_body"`
		HeaderNames  []string       `json:"header_names"`
	}
	type prompt struct {
		ID   string `json:"id"`
		Hash string `json:"hash"`
	}
	type run struct {
		Requests    int    `json:"requests"`
		Warmup      int    `json:"warmup"`
		Concurrency int    `json:"concurrency"`
		TimeoutNS   int64  `json:"timeout_ns"`
		Order       string `json:"order"`
		Seed        int64  `json:"seed"`
	}
	v := struct {
		Version int      `json:"v"`
		Targets []target `json:"targets"`
		Prompts []prompt `json:"prompts"`
		Run     run      `json:"run"`
	}{Version: 1, Targets: []target{}, Prompts: []prompt{}}
	for _, t := range c.Targets {
		names := []string{}
		for h := range t.Headers {
			names = append(names, http.CanonicalHeaderKey(h))
		}
		slices.Sort(names)
		v.Targets = append(v.Targets, target{
			Name: t.Name, Model: t.Model, BaseURL: hashURL(t.BaseURL), MaxTokens: t.MaxTokens,
			Temperature: t.Temperature, IncludeUsage: t.IncludeUsage, Extra: t.Extra, HeaderNames: names,
		})
	}
	for _, p := range c.Prompts {
		v.Prompts = append(v.Prompts, prompt{ID: p.ID, Hash: p.Hash})
	}
	r := c.Run
	v.Run = run{Requests: r.Requests, Warmup: r.Warmup, Concurrency: r.Concurrency, TimeoutNS: int64(r.Timeout), Order: r.Order, Seed: r.Seed}
	return shortHash(v)
}
