package config

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// This file holds a target's api (the wire format it speaks) and the
// options of api: sse, and checks the prompts against every target's api.

// The APIs a target can speak.
const (
	// APIChat is OpenAI Chat Completions, POST {base_url}/chat/completions
	// (OpenAI, vLLM, Ollama, llama.cpp, most gateways); the default.
	APIChat = "chat"
	// APIResponses is the OpenAI Responses API, POST {base_url}/responses.
	APIResponses = "responses"
	// APIAnthropic is the Anthropic Messages API, POST {base_url}/messages.
	APIAnthropic = "anthropic"
	// APIGemini is the Gemini API,
	// POST {base_url}/models/{model}:streamGenerateContent?alt=sse.
	APIGemini = "gemini"
	// APISSE is any other streaming HTTP endpoint (your own app's): POST
	// {base_url} with the body of the sse section, events read as it says.
	APISSE = "sse"
	// APINDJSON is a streaming HTTP endpoint of newline-delimited JSON
	// (Ollama's native /api/chat, many apps): POST {base_url} with the body
	// of the ndjson section, each line one JSON object read as it says.
	APINDJSON = "ndjson"
)

// APIs lists the values of api, the default first.
func APIs() []string {
	return []string{APIChat, APIResponses, APIAnthropic, APIGemini, APISSE, APINDJSON}
}

// appStream reports whether api is a stream the config describes (sse,
// ndjson) rather than a provider's API.
func appStream(api string) bool { return api == APISSE || api == APINDJSON }

// Stream returns the body template and the secret headers of an sse or
// ndjson target (nil for the others).
func (t Target) Stream() (body any, headersEnv map[string]string) {
	switch {
	case t.SSE != nil:
		return t.SSE.Body, t.SSE.HeadersEnv
	case t.NDJSON != nil:
		return t.NDJSON.Body, t.NDJSON.HeadersEnv
	}
	return nil, nil
}

// apiDefaults are the base URL and key variable of each API.
var apiDefaults = map[string]struct{ baseURL, keyEnv string }{
	APIChat:      {DefaultBaseURL, DefaultAPIKeyEnv},
	APIResponses: {DefaultBaseURL, DefaultAPIKeyEnv},
	APIAnthropic: {"https://api.anthropic.com/v1", "ANTHROPIC_API_KEY"},
	APIGemini:    {"https://generativelanguage.googleapis.com/v1beta", "GEMINI_API_KEY"},
	APISSE:       {"", ""},
	APINDJSON:    {"", ""},
}

// KeyHeader returns the header an API sends its key in: Authorization
// (as "Bearer KEY") for chat, responses, sse and ndjson, x-api-key for
// anthropic, x-goog-api-key for gemini.
func KeyHeader(api string) string {
	switch api {
	case APIAnthropic:
		return "X-Api-Key"
	case APIGemini:
		return "X-Goog-Api-Key"
	}
	return "Authorization"
}

// APIName returns the target's API, APIChat when none is set.
func (t Target) APIName() string {
	if t.API == "" {
		return APIChat
	}
	return t.API
}

// SSE is how latgate talks to a streaming endpoint of api: sse.
type SSE struct {
	// Body is the JSON request body, as JSON-compatible values; a string
	// that is exactly one placeholder ("{{messages}}") is replaced by the
	// placeholder's JSON value, placeholders inside longer strings by their
	// text (see SSEPlaceholders).
	Body any
	// TokenEvents are the SSE event names whose data carry answer tokens
	// (default ["message"], the name of an event without an event: line);
	// ReasoningEvents those that carry reasoning (thinking) tokens.
	TokenEvents, ReasoningEvents []string
	// TokenPointer is the JSON pointer (RFC 6901) to the token text in a
	// token event's data, e.g. /text; "" takes the whole data as the text.
	TokenPointer string
	// StatusEvents are progress events (e.g. status): never tokens, the
	// first one's time is recorded as first_status_ms.
	StatusEvents []string
	// DoneEvents end the answer (e.g. done); with none (and no DoneData),
	// the end of the body does.
	DoneEvents []string
	// DoneData, when set, is a data line that ends the answer whatever its
	// event, e.g. "[DONE]", the end marker of an OpenAI-style stream
	// (compared with the data trimmed of spaces).
	DoneData string
	// ErrorEvents report an error inside the stream (default ["error"]).
	ErrorEvents []string
	// HeadersEnv maps a header name to the environment variable whose value
	// is sent in it (a session token, a tenant key): the value is never in
	// the config, and is redacted from every output like the API key.
	HeadersEnv map[string]string
}

// SSEPlaceholders are the placeholders of an sse body template and what
// each becomes.
var SSEPlaceholders = map[string]string{
	"messages":    "the prompt's messages, [{\"role\": …, \"content\": …}]",
	"prompt":      "the text of the prompt's last user message",
	"system":      "the text of its system messages, joined by blank lines",
	"model":       "the target's model",
	"max_tokens":  "the target's max_tokens (a number)",
	"temperature": "the target's temperature (a number; null when unset)",
}

var (
	sseKeys     = []string{"body", "token_events", "reasoning_events", "token_pointer", "status_events", "done_events", "done_data", "error_events", "headers_env"}
	placeholder = regexp.MustCompile(`\{\{\s*([A-Za-z_]*)\s*\}\}`)
	eventName   = regexp.MustCompile(`^[^\s:]+$`)
)

const sseExample = `sse: {body: {question: "{{prompt}}"}, token_events: [delta], token_pointer: /text, status_events: [status], done_events: [done]}`

// api reads the target's api (before the fields whose defaults depend on it).
func (p *parser) api(m map[string]*yaml.Node, path string, t *Target) {
	t.API = APIChat
	v := get(m, "api")
	if v == nil {
		return
	}
	s, ok := p.str(v, path+".api", APIAnthropic)
	if !ok {
		return
	}
	if !slices.Contains(APIs(), s) {
		p.fail(v, path+".api", "%q is not an API latgate speaks; use one of %s (chat is the default: OpenAI Chat Completions and every compatible server)", s, strings.Join(APIs(), ", "))
		return
	}
	t.API = s
}

// apiFields checks the fields that mean something for some APIs only, and
// reads the sse section.
func (p *parser) apiFields(n *yaml.Node, m map[string]*yaml.Node, path string, t *Target) {
	if v := get(m, "include_usage"); v != nil && t.API != APIChat {
		p.fail(v, path+".include_usage", "applies to api: chat only (stream_options.include_usage); the %s API always reports usage: remove it", t.API)
	}
	if v := p.streamSection(n, m, path, t, APISSE, "which events carry tokens", sseExample, "https://app.example.com/api/chat"); v != nil {
		t.SSE = p.sse(v, path+".sse", t)
	}
	if v := p.streamSection(n, m, path, t, APINDJSON, "where each line has its tokens", ndjsonExample, "http://127.0.0.1:11434/api/chat for Ollama"); v != nil {
		t.NDJSON = p.ndjson(v, path+".ndjson", t) // schema_ndjson.go
	}
}

// streamSection returns the section of an app-stream api (sse, ndjson:
// the key is the api's name) when the target speaks it, checking that a
// target of that api has one (what it says is what the section holds),
// that no other target has one, and that the target has the base_url and
// no extra_body it needs; nil otherwise.
func (p *parser) streamSection(n *yaml.Node, m map[string]*yaml.Node, path string, t *Target, api, what, example, urlExample string) *yaml.Node {
	v := get(m, api)
	switch {
	case t.API == api && v == nil:
		p.fail(n, path, "api: %s needs an %s section saying what to send and %s, e.g. %s", api, api, what, example)
		return nil
	case t.API != api && v != nil:
		p.fail(v, path+"."+api, "applies to api: %s only; remove it or set api: %s", api, api)
		return nil
	case v == nil:
		return nil
	}
	if x := get(m, "extra_body"); x != nil {
		p.fail(x, path+".extra_body", "api: %s sends %s.body as it is; put the fields there", api, api)
	}
	if get(m, "base_url") == nil {
		p.fail(n, path, "api: %s needs base_url, the URL of the streaming endpoint itself (POST), e.g. base_url: %s", api, urlExample)
	}
	return v
}

// defaultStreamBody is the body an sse or ndjson section without one sends.
func defaultStreamBody() any {
	return map[string]any{"model": "{{model}}", "messages": "{{messages}}", "max_tokens": "{{max_tokens}}", "stream": true}
}

// bodyTemplate reads a section's body template, its placeholders checked;
// def when the section has none, nil when it is bad (the failure said).
func (p *parser) bodyTemplate(m map[string]*yaml.Node, path string, def any) any {
	v := get(m, "body")
	if v == nil {
		return def
	}
	body, ok := p.value(v, path+".body", 0)
	if !ok {
		return nil
	}
	p.placeholders(v, path+".body", body)
	return body
}

// pointer reads a JSON pointer field: "" (which means empty) or a string
// starting with /.
func (p *parser) pointer(v *yaml.Node, field, example, empty string) (string, bool) {
	ptr, ok := p.str(v, field, "/text")
	if !ok || !p.text(v, field, ptr) {
		return "", false
	}
	if ptr != "" && !strings.HasPrefix(ptr, "/") {
		p.fail(v, field, "%q is not a JSON pointer; it starts with / (e.g. %s), or is \"\" for %s", ptr, example, empty)
		return "", false
	}
	return ptr, true
}

func (p *parser) sse(n *yaml.Node, path string, t *Target) *SSE {
	m, ok := p.mapping(n, path, sseKeys)
	if !ok {
		return nil
	}
	s := &SSE{TokenEvents: []string{"message"}, ErrorEvents: []string{"error"}}
	s.Body = p.bodyTemplate(m, path, defaultStreamBody())
	events := func(key string, dst *[]string) {
		v := get(m, key)
		if v == nil {
			return
		}
		items, ok := p.list(v, path+"."+key, key+": [delta]")
		if !ok {
			return
		}
		var out []string
		for i, it := range items {
			f := fmt.Sprintf("%s.%s[%d]", path, key, i)
			e, ok := p.str(it, f, "delta")
			if !ok || !p.text(it, f, e) {
				continue
			}
			if !eventName.MatchString(e) {
				p.fail(it, f, "%q is not an SSE event name (what follows event: on its line, no spaces or colons)", e)
				continue
			}
			out = append(out, e)
		}
		*dst = out
	}
	events("token_events", &s.TokenEvents)
	events("reasoning_events", &s.ReasoningEvents)
	events("status_events", &s.StatusEvents)
	events("done_events", &s.DoneEvents)
	events("error_events", &s.ErrorEvents)
	if len(s.TokenEvents) == 0 {
		p.fail(get(m, "token_events"), path+".token_events", "empty; name at least one event that carries tokens, e.g. token_events: [delta]")
	}
	seen := map[string]string{}
	for _, l := range []struct {
		key   string
		names []string
	}{{"token_events", s.TokenEvents}, {"reasoning_events", s.ReasoningEvents}, {"status_events", s.StatusEvents}, {"done_events", s.DoneEvents}, {"error_events", s.ErrorEvents}} {
		for _, e := range l.names {
			if other, dup := seen[e]; dup && other != l.key {
				p.fail(n, path+"."+l.key, "event %q is also in %s; an event has one meaning", e, other)
			}
			seen[e] = l.key
		}
	}
	if v := get(m, "token_pointer"); v != nil {
		if ptr, ok := p.pointer(v, path+".token_pointer", "/text, /choices/0/delta/content", "the whole data"); ok {
			s.TokenPointer = ptr
		}
	}
	if v := get(m, "done_data"); v != nil {
		if d, ok := p.str(v, path+".done_data", "\"[DONE]\""); ok && p.text(v, path+".done_data", d) {
			if strings.TrimSpace(d) == "" {
				p.fail(v, path+".done_data", "empty; set the data line that ends the stream, e.g. done_data: \"[DONE]\", or remove it")
			}
			s.DoneData = strings.TrimSpace(d)
		}
	}
	if v := get(m, "headers_env"); v != nil {
		s.HeadersEnv = p.headersEnv(v, path+".headers_env", t)
	}
	return s
}

// placeholders checks every {{name}} in an sse body template.
func (p *parser) placeholders(n *yaml.Node, field string, v any) {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			p.placeholders(n, field, e)
		}
	case []any:
		for _, e := range x {
			p.placeholders(n, field, e)
		}
	case string:
		for _, sm := range placeholder.FindAllStringSubmatch(x, -1) {
			if _, ok := SSEPlaceholders[sm[1]]; !ok {
				names := make([]string, 0, len(SSEPlaceholders))
				for k := range SSEPlaceholders {
					names = append(names, "{{"+k+"}}")
				}
				slices.Sort(names)
				p.fail(deref(n), field, "unknown placeholder %s; use one of %s", sm[0], strings.Join(names, ", "))
			}
		}
	}
}

func (p *parser) headersEnv(n *yaml.Node, field string, t *Target) map[string]string {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		p.fail(n, field, "want a mapping of header names to environment variable names, got %s; e.g. headers_env: {X-Session-Token: APP_SESSION_TOKEN}", describe(n))
		return nil
	}
	h := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		if k.Kind != yaml.ScalarNode || !validHeaderName(k.Value) {
			p.fail(k, field, "%s is not a valid header name; use letters, digits and - (e.g. X-Session-Token)", describe(k))
			continue
		}
		f := field + "." + k.Value
		canon := http.CanonicalHeaderKey(k.Value)
		switch _, dupHeader := t.Headers[k.Value]; {
		case canon == "Content-Type" || canon == "Accept":
			p.fail(k, f, "latgate sets %s itself", canon)
			continue
		case canon == "Authorization" && t.APIKeyEnv != "":
			p.fail(k, f, "latgate sends Authorization: Bearer from api_key_env; remove one of the two")
			continue
		case dupHeader:
			p.fail(k, f, "also in headers; keep one")
			continue
		}
		if v.Kind != yaml.ScalarNode || !envPattern.MatchString(v.Value) {
			p.fail(v, f, "want the NAME of an environment variable holding the value (letters, digits, _), e.g. APP_SESSION_TOKEN; never the value itself")
			continue
		}
		h[canon] = v.Value
	}
	return h
}

// apiPrompts checks every prompt against every target's API: what one API
// cannot express is refused here, not at the first request.
func (p *parser) apiPrompts(targets []Target, prompts []Prompt) {
	for _, t := range targets {
		for i, pr := range prompts {
			if problem := chainProblem(t, pr); problem != "" { // schema_steps.go
				p.errs = append(p.errs, &Error{File: p.path, Line: pr.Line, Field: fmt.Sprintf("prompts[%d].steps", i), Msg: problem})
				continue
			}
			if problem := promptProblem(t.APIName(), pr); problem != "" {
				p.errs = append(p.errs, &Error{File: p.path, Line: pr.Line, Field: fmt.Sprintf("prompts[%d]", i),
					Msg: fmt.Sprintf("target %q (api: %s) %s", t.Name, t.APIName(), problem)})
			}
		}
	}
}

func promptProblem(api string, pr Prompt) string {
	conversational := 0
	msgs := pr.Messages
	for _, step := range pr.Steps[min(1, len(pr.Steps)):] { // a chain's later steps are sent too
		msgs = append(slices.Clip(msgs), step...)
	}
	for _, m := range msgs {
		switch {
		case m.Role == "tool" && api != APIChat:
			return "cannot send a message of role tool (a tool result needs the call it answers); keep tool results to api: chat"
		case m.Role == "user" || m.Role == "assistant":
			conversational++
		}
	}
	if conversational == 0 && api != APIChat && !appStream(api) {
		return "needs a user message: system messages alone are no request to this API"
	}
	if len(pr.Tools) > 0 && appStream(api) {
		return fmt.Sprintf("declares tools, which api: %s cannot send (its body is the %s.body template); remove them or use a provider API", api, api)
	}
	return ""
}
