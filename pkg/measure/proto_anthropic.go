package measure

import (
	"fmt"

	"github.com/latgate/latgate/pkg/config"
)

// anthropicVersion is the anthropic-version header latgate sends (the
// Messages API's current one); a target's headers may set another.
const anthropicVersion = "2023-06-01"

// anthropicWire is the Anthropic Messages API: POST {base}/messages with
// stream: true, the key in x-api-key and an anthropic-version header.
// System and developer messages become the system blocks; a message marked
// cache: true carries a cache_control breakpoint. The tokens are the
// content_block_delta events' text_delta (answer), thinking_delta
// (reasoning) and input_json_delta (tool call), and the content_block_start
// of a tool_use block (the call's name). message_start, ping,
// content_block_stop, signature_delta and the other deltas are
// bookkeeping; message_delta carries the stop_reason and the output usage,
// message_stop ends the stream, an error event is an error.
var anthropicWire = wire{
	path:       "/messages",
	keyHeader:  config.KeyHeader(config.APIAnthropic),
	headers:    []header{{"Anthropic-Version", anthropicVersion}},
	body:       anthropicBody,
	parse:      parseAnthropic,
	finishName: "stop_reason",
	endName:    "message_stop",
}

type anthropicCache struct {
	Type string `json:"type"`
}

type anthropicBlock struct {
	Type         string          `json:"type"`
	Text         string          `json:"text"`
	CacheControl *anthropicCache `json:"cache_control,omitempty"`
}

type anthropicMessage struct {
	Role    string `json:"role"`
	Content any    `json:"content"` // a string, or blocks when cached
}

type anthropicTool struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	InputSchema map[string]any `json:"input_schema"`
}

type anthropicRequest struct {
	Model       string             `json:"model"`
	MaxTokens   int                `json:"max_tokens"`
	System      []anthropicBlock   `json:"system,omitempty"`
	Messages    []anthropicMessage `json:"messages"`
	Temperature *float64           `json:"temperature,omitempty"`
	Stream      bool               `json:"stream"`
	Tools       []anthropicTool    `json:"tools,omitempty"`
	ToolChoice  map[string]string  `json:"tool_choice,omitempty"`
}

func cacheOf(m config.Message) *anthropicCache {
	if m.Cache {
		return &anthropicCache{Type: "ephemeral"}
	}
	return nil
}

// anthropicBody is the request body of a prompt.
func anthropicBody(ep Endpoint, pr config.Prompt) ([]byte, error) {
	system, conv := promptParts(pr.Messages)
	r := anthropicRequest{Model: ep.Model, MaxTokens: ep.MaxTokens, Temperature: ep.Temperature, Stream: true}
	for _, m := range system {
		r.System = append(r.System, anthropicBlock{Type: "text", Text: m.Content, CacheControl: cacheOf(m)})
	}
	for _, m := range conv {
		msg := anthropicMessage{Role: m.Role, Content: m.Content}
		if m.Cache {
			msg.Content = []anthropicBlock{{Type: "text", Text: m.Content, CacheControl: cacheOf(m)}}
		}
		r.Messages = append(r.Messages, msg)
	}
	for _, t := range pr.Tools {
		r.Tools = append(r.Tools, anthropicTool{Name: t.Name, Description: t.Description, InputSchema: toolParameters(t)})
	}
	switch c := pr.ToolChoice; c {
	case "":
	case "auto", "none":
		r.ToolChoice = map[string]string{"type": c}
	case "required":
		r.ToolChoice = map[string]string{"type": "any"}
	default:
		r.ToolChoice = map[string]string{"type": "tool", "name": c}
	}
	b, err := jsonBody(r, ep.Extra)
	if err != nil {
		return nil, fmt.Errorf("prompt %q: %w", pr.ID, err)
	}
	return b, nil
}

func parseAnthropic(event, data []byte, f *frame) {
	var s scanner
	if !s.start(data, f) {
		return
	}
	defer s.end(f)
	var (
		typ, deltaType, blockType, raw []byte
		text                           bool
	)
	s.object(func(key []byte) {
		switch string(key) {
		case "type":
			typ = s.str()
		case "delta":
			s.object(func(key []byte) {
				switch string(key) {
				case "type":
					deltaType = s.str()
				case "text", "thinking", "partial_json":
					raw = s.str()
					text = len(raw) > 0
				case "stop_reason":
					f.finishReason = s.str()
				default:
					s.skip()
				}
			})
		case "content_block":
			s.object(func(key []byte) {
				if string(key) == "type" {
					blockType = s.str()
					return
				}
				s.skip()
			})
		case "message":
			s.object(func(key []byte) {
				switch string(key) {
				case "id":
					f.id = s.str()
				case "model":
					f.model = s.str()
				case "usage":
					s.anthropicUsage(f)
				default:
					s.skip()
				}
			})
		case "usage":
			s.anthropicUsage(f)
		default:
			s.skip()
		}
	})
	if typ == nil {
		typ = event
	}
	switch string(typ) {
	case "content_block_delta":
		switch string(deltaType) {
		case "text_delta":
			f.content, f.text = text, raw
		case "thinking_delta":
			f.reasoning = text
		case "input_json_delta":
			f.toolCall = text
		}
	case "content_block_start":
		switch string(blockType) {
		case "tool_use", "server_tool_use", "mcp_tool_use":
			f.toolCall = true // the call's name: its first token
		}
	case "message_stop":
		f.done = true
	case "error":
		f.isError = true
	}
}

// anthropicUsage reads an Anthropic usage object. Its input_tokens leave out
// the tokens read from and written to the cache: the prompt is their sum.
func (s *scanner) anthropicUsage(f *frame) {
	if s.peek() != '{' {
		s.skip()
		return
	}
	f.hasUsage = true
	u := &f.usage
	var input, read, created int
	var hasInput bool
	s.object(func(key []byte) {
		switch string(key) {
		case "input_tokens":
			input, hasInput = s.integer(), true
		case "cache_read_input_tokens":
			read = s.integer()
			u.cached, u.set = read, u.set|useCached
		case "cache_creation_input_tokens":
			created = s.integer()
			u.cacheCreation, u.set = created, u.set|useCacheCreation
		case "output_tokens":
			u.output, u.set = s.integer(), u.set|useOutput
		case "output_tokens_details":
			s.object(func(key []byte) {
				if string(key) == "thinking_tokens" {
					u.reasoning, u.set = s.integer(), u.set|useReasoning
					return
				}
				s.skip()
			})
		default:
			s.skip()
		}
	})
	if hasInput {
		u.prompt, u.set = input+read+created, u.set|usePrompt
	}
}
