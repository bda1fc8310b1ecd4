package config

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// apiConfig is a config with one target whose lines are target (indented
// under "- ") and one prompt whose lines are prompt.
func apiConfig(target, prompt string) []byte {
	if prompt == "" {
		prompt = "messages: [{role: user, content: hi}]"
	}
	return []byte("targets:\n  - name: t\n    " + strings.ReplaceAll(strings.TrimSpace(target), "\n", "\n    ") +
		"\nprompts:\n  - id: p\n    " + strings.ReplaceAll(strings.TrimSpace(prompt), "\n", "\n    ") + "\n")
}

func TestAPIDefaults(t *testing.T) {
	tests := []struct {
		target               string
		api, baseURL, keyEnv string
	}{
		{"model: m", APIChat, DefaultBaseURL, "OPENAI_API_KEY"},
		{"api: chat\nmodel: m", APIChat, DefaultBaseURL, "OPENAI_API_KEY"},
		{"api: responses\nmodel: gpt-5-mini", APIResponses, DefaultBaseURL, "OPENAI_API_KEY"},
		{"api: anthropic\nmodel: claude-haiku-4-5", APIAnthropic, "https://api.anthropic.com/v1", "ANTHROPIC_API_KEY"},
		{"api: gemini\nmodel: gemini-2.5-flash", APIGemini, "https://generativelanguage.googleapis.com/v1beta", "GEMINI_API_KEY"},
		{"api: anthropic\nmodel: m\napi_key_env: MY_KEY\nbase_url: https://gw.example.com/anthropic/v1", APIAnthropic, "https://gw.example.com/anthropic/v1", "MY_KEY"},
		{"api: sse\nbase_url: https://app.example.com/api/chat\nmodel: m\nsse: {token_events: [delta], token_pointer: /text}", APISSE, "https://app.example.com/api/chat", ""},
	}
	for _, tt := range tests {
		cfg, err := parse(t, apiConfig(tt.target, ""))
		if err != nil {
			t.Errorf("%q: %v", tt.target, err)
			continue
		}
		tg := cfg.Targets[0]
		if tg.API != tt.api || tg.BaseURL != tt.baseURL || tg.APIKeyEnv != tt.keyEnv {
			t.Errorf("%q: api %q, base_url %q, api_key_env %q; want %q, %q, %q", tt.target, tg.API, tg.BaseURL, tg.APIKeyEnv, tt.api, tt.baseURL, tt.keyEnv)
		}
	}
}

func TestAPIErrors(t *testing.T) {
	sse := "api: sse\nbase_url: https://app.example.com/chat\nmodel: m\n"
	tests := []struct {
		name, target, prompt string
		want                 string // in the error
	}{
		{"unknown api", "api: bedrock\nmodel: m", "", `"bedrock" is not an API latgate speaks; use one of chat, responses, anthropic, gemini, sse`},
		{"x-api-key on anthropic", "api: anthropic\nmodel: m\nheaders: {x-api-key: sk-ant-1}", "", "latgate sets X-Api-Key from the key in the environment variable named by api_key_env (api: anthropic)"},
		{"x-goog-api-key on gemini", "api: gemini\nmodel: m\nheaders: {X-Goog-Api-Key: AIza}", "", "latgate sets X-Goog-Api-Key from the key"},
		{"x-api-key on chat", "model: m\nheaders: {x-api-key: k}", "", "looks like a credential header"},
		{"authorization on anthropic", "api: anthropic\nmodel: m\nheaders: {Authorization: Bearer x}", "", "latgate sets X-Api-Key"},
		{"credential header on sse", sse + "sse: {}\nheaders: {X-Session-Token: abc}", "", "name the environment variable that holds the value in sse.headers_env instead"},
		{"include_usage off chat", "api: anthropic\nmodel: m\ninclude_usage: false", "", "applies to api: chat only"},
		{"sse section off sse", "model: m\nsse: {}", "", "applies to api: sse only"},
		{"sse without section", "api: sse\nbase_url: https://app.example.com/chat\nmodel: m", "", "api: sse needs an sse section"},
		{"sse without base_url", "api: sse\nmodel: m\nsse: {}", "", "api: sse needs base_url"},
		{"sse extra_body", sse + "sse: {}\nextra_body: {top_k: 1}", "", "api: sse sends sse.body as it is"},
		{"sse empty done_data", sse + "sse: {done_data: \" \"}", "", `targets[0].sse.done_data: empty; set the data line that ends the stream, e.g. done_data: "[DONE]"`},
		{"sse done_data not a string", sse + "sse: {done_data: [x]}", "", `targets[0].sse.done_data`},
		{"unknown placeholder", sse + `sse: {body: {q: "{{question}}"}}`, "", "unknown placeholder {{question}}"},
		{"pointer without slash", sse + "sse: {token_pointer: text}", "", `"text" is not a JSON pointer`},
		{"event twice", sse + "sse: {token_events: [delta], done_events: [delta]}", "", `event "delta" is also in token_events`},
		{"bad event name", sse + `sse: {token_events: ["two words"]}`, "", "is not an SSE event name"},
		{"no token events", sse + "sse: {token_events: []}", "", "name at least one event that carries tokens"},
		{"headers_env value", sse + "sse: {headers_env: {X-Session: abc-123}}", "", "want the NAME of an environment variable"},
		{"headers_env authorization and key", sse + "api_key_env: APP_KEY\nsse: {headers_env: {Authorization: APP_AUTH}}", "", "latgate sends Authorization: Bearer from api_key_env"},
		{"reserved body field", "api: anthropic\nmodel: m\nextra_body: {system: be brief}", "", "latgate sets system itself"},
		{"reserved responses field", "api: responses\nmodel: m\nextra_body: {max_output_tokens: 9}", "", "latgate sets max_output_tokens itself"},
		{"tool role on anthropic", "api: anthropic\nmodel: m", "messages: [{role: user, content: hi}, {role: tool, content: '42'}]", "cannot send a message of role tool"},
		{"system only on gemini", "api: gemini\nmodel: m", "messages: [{role: system, content: be brief}]", "needs a user message"},
		{"tools on sse", sse + "sse: {}", "messages: [{role: user, content: hi}]\ntools: [{name: f}]", "declares tools, which api: sse cannot send"},
		{"tool_choice without tools", "model: m", "messages: [{role: user, content: hi}]\ntool_choice: required", "the prompt declares no tools"},
		{"unknown tool_choice", "model: m", "messages: [{role: user, content: hi}]\ntools: [{name: f}]\ntool_choice: g", `"g" is neither auto, required, none nor the name of one of the prompt's tools`},
		{"bad tool name", "model: m", "messages: [{role: user, content: hi}]\ntools: [{name: 'get weather'}]", "is not a tool name every API accepts"},
		{"tool parameters not a mapping", "model: m", "messages: [{role: user, content: hi}]\ntools: [{name: f, parameters: [1]}]", "want a JSON Schema object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(t, apiConfig(tt.target, tt.prompt))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestSSESection(t *testing.T) {
	cfg, err := parse(t, apiConfig(`
api: sse
base_url: https://app.example.com/api/chat
model: m
api_key_env: APP_KEY
sse:
  body: {question: "{{prompt}}", history: "{{messages}}", note: "model {{model}}"}
  token_events: [delta]
  reasoning_events: [thinking]
  token_pointer: /text
  status_events: [status]
  done_events: [done]
  headers_env: {x-session-token: APP_SESSION}`, ""))
	if err != nil {
		t.Fatal(err)
	}
	want := &SSE{
		Body:        map[string]any{"question": "{{prompt}}", "history": "{{messages}}", "note": "model {{model}}"},
		TokenEvents: []string{"delta"}, ReasoningEvents: []string{"thinking"}, TokenPointer: "/text",
		StatusEvents: []string{"status"}, DoneEvents: []string{"done"}, ErrorEvents: []string{"error"},
		HeadersEnv: map[string]string{"X-Session-Token": "APP_SESSION"},
	}
	if diff := cmp.Diff(want, cfg.Targets[0].SSE); diff != "" {
		t.Errorf("sse (-want +got):\n%s", diff)
	}
	// The default body, events and error events.
	cfg, err = parse(t, apiConfig("api: sse\nbase_url: https://app.example.com/chat\nmodel: m\nsse: {}", ""))
	if err != nil {
		t.Fatal(err)
	}
	got := cfg.Targets[0].SSE
	if got.Body == nil || got.TokenEvents[0] != "message" || got.ErrorEvents[0] != "error" {
		t.Errorf("defaults: %+v", got)
	}
}

// TestAPIHashes: a chat config hashes as it did before api existed (with or
// without api: chat), prompts without tools hash as their messages, and
// the api, tools and cache breakpoints change the hashes.
func TestAPIHashes(t *testing.T) {
	hash := func(target, prompt string) (string, string) {
		t.Helper()
		cfg, err := parse(t, apiConfig(target, prompt))
		if err != nil {
			t.Fatal(err)
		}
		return cfg.Hash, cfg.Prompts[0].Hash
	}
	chatHash, promptHash := hash("model: m", "")
	if h, _ := hash("api: chat\nmodel: m", ""); h != chatHash {
		t.Errorf("api: chat hashes %s, no api %s: want the same", h, chatHash)
	}
	if want := hashMessages([]Message{{Role: "user", Content: "hi"}}); promptHash != want {
		t.Errorf("prompt hash %s, want the messages' hash %s", promptHash, want)
	}
	if h, _ := hash("api: responses\nmodel: m", ""); h == chatHash {
		t.Error("api: responses hashes like chat")
	}
	if _, h := hash("model: m", "messages: [{role: user, content: hi}]\ntools: [{name: f}]"); h == promptHash {
		t.Error("a prompt with tools hashes like one without")
	}
	if _, h := hash("model: m", "messages: [{role: user, content: hi, cache: true}]"); h == promptHash {
		t.Error("a cache breakpoint does not change the prompt's hash")
	}
}

// TestSSEDoneData: sse.done_data is read trimmed, and it is part of the
// config's identity only when set (a baseline of a config without it keeps
// its hash).
func TestSSEDoneData(t *testing.T) {
	base := "api: sse\nbase_url: https://app.example.com/chat\nmodel: m\nsse: {token_pointer: /choices/0/delta/content%s}"
	with, err := parse(t, apiConfig(fmt.Sprintf(base, `, done_data: " [DONE] "`), ""))
	if err != nil {
		t.Fatal(err)
	}
	if got := with.Targets[0].SSE.DoneData; got != "[DONE]" {
		t.Errorf("done_data read as %q, want [DONE]", got)
	}
	without, err := parse(t, apiConfig(fmt.Sprintf(base, ""), ""))
	if err != nil {
		t.Fatal(err)
	}
	if with.Hash == without.Hash {
		t.Errorf("done_data does not change the config hash %s: it decides where an answer ends", with.Hash)
	}
	if h := sseHashOf(without.Targets[0].SSE); strings.Contains(mustJSON(t, h), "done_data") {
		t.Errorf("an sse section without done_data hashes with the key: %s (earlier baselines would not match)", mustJSON(t, h))
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestNDJSONSection: ndjson: {preset: ollama} is Ollama's native chat API,
// a key set beside the preset overrides it, and a section of its own needs
// token_pointer; every mistake names the field and the fix. The pointers
// are part of the config's identity.
func TestNDJSONSection(t *testing.T) {
	cfg, err := parse(t, apiConfig("api: ndjson\nbase_url: http://127.0.0.1:11434/api/chat\nmodel: qwen3:0.6b\nndjson: {preset: ollama}", ""))
	if err != nil {
		t.Fatal(err)
	}
	ollama := NDJSONPresets()["ollama"]
	if diff := cmp.Diff(&ollama, cfg.Targets[0].NDJSON); diff != "" {
		t.Errorf("preset ollama (-want +got):\n%s", diff)
	}
	over, err := parse(t, apiConfig("api: ndjson\nbase_url: http://127.0.0.1:11434/api/chat\nmodel: m\nndjson: {preset: ollama, body: {model: m, stream: true, messages: \"{{messages}}\"}, reasoning_pointer: \"\", headers_env: {X-Tenant: TENANT}}", ""))
	if err != nil {
		t.Fatal(err)
	}
	want := ollama
	want.Body = map[string]any{"model": "m", "stream": true, "messages": "{{messages}}"}
	want.ReasoningPointer = ""
	want.HeadersEnv = map[string]string{"X-Tenant": "TENANT"}
	if diff := cmp.Diff(&want, over.Targets[0].NDJSON); diff != "" {
		t.Errorf("preset with overrides (-want +got):\n%s", diff)
	}
	if over.Hash == cfg.Hash {
		t.Error("another body and pointers hash like the preset")
	}
	own, err := parse(t, apiConfig("api: ndjson\nbase_url: https://app.example.com/stream\nmodel: m\nndjson: {token_pointer: /delta, done_pointer: /done}", ""))
	if err != nil {
		t.Fatal(err)
	}
	if n := own.Targets[0].NDJSON; n.Body == nil || n.ErrorPointer != "/error" || n.TokenPointer != "/delta" || n.Preset != "" {
		t.Errorf("own section: %+v; want the default body, error_pointer /error", n)
	}

	for _, tt := range []struct{ name, target, want string }{
		{"no section", "api: ndjson\nbase_url: http://h/api/chat\nmodel: m", "targets[0]: api: ndjson needs an ndjson section saying what to send and where each line has its tokens, e.g. ndjson: {preset: ollama}"},
		{"not ndjson", "model: m\nndjson: {preset: ollama}", "targets[0].ndjson: applies to api: ndjson only; remove it or set api: ndjson"},
		{"unknown preset", "api: ndjson\nbase_url: http://h/api/chat\nmodel: m\nndjson: {preset: vllm}", `targets[0].ndjson.preset: "vllm" is not a preset latgate knows; use one of ollama`},
		{"no token pointer", "api: ndjson\nbase_url: http://h/s\nmodel: m\nndjson: {done_pointer: /done}", "targets[0].ndjson.token_pointer: missing; say where each line has its answer text"},
		{"not a pointer", "api: ndjson\nbase_url: http://h/s\nmodel: m\nndjson: {token_pointer: text}", `targets[0].ndjson.token_pointer: "text" is not a JSON pointer; it starts with /`},
		{"no base_url", "api: ndjson\nmodel: m\nndjson: {preset: ollama}", "api: ndjson needs base_url, the URL of the streaming endpoint itself (POST), e.g. base_url: http://127.0.0.1:11434/api/chat"},
		{"extra_body", "api: ndjson\nbase_url: http://h/s\nmodel: m\nextra_body: {x: 1}\nndjson: {preset: ollama}", "targets[0].extra_body: api: ndjson sends ndjson.body as it is; put the fields there"},
		{"unknown key", "api: ndjson\nbase_url: http://h/s\nmodel: m\nndjson: {preset: ollama, token_events: [x]}", `unknown key "token_events"`},
		{"one pointer twice", "api: ndjson\nbase_url: http://h/s\nmodel: m\nndjson: {token_pointer: /text, reasoning_pointer: /text}", "token_pointer /text and reasoning_pointer /text lead to the same value or one into the other"},
		{"one pointer inside another", "api: ndjson\nbase_url: http://h/s\nmodel: m\nndjson: {preset: ollama, token_pointer: /message}", "token_pointer /message and reasoning_pointer /message/thinking lead to the same value or one into the other"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(t, apiConfig(tt.target, ""))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want it to hold %q", err, tt.want)
			}
		})
	}
}
