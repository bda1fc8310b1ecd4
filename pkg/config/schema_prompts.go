package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/latgate/latgate/internal/inputfile"
	"github.com/latgate/latgate/pkg/results"
)

// This file holds the prompts section of latgate.yaml: inline messages and
// messages files.

var (
	promptKeys  = []string{"id", "messages", "messages_file", "steps", "tools", "tool_choice", "cache", "slo"}
	messageKeys = []string{"role", "content", "name", "cache"}
)

const promptExample = `prompts: [{id: greeting, messages: [{role: user, content: "Say hello."}]}]`

func (p *parser) prompts(root, n *yaml.Node) []Prompt {
	if n == nil {
		p.fail(root, "prompts", "missing; add at least one prompt, e.g. %s", promptExample)
		return nil
	}
	items, ok := p.list(n, "prompts", promptExample)
	if !ok {
		return nil
	}
	if len(items) == 0 {
		p.fail(n, "prompts", "empty; add at least one prompt, e.g. %s", promptExample)
	}
	var out []Prompt
	seen := make(map[string]int)
	for i, it := range items {
		pr, ok := p.prompt(it, fmt.Sprintf("prompts[%d]", i))
		if !ok {
			continue
		}
		if first, dup := seen[pr.ID]; dup && pr.ID != "" {
			p.fail(it, fmt.Sprintf("prompts[%d].id", i), "duplicate prompt id %q (first at line %d); ids must be unique", pr.ID, first)
		}
		seen[pr.ID] = pr.Line
		out = append(out, pr)
	}
	return out
}

func (p *parser) prompt(n *yaml.Node, path string) (Prompt, bool) {
	m, ok := p.mapping(n, path, promptKeys)
	if !ok {
		return Prompt{}, false
	}
	pr := Prompt{Line: n.Line}
	if v := get(m, "id"); v == nil {
		p.fail(n, path, "missing required field id; add e.g. id: greeting")
	} else if s, ok := p.str(v, path+".id", "greeting"); ok {
		if !namePattern.MatchString(s) {
			p.fail(v, path+".id", "%q has characters outside A-Z a-z 0-9 . _ -; use e.g. id: greeting", s)
		}
		pr.ID = s
	}
	msgs, file, steps := get(m, "messages"), get(m, "messages_file"), get(m, "steps")
	switch {
	case steps != nil && (msgs != nil || file != nil):
		at := msgs
		if at == nil {
			at = file
		}
		p.fail(at, path, "has both steps and messages; a chain's messages are its steps': move them into steps[0].messages")
	case steps != nil:
		pr.Steps = p.steps(steps, path+".steps") // schema_steps.go
		if len(pr.Steps) > 0 {
			pr.Messages = pr.Steps[0]
		}
		if get(m, "tools") != nil || get(m, "tool_choice") != nil {
			at := get(m, "tools")
			if at == nil {
				at = get(m, "tool_choice")
			}
			p.fail(at, path+".tools", "a chain (steps) cannot declare tools: each step's answer goes back as the next step's assistant turn, as text, and a tool call is no text to replay; drop tools or steps")
		}
	case msgs != nil && file != nil:
		p.fail(file, path, "has both messages and messages_file; keep exactly one")
	case msgs == nil && file == nil:
		p.fail(n, path, "has neither messages nor messages_file; add one, e.g. messages: [{role: user, content: \"Say hello.\"}]")
	case msgs != nil:
		pr.Messages = p.messages(msgs, path+".messages")
	default:
		if s, ok := p.str(file, path+".messages_file", "prompts/rag.json"); ok {
			pr.MessagesFile = s
			pr.Messages = p.messagesFile(file, path+".messages_file", s)
		}
	}
	p.tools(m, path, &pr) // schema_tools.go
	if v := get(m, "cache"); v != nil {
		if s, ok := p.str(v, path+".cache", "warm"); ok {
			if s != results.CacheWarm && s != results.CacheCold {
				p.fail(v, path+".cache", "%q is not warm or cold; warm primes the provider's prompt cache and expects hits, cold makes every request miss it (a nonce opens the prompt); leave cache out to measure the cache as it comes", s)
			} else {
				pr.Cache = s
			}
		}
	}
	pr.SLO = p.slo(m, path) // schema_slo.go
	pr.Hash = hashPrompt(pr)
	return pr, true
}

func (p *parser) messages(n *yaml.Node, field string) []Message {
	items, ok := p.list(n, field, `messages: [{role: user, content: "Say hello."}]`)
	if !ok {
		return nil
	}
	if len(items) == 0 {
		p.fail(n, field, `empty; add at least one message, e.g. {role: user, content: "Say hello."}`)
		return nil
	}
	var out []Message
	for i, it := range items {
		f := fmt.Sprintf("%s[%d]", field, i)
		m, ok := p.mapping(it, f, messageKeys)
		if !ok {
			continue
		}
		var msg Message
		if v := get(m, "cache"); v != nil {
			msg.Cache, _ = p.boolean(v, f+".cache")
		}
		for _, k := range messageKeys[:3] { // the text fields
			if v := get(m, k); v != nil {
				read := p.str
				if k == "content" {
					read = p.payload
				}
				s, _ := read(v, f+"."+k, map[string]string{"role": "user", "content": `"Say hello."`, "name": "alice"}[k])
				switch k {
				case "role":
					msg.Role = s
				case "content":
					msg.Content = s
				case "name":
					msg.Name = s
				}
			}
		}
		if k, problem := checkMessage(msg); problem != "" {
			at := it
			if v := get(m, k); v != nil {
				at = v
			}
			p.fail(at, f+"."+k, "%s", problem)
		}
		out = append(out, msg)
	}
	return out
}

// checkMessage returns the field and the problem of an invalid message.
func checkMessage(m Message) (field, problem string) {
	switch {
	case m.Role == "":
		return "role", "missing role; add e.g. role: user (one of " + strings.Join(roles, ", ") + ")"
	case !slices.Contains(roles, m.Role):
		return "role", fmt.Sprintf("%q is not a role; use one of %s", m.Role, strings.Join(roles, ", "))
	case m.Content == "":
		return "content", "missing or empty content; add the message text, e.g. content: \"Say hello.\""
	}
	return "", ""
}

// messagesFile reads a JSON messages file: an array of messages or
// {"messages": [...]}.
func (p *parser) messagesFile(n *yaml.Node, field, rel string) []Message {
	path := p.resolve(rel)
	data, err := readFile(path)
	if err != nil {
		p.fail(n, field, "cannot read %s: %v (relative paths are resolved against the config file's directory)", path, err)
		return nil
	}
	msgs, err := decodeMessages(data, path)
	if err != nil {
		p.fail(n, field, "%v", err)
		return nil
	}
	if len(msgs) == 0 {
		p.fail(n, field, "%s holds no messages; want [{\"role\": \"user\", \"content\": \"...\"}]", path)
		return nil
	}
	for i, m := range msgs {
		if k, problem := checkMessage(m); problem != "" {
			p.fail(n, field, "%s: messages[%d].%s: %s", path, i, k, problem)
		}
	}
	return msgs
}

// readFile reads a messages file: a regular file of at most
// inputfile.MaxMessages bytes, in UTF-8 (invalid bytes would be replaced
// silently, and two different files could hash as one prompt).
func readFile(path string) ([]byte, error) {
	data, err := inputfile.Read(path, inputfile.MaxMessages)
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(data) {
		off := 0
		for off < len(data) {
			r, size := utf8.DecodeRune(data[off:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			off += size
		}
		return nil, fmt.Errorf("byte offset %d (0x%02x) is not UTF-8; save the file as UTF-8", off, data[off])
	}
	return data, nil
}

// decodeMessages strictly decodes a messages file, naming file:line on error.
func decodeMessages(data []byte, path string) ([]Message, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var msgs []Message
	var err error
	switch {
	case len(trimmed) > 0 && trimmed[0] == '[':
		err = dec.Decode(&msgs)
	case len(trimmed) > 0 && trimmed[0] == '{':
		var w struct {
			Messages []Message `json:"messages"`
		}
		err = dec.Decode(&w)
		msgs = w.Messages
	default:
		return nil, fmt.Errorf(`%s: want a JSON array of messages or an object {"messages": [...]}`, path)
	}
	if err == nil {
		if _, terr := dec.Token(); !errors.Is(terr, io.EOF) {
			err = errors.New("extra data after the JSON value")
		}
	}
	if err != nil {
		var off int64 = -1
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			off = se.Offset
		case errors.As(err, &te):
			off = te.Offset
		case errors.Is(err, io.ErrUnexpectedEOF):
			off = int64(len(data))
		default:
			off = dec.InputOffset()
		}
		line := 1 + bytes.Count(data[:min(max(off, 0), int64(len(data)))], []byte("\n"))
		return nil, fmt.Errorf(`%s:%d: invalid messages JSON: %w; want a JSON array of {"role": ..., "content": ...} or an object {"messages": [...]}`, path, line, err)
	}
	return msgs, nil
}
