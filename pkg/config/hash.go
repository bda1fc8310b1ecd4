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

// hashPrompt is the canonical hash of what a prompt sends: its messages,
// and its tools and tool choice when it has any (so a prompt without tools
// hashes as its messages always did).
func hashPrompt(pr Prompt) string {
	if len(pr.Steps) > 0 { // a chain: its steps are what it sends
		return shortHash(struct {
			Steps [][]Message `json:"steps"`
			Cache string      `json:"cache,omitempty"`
		}{pr.Steps, pr.Cache})
	}
	if len(pr.Tools) == 0 && pr.ToolChoice == "" && pr.Cache == "" {
		return hashMessages(pr.Messages)
	}
	if pr.Cache != "" { // a cold prompt is not the warm one: it measures another TTFT
		msgs := pr.Messages
		if msgs == nil {
			msgs = []Message{}
		}
		return shortHash(struct {
			Messages   []Message `json:"messages"`
			Tools      []Tool    `json:"tools,omitempty"`
			ToolChoice string    `json:"tool_choice,omitempty"`
			Cache      string    `json:"cache"`
		}{msgs, pr.Tools, pr.ToolChoice, pr.Cache})
	}
	msgs := pr.Messages
	if msgs == nil {
		msgs = []Message{}
	}
	return shortHash(struct {
		Messages   []Message `json:"messages"`
		Tools      []Tool    `json:"tools"`
		ToolChoice string    `json:"tool_choice,omitempty"`
	}{msgs, pr.Tools, pr.ToolChoice})
}

// ParamsHash is a hash of the target's extra body fields (canonical JSON),
// or "" when there are none; results record it as params.extra_hash.
func (t Target) ParamsHash() string {
	if t.SSE != nil { // what an sse target sends and reads is its sse section
		return shortHash(struct {
			Extra map[string]any `json:"extra_body,omitempty"`
			SSE   *sseHash       `json:"sse"`
		}{t.Extra, sseHashOf(t.SSE)})
	}
	if t.NDJSON != nil {
		return shortHash(struct {
			NDJSON *ndjsonHash `json:"ndjson"`
		}{ndjsonHashOf(t.NDJSON)})
	}
	if len(t.Extra) == 0 {
		return ""
	}
	return shortHash(t.Extra)
}

// ndjsonHash is what of an ndjson section shapes latency: everything but
// the names of the variables that hold the header values.
type ndjsonHash struct {
	Body                                                      any      `json:"body"`
	Token, Reasoning, Done, Finish, Error, Prompt, Out, Model string   `json:",omitempty"`
	HeaderNames                                               []string `json:"header_names"`
}

func ndjsonHashOf(s *NDJSON) *ndjsonHash {
	h := &ndjsonHash{Body: s.Body, Token: s.TokenPointer, Reasoning: s.ReasoningPointer, Done: s.DonePointer, Finish: s.FinishPointer,
		Error: s.ErrorPointer, Prompt: s.PromptTokensPointer, Out: s.OutputTokensPointer, Model: s.ModelPointer, HeaderNames: []string{}}
	for name := range s.HeadersEnv {
		h.HeaderNames = append(h.HeaderNames, name)
	}
	slices.Sort(h.HeaderNames)
	return h
}

func sseHashOf(s *SSE) *sseHash {
	h := &sseHash{s.Body, s.TokenEvents, s.ReasoningEvents, s.TokenPointer, s.StatusEvents, s.DoneEvents, s.DoneData, s.ErrorEvents, []string{}}
	for name := range s.HeadersEnv {
		h.HeaderNames = append(h.HeaderNames, name)
	}
	slices.Sort(h.HeaderNames)
	return h
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

// sseHash is what of an sse section shapes latency: everything but the
// names of the variables that hold the header values.
type sseHash struct {
	Body            any      `json:"body"`
	TokenEvents     []string `json:"token_events"`
	ReasoningEvents []string `json:"reasoning_events"`
	TokenPointer    string   `json:"token_pointer"`
	StatusEvents    []string `json:"status_events"`
	DoneEvents      []string `json:"done_events"`
	DoneData        string   `json:"done_data,omitempty"` // omitted when unset: earlier baselines keep their hash
	ErrorEvents     []string `json:"error_events"`
	HeaderNames     []string `json:"header_names"`
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
		// API is "" for chat, so that configs from before api: hash as
		// they did.
		API    string      `json:"api,omitempty"`
		SSE    *sseHash    `json:"sse,omitempty"`
		NDJSON *ndjsonHash `json:"ndjson,omitempty"`
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
		// An open loop's (absent from a closed loop's hash, which is
		// what it was before them).
		Rate        float64 `json:"rate,omitempty"`
		Arrival     string  `json:"arrival,omitempty"`
		MaxInFlight int     `json:"max_in_flight,omitempty"`
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
		tt := target{
			Name: t.Name, Model: t.Model, BaseURL: hashURL(t.BaseURL), MaxTokens: t.MaxTokens,
			Temperature: t.Temperature, IncludeUsage: t.IncludeUsage, Extra: t.Extra, HeaderNames: names,
		}
		if api := t.APIName(); api != APIChat {
			tt.API = api
		}
		if t.SSE != nil {
			tt.SSE = sseHashOf(t.SSE)
		}
		if t.NDJSON != nil {
			tt.NDJSON = ndjsonHashOf(t.NDJSON)
		}
		v.Targets = append(v.Targets, tt)
	}
	for _, p := range c.Prompts {
		v.Prompts = append(v.Prompts, prompt{ID: p.ID, Hash: p.Hash})
	}
	r := c.Run
	v.Run = run{Requests: r.Requests, Warmup: r.Warmup, Concurrency: r.Concurrency, TimeoutNS: int64(r.Timeout), Order: r.Order, Seed: r.Seed,
		Rate: r.Rate, Arrival: r.Arrival, MaxInFlight: r.MaxInFlight}
	return shortHash(v)
}
