package measure

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	openai "github.com/sashabaranov/go-openai"

	"github.com/latgate/latgate/pkg/config"
)

// chatWire is OpenAI Chat Completions, POST {base}/chat/completions, the
// key as Authorization: Bearer. go-openai serves it where it knows the
// API, off the hot path: its request types build the body, its reasoning
// models' rule sends the limit as max_completion_tokens, and its error
// shape reads the error answers. The request goes through the shared post
// and the stream through the client's own loop (go-openai's reader drops
// reasoning, misreads Ollama's errors and stamps nothing). Cache-Control
// and Connection are the headers go-openai's stream sends.
var chatWire = wire{
	path:         "/chat/completions",
	keyHeader:    config.KeyHeader(config.APIChat),
	bearer:       true,
	headers:      []header{{"Cache-Control", "no-cache"}, {"Connection", "keep-alive"}},
	body:         chatBody,
	errorMessage: chatErrorMessage,
	parse:        func(_, data []byte, f *frame) { parseFrame(data, f) },
	finishName:   "finish_reason",
	endName:      "[DONE]",
}

// chatBody is the request body of a prompt: go-openai's request type,
// marshalled as go-openai sends it, then with the fields its type cannot
// say (chatFields) set over it.
func chatBody(ep Endpoint, pr config.Prompt) ([]byte, error) {
	r := chatRequest(ep, pr)
	v := openai.NewReasoningValidator()
	err := v.Validate(r)
	if errors.Is(err, openai.ErrReasoningModelMaxTokensDeprecated) {
		r.MaxTokens, r.MaxCompletionTokens = 0, ep.MaxTokens
		err = v.Validate(r)
	}
	if err != nil {
		return nil, &refusal{err}
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("prompt %q: %w", pr.ID, err)
	}
	fields, err := chatFields(ep)
	if err != nil || len(fields) == 0 {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("prompt %q: %w", pr.ID, err)
	}
	for k, v := range fields {
		m[k] = v
	}
	return json.Marshal(m)
}

// chatRequest is go-openai's request of a prompt.
func chatRequest(ep Endpoint, pr config.Prompt) openai.ChatCompletionRequest {
	r := openai.ChatCompletionRequest{
		Model:         ep.Model,
		MaxTokens:     ep.MaxTokens,
		Stream:        true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	}
	for _, m := range pr.Messages {
		r.Messages = append(r.Messages, openai.ChatCompletionMessage{Role: m.Role, Content: m.Content, Name: m.Name})
	}
	for _, t := range pr.Tools {
		r.Tools = append(r.Tools, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: toolParameters(t)}})
	}
	r.ToolChoice = chatToolChoice(pr.ToolChoice)
	return r
}

// chatFields are the body fields set over go-openai's: the temperature
// (its type drops 0 as empty), extra_body's fields, and stream_options
// null when include_usage is off (its type cannot send it null).
func chatFields(ep Endpoint) (map[string]json.RawMessage, error) {
	fields := map[string]json.RawMessage{}
	if ep.Temperature != nil {
		fields["temperature"] = json.RawMessage(strconv.FormatFloat(*ep.Temperature, 'g', -1, 64))
	}
	for k, v := range ep.Extra {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("extra_body.%s: %w", k, err)
		}
		fields[k] = b
	}
	if !ep.IncludeUsage {
		fields["stream_options"] = json.RawMessage("null")
	}
	return fields, nil
}

// toolParameters is a tool's argument schema, an empty object schema when
// it declares none (every API wants one).
func toolParameters(t config.Tool) map[string]any {
	if t.Parameters == nil {
		return map[string]any{"type": "object", "properties": map[string]any{}}
	}
	return t.Parameters
}

func chatToolChoice(choice string) any {
	switch {
	case choice == "":
		return nil
	case slices.Contains([]string{"auto", "required", "none"}, choice):
		return choice
	}
	return openai.ToolChoice{Type: openai.ToolTypeFunction, Function: openai.ToolFunction{Name: choice}}
}

// chatErrorMessage reads an error answer in go-openai's error shape
// ({"error": {"message": …}}, the message a string or strings): its
// message alone, as latgate has always reported chat's errors.
func chatErrorMessage(body []byte) string {
	var r openai.ErrorResponse
	if json.Unmarshal(body, &r) != nil || r.Error == nil {
		return ""
	}
	return r.Error.Message
}
