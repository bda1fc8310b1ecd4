package config

import (
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// This file holds the options of api: ndjson, a stream of newline-delimited
// JSON objects, one per line.

// NDJSON is how latgate talks to a streaming endpoint of api: ndjson. Each
// non-empty line of the answer is one JSON object; the pointers (RFC 6901)
// say where in it each thing is, "" for none.
type NDJSON struct {
	// Preset is the name of the preset the section started from ("" for
	// none): ollama is Ollama's native /api/chat.
	Preset string
	// Body is the JSON request body, a template with the placeholders of
	// api: sse (SSEPlaceholders).
	Body any
	// TokenPointer is the answer text of a line, ReasoningPointer its
	// reasoning (thinking) text: a line whose string there is non-empty
	// carries a token.
	TokenPointer, ReasoningPointer string
	// DonePointer is a boolean that is true on the line that ends the
	// answer; with none, the end of the body does. FinishPointer is the
	// finish reason ("stop", "length"), ErrorPointer an error (a line
	// with a non-null value there is an error in the stream).
	DonePointer, FinishPointer, ErrorPointer string
	// PromptTokensPointer and OutputTokensPointer are the usage the
	// endpoint reports, as integers (Ollama's prompt_eval_count and
	// eval_count on its last line).
	PromptTokensPointer, OutputTokensPointer string
	// ModelPointer is the model that served the answer, as results record
	// it (a model swapped behind an alias shows).
	ModelPointer string
	// HeadersEnv maps a header name to the environment variable whose
	// value is sent in it, as sse.headers_env.
	HeadersEnv map[string]string
}

// NDJSONPresets are the ndjson presets by name: what each sets, and what
// the config may still override key by key.
func NDJSONPresets() map[string]NDJSON {
	return map[string]NDJSON{
		// Ollama's native chat API (https://github.com/ollama/ollama/blob/main/docs/api.md):
		// POST /api/chat, options.num_predict the token limit; each line
		// {"message": {"content": …}, "done": false}, the last with done:
		// true, done_reason and the prompt and output token counts.
		"ollama": {
			Preset: "ollama",
			Body: map[string]any{"model": "{{model}}", "messages": "{{messages}}", "stream": true,
				"options": map[string]any{"num_predict": "{{max_tokens}}"}},
			TokenPointer: "/message/content", ReasoningPointer: "/message/thinking",
			DonePointer: "/done", FinishPointer: "/done_reason", ErrorPointer: "/error",
			PromptTokensPointer: "/prompt_eval_count", OutputTokensPointer: "/eval_count", ModelPointer: "/model",
		},
	}
}

var ndjsonKeys = []string{"preset", "body", "token_pointer", "reasoning_pointer", "done_pointer", "finish_pointer", "error_pointer",
	"prompt_tokens_pointer", "output_tokens_pointer", "model_pointer", "headers_env"}

const ndjsonExample = `ndjson: {preset: ollama} (Ollama's /api/chat), or ndjson: {body: {question: "{{prompt}}"}, token_pointer: /text, done_pointer: /done}`

func (p *parser) ndjson(n *yaml.Node, path string, t *Target) *NDJSON {
	m, ok := p.mapping(n, path, ndjsonKeys)
	if !ok {
		return nil
	}
	s := &NDJSON{ErrorPointer: "/error"}
	if v := get(m, "preset"); v != nil {
		if name, ok := p.str(v, path+".preset", "ollama"); ok {
			presets := NDJSONPresets()
			if pr, found := presets[name]; found {
				s = &pr
			} else {
				p.fail(v, path+".preset", "%q is not a preset latgate knows; use one of %s, or remove it and set the pointers", name, strings.Join(slices.Sorted(maps.Keys(presets)), ", "))
			}
		}
	}
	if s.Body == nil {
		s.Body = defaultStreamBody()
	}
	s.Body = p.bodyTemplate(m, path, s.Body)
	for _, f := range []struct {
		key string
		dst *string
	}{
		{"token_pointer", &s.TokenPointer}, {"reasoning_pointer", &s.ReasoningPointer}, {"done_pointer", &s.DonePointer},
		{"finish_pointer", &s.FinishPointer}, {"error_pointer", &s.ErrorPointer},
		{"prompt_tokens_pointer", &s.PromptTokensPointer}, {"output_tokens_pointer", &s.OutputTokensPointer},
		{"model_pointer", &s.ModelPointer},
	} {
		v := get(m, f.key)
		if v == nil {
			continue
		}
		if ptr, ok := p.pointer(v, path+"."+f.key, "/message/content", "none"); ok {
			*f.dst = ptr
		}
	}
	named := []struct{ key, ptr string }{
		{"token_pointer", s.TokenPointer}, {"reasoning_pointer", s.ReasoningPointer}, {"done_pointer", s.DonePointer},
		{"finish_pointer", s.FinishPointer}, {"error_pointer", s.ErrorPointer}, {"prompt_tokens_pointer", s.PromptTokensPointer},
		{"output_tokens_pointer", s.OutputTokensPointer}, {"model_pointer", s.ModelPointer},
	}
	for i, a := range named {
		for _, b := range named[i+1:] {
			if a.ptr == "" || b.ptr == "" {
				continue
			}
			if a.ptr == b.ptr || strings.HasPrefix(b.ptr, a.ptr+"/") || strings.HasPrefix(a.ptr, b.ptr+"/") {
				p.fail(n, path, "%s %s and %s %s lead to the same value or one into the other; each pointer must name a value of its own (set one of them to \"\" if a preset set it)", a.key, a.ptr, b.key, b.ptr)
			}
		}
	}
	if s.TokenPointer == "" {
		p.fail(n, path+".token_pointer", "missing; say where each line has its answer text, e.g. token_pointer: /message/content, or start from a preset: preset: ollama")
	}
	if v := get(m, "headers_env"); v != nil {
		s.HeadersEnv = p.headersEnv(v, path+".headers_env", t)
	}
	return s
}
