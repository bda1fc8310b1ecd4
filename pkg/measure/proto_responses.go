package measure

import (
	"fmt"

	"github.com/latgate/latgate/pkg/config"
)

// responsesWire is the OpenAI Responses API: POST {base}/responses with
// stream: true, the key as Authorization: Bearer. System and developer
// messages become instructions, the others the input. Its events name
// themselves in "type": the tokens are response.output_text.delta and
// response.refusal.delta (answer), response.reasoning_summary_text.delta
// and response.reasoning_text.delta (reasoning),
// response.function_call_arguments.delta and a function_call item's
// response.output_item.added (tool call); response.created, .in_progress,
// .content_part.*, the .done events and the others are bookkeeping.
// response.completed and response.incomplete end the stream and carry the
// usage; error and response.failed are errors.
var responsesWire = wire{
	path:       "/responses",
	keyHeader:  config.KeyHeader(config.APIResponses),
	bearer:     true,
	body:       responsesBody,
	parse:      parseResponses,
	finishName: "response status",
	endName:    "response.completed",
}

type responsesInput struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type responsesTool struct {
	Type        string         `json:"type"`
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  map[string]any `json:"parameters"`
}

type responsesRequest struct {
	Model           string           `json:"model"`
	Instructions    string           `json:"instructions,omitempty"`
	Input           []responsesInput `json:"input"`
	MaxOutputTokens int              `json:"max_output_tokens"`
	Temperature     *float64         `json:"temperature,omitempty"`
	Stream          bool             `json:"stream"`
	Tools           []responsesTool  `json:"tools,omitempty"`
	ToolChoice      any              `json:"tool_choice,omitempty"`
}

// responsesBody is the request body of a prompt.
func responsesBody(ep Endpoint, pr config.Prompt) ([]byte, error) {
	system, conv := promptParts(pr.Messages)
	r := responsesRequest{Model: ep.Model, Instructions: joinText(system), MaxOutputTokens: ep.MaxTokens, Temperature: ep.Temperature, Stream: true}
	for _, m := range conv {
		r.Input = append(r.Input, responsesInput{Role: m.Role, Content: m.Content})
	}
	for _, t := range pr.Tools {
		r.Tools = append(r.Tools, responsesTool{Type: "function", Name: t.Name, Description: t.Description, Parameters: toolParameters(t)})
	}
	switch c := pr.ToolChoice; c {
	case "":
	case "auto", "required", "none":
		r.ToolChoice = c
	default:
		r.ToolChoice = map[string]string{"type": "function", "name": c}
	}
	b, err := jsonBody(r, ep.Extra)
	if err != nil {
		return nil, fmt.Errorf("prompt %q: %w", pr.ID, err)
	}
	return b, nil
}

func parseResponses(event, data []byte, f *frame) {
	var s scanner
	if !s.start(data, f) {
		return
	}
	defer s.end(f)
	var (
		typ, status, reason, raw []byte
		delta, function          bool
	)
	s.object(func(key []byte) {
		switch string(key) {
		case "type":
			typ = s.str()
		case "delta":
			raw = s.str()
			delta = len(raw) > 0
		case "item":
			s.object(func(key []byte) {
				if string(key) == "type" {
					t := s.str()
					function = string(t) == "function_call" || string(t) == "custom_tool_call"
					return
				}
				s.skip()
			})
		case "response":
			s.object(func(key []byte) {
				switch string(key) {
				case "id":
					f.id = s.str()
				case "model":
					f.model = s.str()
				case "status":
					status = s.str()
				case "incomplete_details":
					s.object(func(key []byte) {
						if string(key) == "reason" {
							reason = s.str()
							return
						}
						s.skip()
					})
				case "usage":
					s.responsesUsage(f)
				default:
					s.skip()
				}
			})
		default:
			s.skip()
		}
	})
	if typ == nil {
		typ = event
	}
	switch string(typ) {
	case "response.output_text.delta", "response.refusal.delta":
		f.content, f.text = delta, raw
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		f.reasoning = delta
	case "response.function_call_arguments.delta", "response.custom_tool_call_input.delta":
		f.toolCall = delta
	case "response.output_item.added":
		f.toolCall = function // the call's name: its first token
	case "response.completed":
		f.done, f.finishReason = true, status
	case "response.incomplete":
		f.done, f.finishReason = true, reason
		if len(reason) == 0 {
			f.finishReason = status
		}
	case "error", "response.failed":
		f.isError = true
	}
}

// responsesUsage reads a Responses usage object.
func (s *scanner) responsesUsage(f *frame) {
	if s.peek() != '{' {
		s.skip()
		return
	}
	f.hasUsage = true
	u := &f.usage
	s.object(func(key []byte) {
		switch string(key) {
		case "input_tokens":
			u.prompt, u.set = s.integer(), u.set|usePrompt
		case "output_tokens":
			u.output, u.set = s.integer(), u.set|useOutput
		case "input_tokens_details":
			s.object(func(key []byte) {
				switch string(key) {
				case "cached_tokens":
					u.cached, u.set = s.integer(), u.set|useCached
				case "cache_write_tokens", "cache_creation_tokens":
					u.cacheCreation, u.set = s.integer(), u.set|useCacheCreation
				default:
					s.skip()
				}
			})
		case "output_tokens_details":
			s.object(func(key []byte) {
				if string(key) == "reasoning_tokens" {
					u.reasoning, u.set = s.integer(), u.set|useReasoning
					return
				}
				s.skip()
			})
		default:
			s.skip()
		}
	})
}
