package config

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/latgate/latgate/pkg/results"
)

// This file holds a prompt's steps: an agent chain, message sets sent one
// after another in one scenario, each step waiting for the previous answer,
// which becomes the assistant turn before the next step's messages.

var stepKeys = []string{"messages", "messages_file"}

const stepsExample = `steps: [{messages: [{role: user, content: "Plan it."}]}, {messages: [{role: user, content: "Now do step one."}]}]`

// steps parses a prompt's steps: at least two, at most results.MaxSteps,
// each with messages or a messages file, each ending with a user message
// (what the step asks), system and developer messages only in the first.
func (p *parser) steps(n *yaml.Node, path string) [][]Message {
	items, ok := p.list(n, path, stepsExample)
	if !ok {
		return nil
	}
	switch {
	case len(items) < 2:
		p.fail(n, path, "%d step; a chain has at least two (one step is a prompt: write its messages as messages: instead), e.g. %s", len(items), stepsExample)
		return nil
	case len(items) > results.MaxSteps:
		p.fail(n, path, "%d steps is more than a chain may have (%d); split it into shorter chains", len(items), results.MaxSteps)
		return nil
	}
	out := make([][]Message, 0, len(items))
	for i, it := range items {
		f := fmt.Sprintf("%s[%d]", path, i)
		m, ok := p.mapping(it, f, stepKeys)
		if !ok {
			continue
		}
		var msgs []Message
		switch mv, fv := get(m, "messages"), get(m, "messages_file"); {
		case mv != nil && fv != nil:
			p.fail(fv, f, "has both messages and messages_file; keep exactly one")
			continue
		case mv == nil && fv == nil:
			p.fail(it, f, `has neither messages nor messages_file; add what the step asks, e.g. messages: [{role: user, content: "Now do step one."}]`)
			continue
		case mv != nil:
			msgs = p.messages(mv, f+".messages")
		default:
			if s, ok := p.str(fv, f+".messages_file", "prompts/step2.json"); ok {
				msgs = p.messagesFile(fv, f+".messages_file", s)
			}
		}
		if len(msgs) == 0 {
			continue // messages reported it
		}
		for k, msg := range msgs {
			if i > 0 && (msg.Role == "system" || msg.Role == "developer") {
				p.fail(it, fmt.Sprintf("%s.messages[%d].role", f, k), "%s in step %d; system and developer messages open a chain: move it into %s[0]", msg.Role, i+1, path)
			}
		}
		if last := msgs[len(msgs)-1]; last.Role != "user" {
			p.fail(it, fmt.Sprintf("%s.messages[%d].role", f, len(msgs)-1), "%s; a step ends with a user message (what it asks): its answer is the next step's assistant turn", last.Role)
		}
		out = append(out, msgs)
	}
	return out
}

// chainProblem says why a target cannot run a chain prompt, "" when it can:
// the answer of each step must go back as an assistant turn, which an api:
// sse body template has a place for only in {{messages}} (the whole
// conversation); {{prompt}} and {{system}} would drop it.
func chainProblem(t Target, pr Prompt) string {
	body, _ := t.Stream()
	if len(pr.Steps) == 0 || !appStream(t.APIName()) || body == nil || carriesMessages(body) {
		return ""
	}
	api := t.APIName()
	return fmt.Sprintf(`target %q (api: %s) cannot run a chain: its %s.body has no "{{messages}}" value, so the previous answer has no place as an assistant turn; give the body the conversation (e.g. body: {messages: "{{messages}}"}), measure the chain on a target of api: %s, %s, %s or %s, or drop steps`,
		t.Name, api, api, APIChat, APIResponses, APIAnthropic, APIGemini)
}

// carriesMessages reports whether an sse body template has a value that is
// exactly the {{messages}} placeholder (replaced by the messages' JSON).
func carriesMessages(v any) bool {
	switch x := v.(type) {
	case string:
		m := placeholder.FindStringSubmatchIndex(x)
		return m != nil && m[0] == 0 && m[1] == len(x) && x[m[2]:m[3]] == "messages"
	case []any:
		for _, e := range x {
			if carriesMessages(e) {
				return true
			}
		}
	case map[string]any:
		for _, e := range x {
			if carriesMessages(e) {
				return true
			}
		}
	}
	return false
}
