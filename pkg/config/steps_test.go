package config

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSteps: a prompt's steps are its chain, the first step its messages;
// the steps are part of its hash, and chain metrics can be gated.
func TestSteps(t *testing.T) {
	src := `
targets: [{name: a, base_url: sim}]
prompts:
  - id: agent
    steps:
      - messages: [{role: system, content: You plan.}, {role: user, content: Plan it.}]
      - messages: [{role: user, content: Do step one.}]
      - messages: [{role: user, content: Summarize.}]
gate:
  checks:
    - {metric: chain_total, stat: p95, tolerance: 20%}
    - {metric: chain_ttft_last, stat: p50, tolerance: 20%}
`
	cfg := mustParse(t, y(src), filepath.Join(t.TempDir(), "latgate.yaml"), Options{})
	pr := cfg.Prompts[0]
	want := [][]Message{
		{{Role: "system", Content: "You plan."}, {Role: "user", Content: "Plan it."}},
		{{Role: "user", Content: "Do step one."}},
		{{Role: "user", Content: "Summarize."}},
	}
	if diff := cmp.Diff(want, pr.Steps); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want[0], pr.Messages); diff != "" {
		t.Errorf("messages are the first step's (-want +got):\n%s", diff)
	}
	if !pr.IsChain() {
		t.Error("IsChain = false for a prompt with steps")
	}
	sse := mustParse(t, y(strings.Replace(src, "{name: a, base_url: sim}", `{name: a, model: m, base_url: "http://127.0.0.1:1/s", api: sse, sse: {body: {conv: "{{messages}}"}}}`, 1)),
		filepath.Join(t.TempDir(), "latgate.yaml"), Options{})
	if !sse.Prompts[0].IsChain() {
		t.Error("an sse target whose body carries {{messages}} runs the chain")
	}
	edited := mustParse(t, y(strings.Replace(src, "Summarize.", "Summarize briefly.", 1)), filepath.Join(t.TempDir(), "latgate.yaml"), Options{})
	if edited.Prompts[0].Hash == pr.Hash {
		t.Errorf("editing the last step kept the hash %s", pr.Hash)
	}
	if got := []string{cfg.Gate.Checks[0].Metric, cfg.Gate.Checks[1].Metric}; !cmp.Equal(got, []string{"chain_total", "chain_ttft_last"}) {
		t.Errorf("checks %v, want the chain metrics", got)
	}
}

// TestStepsErrors: each mistake names file:line, the field and the fix.
func TestStepsErrors(t *testing.T) {
	for _, tt := range []struct {
		name, target, prompt string
		want                 []string
	}{
		{"one step", `{name: a, base_url: sim}`,
			`{id: p, steps: [{messages: [{role: user, content: hi}]}]}`,
			[]string{":2: prompts[0].steps:", "1 step", "at least two", "messages: instead"}},
		{"steps and messages", `{name: a, base_url: sim}`,
			`{id: p, messages: [{role: user, content: hi}], steps: [{messages: [{role: user, content: a}]}, {messages: [{role: user, content: b}]}]}`,
			[]string{":2: prompts[0]:", "both steps and messages", "steps[0].messages"}},
		{"a step without messages", `{name: a, base_url: sim}`,
			`{id: p, steps: [{messages: [{role: user, content: a}]}, {}]}`,
			[]string{":2: prompts[0].steps[1]:", "neither messages nor messages_file"}},
		{"a step ending with the assistant", `{name: a, base_url: sim}`,
			`{id: p, steps: [{messages: [{role: user, content: a}]}, {messages: [{role: user, content: b}, {role: assistant, content: c}]}]}`,
			[]string{":2: prompts[0].steps[1].messages[1].role:", "ends with a user message", "assistant turn"}},
		{"a system message later", `{name: a, base_url: sim}`,
			`{id: p, steps: [{messages: [{role: user, content: a}]}, {messages: [{role: system, content: s}, {role: user, content: b}]}]}`,
			[]string{":2: prompts[0].steps[1].messages[0].role:", "move it into prompts[0].steps[0]"}},
		{"tools", `{name: a, base_url: sim}`,
			`{id: p, tools: [{name: f}], steps: [{messages: [{role: user, content: a}]}, {messages: [{role: user, content: b}]}]}`,
			[]string{":2: prompts[0].tools:", "cannot declare tools", "drop tools or steps"}},
		{"unknown step key", `{name: a, base_url: sim}`,
			`{id: p, steps: [{messages: [{role: user, content: a}]}, {message: [{role: user, content: b}]}]}`,
			[]string{":2:", "message"}},
		{"api sse", `{name: app, model: m, base_url: "http://127.0.0.1:1/stream", api: sse, sse: {body: {q: "{{prompt}}"}, token_events: [token]}}`,
			`{id: p, steps: [{messages: [{role: user, content: a}]}, {messages: [{role: user, content: b}]}]}`,
			[]string{":2: prompts[0].steps:", `target "app" (api: sse) cannot run a chain`, `no "{{messages}}" value`, `body: {messages: "{{messages}}"}`, "api: chat, responses, anthropic or gemini, or drop steps"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			src := "targets: [" + tt.target + "]\nprompts: [" + tt.prompt + "]\n"
			_, err := Parse([]byte(src), filepath.Join(dir, "latgate.yaml"), Options{Getenv: noEnv, CheckSimSpec: checkSim})
			if err == nil {
				t.Fatal("Parse succeeded, want an error")
			}
			msg := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
			if !strings.HasPrefix(msg, "latgate.yaml:") {
				t.Errorf("error does not name the file first:\n%s", msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error does not contain %q:\n%s", w, msg)
				}
			}
		})
	}
}
