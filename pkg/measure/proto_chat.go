package measure

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/latgate/latgate/pkg/config"
)

// chat is OpenAI Chat Completions, POST {base}/chat/completions, sent with
// go-openai (its request type and its error types for the answers that are
// not a stream). The stream is read by the client's own loop: go-openai's
// reader drops reasoning, misreads Ollama's errors and stamps nothing.
type chat struct {
	ep   Endpoint
	oa   *openai.Client
	reqs []openai.ChatCompletionRequest // per prompt
}

func newChat(ep Endpoint, base string, d *doer, prompts []config.Prompt) (*chat, error) {
	d.patch = map[string]json.RawMessage{}
	if ep.Temperature != nil { // go-openai drops temperature 0 (omitempty)
		d.patch["temperature"] = json.RawMessage(strconv.FormatFloat(*ep.Temperature, 'g', -1, 64))
	}
	for k, v := range ep.Extra {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("extra_body.%s: %w", k, err)
		}
		d.patch[k] = b
	}
	if !ep.IncludeUsage {
		d.patch["stream_options"] = json.RawMessage("null")
	}
	cfg := openai.DefaultConfig(strings.TrimSpace(ep.APIKey))
	cfg.BaseURL = base
	cfg.HTTPClient = d
	p := &chat{ep: ep, oa: openai.NewClientWithConfig(cfg), reqs: make([]openai.ChatCompletionRequest, len(prompts))}
	for i, pr := range prompts {
		p.reqs[i] = p.request(pr)
	}
	return p, nil
}

// request is the request of a prompt.
func (p *chat) request(pr config.Prompt) openai.ChatCompletionRequest {
	r := openai.ChatCompletionRequest{
		Model:         p.ep.Model,
		MaxTokens:     p.ep.MaxTokens,
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

func (p *chat) send(ctx context.Context, _ *client, i int) (io.Closer, error) {
	return p.sendRequest(ctx, p.reqs[i])
}

func (p *chat) sendPrompt(ctx context.Context, _ *client, pr config.Prompt) (io.Closer, error) {
	return p.sendRequest(ctx, p.request(pr))
}

func (p *chat) sendRequest(ctx context.Context, req openai.ChatCompletionRequest) (io.Closer, error) {
	st, err := p.oa.CreateChatCompletionStream(ctx, req)
	if errors.Is(err, openai.ErrReasoningModelMaxTokensDeprecated) {
		req.MaxTokens, req.MaxCompletionTokens = 0, p.ep.MaxTokens
		st, err = p.oa.CreateChatCompletionStream(ctx, req)
	}
	if err != nil {
		return nil, err
	}
	return st, nil
}

func (*chat) parse(_, data []byte, f *frame) { parseFrame(data, f) }
func (*chat) eventIDs() bool                 { return false }
func (*chat) endsAtEOF() bool                { return false }
func (*chat) finishName() string             { return "finish_reason" }
func (*chat) endName() string                { return "[DONE]" }
func (*chat) path() string                   { return "/chat/completions" }
