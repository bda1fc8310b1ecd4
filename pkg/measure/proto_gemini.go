package measure

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/latgate/latgate/pkg/config"
)

// geminiWire is the Gemini API: POST
// {base}/models/{model}:streamGenerateContent?alt=sse with the key in
// x-goog-api-key. System and developer messages become the
// systemInstruction, assistant messages the "model" role. Every event is a
// whole GenerateContentResponse: its first candidate's text parts are
// tokens (answer, or reasoning when "thought" is true), a functionCall part
// a tool call; the finishReason comes with the last, and the stream ends
// with the body (Gemini sends no end marker). usageMetadata holds the
// usage; an {"error": …} event is an error.
var geminiWire = wire{
	path: "/models",
	// The base URL's query (?key=…) goes before alt=sse (withQuery).
	url: func(base string, ep Endpoint) string {
		return base + "/models/" + url.PathEscape(ep.Model) + ":streamGenerateContent?alt=sse"
	},
	keyHeader:  config.KeyHeader(config.APIGemini),
	body:       geminiBody,
	parse:      parseGemini,
	finishName: "finishReason", // the body's end is the stream's: no endName
}

type geminiPart struct {
	Text string `json:"text"`
}

type geminiContent struct {
	Role  string       `json:"role,omitempty"`
	Parts []geminiPart `json:"parts"`
}

type geminiRequest struct {
	Contents          []geminiContent `json:"contents"`
	SystemInstruction *geminiContent  `json:"systemInstruction,omitempty"`
	GenerationConfig  map[string]any  `json:"generationConfig"`
	Tools             []geminiTools   `json:"tools,omitempty"`
	ToolConfig        map[string]any  `json:"toolConfig,omitempty"`
}

type geminiTools struct {
	FunctionDeclarations []responsesTool `json:"functionDeclarations"`
}

// geminiBody is the request body of a prompt.
func geminiBody(ep Endpoint, pr config.Prompt) ([]byte, error) {
	system, conv := promptParts(pr.Messages)
	r := geminiRequest{GenerationConfig: map[string]any{"maxOutputTokens": ep.MaxTokens}}
	if ep.Temperature != nil {
		r.GenerationConfig["temperature"] = *ep.Temperature
	}
	if len(system) > 0 {
		r.SystemInstruction = &geminiContent{Parts: []geminiPart{{Text: joinText(system)}}}
	}
	for _, m := range conv {
		role := m.Role
		if role == "assistant" {
			role = "model"
		}
		r.Contents = append(r.Contents, geminiContent{Role: role, Parts: []geminiPart{{Text: m.Content}}})
	}
	if len(pr.Tools) > 0 {
		var decls []responsesTool
		for _, t := range pr.Tools {
			decls = append(decls, responsesTool{Name: t.Name, Description: t.Description, Parameters: toolParameters(t)})
		}
		r.Tools = []geminiTools{{FunctionDeclarations: decls}}
	}
	switch c := pr.ToolChoice; c {
	case "":
	case "auto", "none":
		r.ToolConfig = map[string]any{"functionCallingConfig": map[string]any{"mode": strings.ToUpper(c)}}
	case "required":
		r.ToolConfig = map[string]any{"functionCallingConfig": map[string]any{"mode": "ANY"}}
	default:
		r.ToolConfig = map[string]any{"functionCallingConfig": map[string]any{"mode": "ANY", "allowedFunctionNames": []string{c}}}
	}
	b, err := jsonBody(r, ep.Extra)
	if err != nil {
		return nil, fmt.Errorf("prompt %q: %w", pr.ID, err)
	}
	return b, nil
}

func parseGemini(_, data []byte, f *frame) {
	var s scanner
	if !s.start(data, f) {
		return
	}
	defer s.end(f)
	s.object(func(key []byte) {
		switch string(key) {
		case "candidates":
			s.array(func(i int) {
				if i != 0 {
					s.skip()
					return
				}
				s.object(func(key []byte) {
					switch string(key) {
					case "content":
						s.object(func(key []byte) {
							if string(key) != "parts" {
								s.skip()
								return
							}
							s.array(func(int) {
								var (
									text, thought, call bool
									raw                 []byte
								)
								s.object(func(key []byte) {
									switch string(key) {
									case "text":
										raw = s.str()
										text = len(raw) > 0
									case "thought":
										thought = s.peek() == 't'
										s.skip()
									case "functionCall":
										call = s.peek() == '{'
										s.skip()
									default:
										s.skip()
									}
								})
								switch {
								case call:
									f.toolCall = true
								case text && thought:
									f.reasoning = true
								case text:
									f.content = true
									if f.text == nil {
										f.text = raw
									} else { // parts of one event, in order (rare: a copy)
										f.text = append(f.text[:len(f.text):len(f.text)], raw...)
									}
								}
							})
						})
					case "finishReason":
						f.finishReason = s.str()
					default:
						s.skip()
					}
				})
			})
		case "usageMetadata":
			s.geminiUsage(f)
		case "modelVersion":
			f.model = s.str()
		case "responseId":
			f.id = s.str()
		case "error":
			f.isError = s.peek() != 'n'
			s.skip()
		default:
			s.skip()
		}
	})
}

// geminiUsage reads usageMetadata. candidatesTokenCount leaves out the
// thoughts: the output is their sum, as the other APIs count it.
func (s *scanner) geminiUsage(f *frame) {
	if s.peek() != '{' {
		s.skip()
		return
	}
	f.hasUsage = true
	u := &f.usage
	var candidates, thoughts int
	var hasCandidates bool
	s.object(func(key []byte) {
		switch string(key) {
		case "promptTokenCount":
			u.prompt, u.set = s.integer(), u.set|usePrompt
		case "candidatesTokenCount":
			candidates, hasCandidates = s.integer(), true
		case "thoughtsTokenCount":
			thoughts = s.integer()
			u.reasoning, u.set = thoughts, u.set|useReasoning
		case "cachedContentTokenCount":
			u.cached, u.set = s.integer(), u.set|useCached
		default:
			s.skip()
		}
	})
	if hasCandidates {
		u.output, u.set = candidates+thoughts, u.set|useOutput
	}
}
