package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/latgate/latgate/internal/testkit"
	"github.com/latgate/latgate/pkg/sim"
)

// noEnv is an environment with nothing set, so tests never see the real one.
func noEnv(string) string { return "" }

// checkSim validates simulator specs as the CLI does.
func checkSim(spec string) error {
	_, err := sim.ParseSpec(spec)
	return err
}

// TestSimSpecCheckIsInjected: config itself knows no simulator profiles; the
// caller's CheckSimSpec decides, and without one any non-empty spec passes.
func TestSimSpecCheckIsInjected(t *testing.T) {
	src := y(`
targets: [{name: a, base_url: "sim:nosuch"}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`)
	if _, err := Parse(src, "latgate.yaml", Options{Getenv: noEnv}); err != nil {
		t.Errorf("without CheckSimSpec: %v, want no error", err)
	}
	_, err := Parse(src, "latgate.yaml", Options{Getenv: noEnv, CheckSimSpec: checkSim})
	if err == nil || !strings.Contains(err.Error(), "latgate.yaml:1") || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("with CheckSimSpec: %v, want an error at latgate.yaml:1 naming nosuch", err)
	}
}

// y turns an indented raw string into YAML whose line 1 is the line after the backtick.
func y(s string) []byte { return []byte(strings.TrimPrefix(s, "\n")) }

func parse(t *testing.T, src []byte) (*Config, error) {
	t.Helper()
	return Parse(src, "examples/latgate.yaml", Options{Getenv: noEnv, CheckSimSpec: checkSim})
}

func mustParse(t *testing.T, src []byte, path string, opts Options) *Config {
	t.Helper()
	if opts.CheckSimSpec == nil {
		opts.CheckSimSpec = checkSim
	}
	if opts.Getenv == nil {
		opts.Getenv = noEnv
	}
	cfg, err := Parse(src, path, opts)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return cfg
}

func TestParseErrors(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, dir, "bad.json", "[\n  {\"role\": \"user\",\n   \"content\": }\n]\n")
	testkit.WriteFile(t, dir, "bot.json", `{"messages": [{"role": "bot", "content": "hi"}]}`)
	testkit.WriteFile(t, dir, "extra.json", `[{"role": "user", "content": "hi", "tool_calls": []}]`)

	tests := []struct {
		name string
		src  string
		want []string // fragments the joined error must contain
		not  []string // fragments it must not contain
	}{
		{"syntax", `
targets: [{name: a, base_url: sim}]
prompts:
  - id: p
    messages: [{role: user, content: hi}
run: {}
`, []string{"examples/latgate.yaml:", "YAML syntax error"}, nil},
		{"syntax line", `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run:
  requests: 1
  warmup 2
  seed: 3
`, []string{"examples/latgate.yaml:5: YAML syntax error", "could not find expected ':'"}, nil},
		{"tab line", `
targets:
  - name: a
    base_url: sim
	model: x
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`, []string{"examples/latgate.yaml:4: YAML syntax error", "tab character", "indent with spaces"}, nil},
		{"empty file", "\n# nothing\n", []string{"examples/latgate.yaml: ", "empty", "latgate init"}, nil},
		{"not a mapping", "\n- a\n- b\n", []string{":1: ", "want a mapping", "the top level"}, nil},
		{"two documents", `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
---
run: {}
`, []string{":3:", "second YAML document"}, nil},
		{"unknown key suggestion", `
targets:
  - name: a
    base_url: sim
    max_token: 5
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`, []string{":4: targets[0].max_token:", `did you mean "max_tokens"?`}, nil},
		{"unknown top-level key", `
target: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`, []string{":1: target:", `did you mean "targets"?`}, nil},
		{"unknown key lists valid keys", `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run:
  flux_capacitor: 1
`, []string{":4: run.flux_capacitor:", "valid keys here: requests, max_requests, bless_requests, warmup"}, nil},
		{"duplicate yaml key", `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run:
  requests: 3
  requests: 4
`, []string{":5: run.requests: duplicate key (first at line 4)"}, nil},
		{"api_key in config", `
targets:
  - name: a
    base_url: sim
    api_key: sk-secret-123
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`, []string{":4: targets[0].api_key:", "api_key_env", "environment variable"}, []string{"sk-secret-123"}},
		{"key pasted into api_key_env", `
targets:
  - name: a
    base_url: sim
    api_key_env: sk-secret-123
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`, []string{":4: targets[0].api_key_env:", "NAME of an environment variable"}, []string{"sk-secret-123"}},
		{"authorization header", `
targets:
  - name: a
    base_url: sim
    headers:
      authorization: Bearer sk-secret-123
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`, []string{":5: targets[0].headers.authorization:", "api_key_env"}, []string{"sk-secret-123"}},
		{"credential header (Azure's api-key)", `
targets:
  - name: a
    base_url: sim
    headers:
      api-key: sk-secret-123
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`, []string{":5: targets[0].headers.api-key:", "credential header", "api_key_env"}, []string{"sk-secret-123"}},
		{"plain 1 as a percentage is ambiguous", `
targets:
  - name: a
    base_url: sim
    max_error_rate: 1
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`, []string{":4: targets[0].max_error_rate:", "ambiguous", "1%"}, nil},
		{"unknown simulator preset", `
targets:
  - name: a
    base_url: "sim:nosuch"
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`, []string{":3: targets[0].base_url:", "nosuch"}, nil},
		{"wrong type int", `
targets:
  - name: a
    base_url: sim
    max_tokens: lots
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`, []string{":4: targets[0].max_tokens:", "want an integer", `"lots"`, "max_tokens: 64"}, nil},
		{"wrong type quoted int", `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run:
  requests: "30"
`, []string{":4: run.requests:", "want an integer"}, nil},
		{"wrong type bool", `
targets:
  - name: a
    base_url: sim
    include_usage: "yes"
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`, []string{":4: targets[0].include_usage:", "want true or false"}, nil},
		{"wrong type list", `
targets:
  name: a
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`, []string{":2: targets:", "want a list, got a mapping"}, nil},
		{"wrong type mapping", `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: [1, 2]
`, []string{":3: run:", "want a mapping"}, nil},
		{"missing name", `
targets:
  - base_url: sim
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`, []string{":2: targets[0]:", "missing required field name"}, nil},
		{"missing model", `
targets:
  - name: a
    base_url: http://127.0.0.1:8080/v1
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`, []string{":2: targets[0]:", "missing required field model", "model: gpt-4o-mini"}, nil},
		{"bad name", `
targets:
  - name: "my target"
    base_url: sim
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`, []string{":2: targets[0].name:", "A-Z a-z 0-9"}, nil},
		{"missing targets", `
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`, []string{":1: targets: missing", "at least one target"}, nil},
		{"no targets", `
targets: []
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`, []string{":1: targets: empty"}, nil},
		{"missing prompts", `
targets: [{name: a, base_url: sim}]
`, []string{":1: prompts: missing", "at least one prompt"}, nil},
		{"empty prompt set", `
targets: [{name: a, base_url: sim}]
prompts:
`, []string{"prompts: missing"}, nil},
		{"empty prompt list", `
targets: [{name: a, base_url: sim}]
prompts: []
`, []string{":2: prompts: empty"}, nil},
		{"duplicate target", `
targets:
  - name: a
    base_url: sim
  - name: a
    base_url: sim
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`, []string{":4: targets[1].name:", `duplicate target name "a" (first at line 2)`}, nil},
		{"duplicate prompt", `
targets: [{name: a, base_url: sim}]
prompts:
  - id: p
    messages: [{role: user, content: hi}]
  - id: p
    messages: [{role: user, content: there}]
`, []string{":5: prompts[1].id:", `duplicate prompt id "p" (first at line 3)`}, nil},
		{"missing prompt id", `
targets: [{name: a, base_url: sim}]
prompts:
  - messages: [{role: user, content: hi}]
`, []string{":3: prompts[0]:", "missing required field id"}, nil},
		{"zero requests", `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run:
  requests: 0
`, []string{":4: run.requests:", "must be between 1 and 100000", "requests: 30"}, nil},
		{"negative warmup", `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run:
  warmup: -1
`, []string{":4: run.warmup:", "must be between 0 and 10000"}, nil},
		{"zero concurrency", `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run:
  concurrency: 0
`, []string{":4: run.concurrency:", "between 1 and 1024"}, nil},
		{"huge concurrency", `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run:
  concurrency: 5000
`, []string{":4: run.concurrency:", "between 1 and 1024"}, nil},
		{"negative max_tokens", `
targets:
  - name: a
    base_url: sim
    max_tokens: -5
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`, []string{":4: targets[0].max_tokens:", "must be between 1 and 1048576"}, nil},
		{"absurd max_tokens", `
targets:
  - name: a
    base_url: sim
    max_tokens: 99999999999
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`, []string{":4: targets[0].max_tokens:", "must be between 1 and 1048576, got 99999999999"}, nil},
		{"absurd requests", `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run:
  requests: 99999999999
`, []string{":4: run.requests:", "must be between 1 and 100000, got 99999999999"}, nil},
		{"absurd warmup", `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run:
  warmup: 99999999
`, []string{":4: run.warmup:", "must be between 0 and 10000, got 99999999"}, nil},
		{"absurd timeout", `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run:
  timeout: 9999h
`, []string{":4: run.timeout:", "at most 1h0m0s, got 9999h0m0s"}, nil},
		{"too many requests in all", `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}, {id: q, messages: [{role: user, content: hi}]}, {id: r, messages: [{role: user, content: hi}]}, {id: s, messages: [{role: user, content: hi}]}, {id: t, messages: [{role: user, content: hi}]}, {id: u, messages: [{role: user, content: hi}]}, {id: v, messages: [{role: user, content: hi}]}, {id: w, messages: [{role: user, content: hi}]}, {id: x, messages: [{role: user, content: hi}]}, {id: y, messages: [{role: user, content: hi}]}, {id: z, messages: [{role: user, content: hi}]}]
run:
  requests: 100000
`, []string{":4: run:", "(100000 requests + 2 warmup) × 11 prompts is over the 1000000 requests one target may send"}, nil},
		{"few resamples", `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate:
  resamples: 10
`, []string{":4: gate.resamples:", "between 100"}, nil},
		{"duration without unit", `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run:
  timeout: 60
`, []string{":4: run.timeout:", "add a unit, e.g. 60s"}, nil},
		{"duration garbage", `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run:
  timeout: soon
`, []string{":4: run.timeout:", "not a duration", "timeout: 60s"}, nil},
		{"zero timeout", `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run:
  timeout: 0s
`, []string{":4: run.timeout:", "must be above 0 and at most 1h0m0s"}, nil},
		{"floor without unit", `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate:
  checks:
    - {metric: ttft, stat: p95, tolerance: 20%, floor: 30}
`, []string{":5: gate.checks[0].floor:", "add a unit, e.g. 30ms"}, nil},
		{"bad percentage", `
targets:
  - name: a
    base_url: sim
    max_error_rate: lots%
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`, []string{":4: targets[0].max_error_rate:", "not a percentage"}, nil},
		{"ambiguous percentage", `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate:
  confidence: 95
`, []string{":4: gate.confidence:", "write 95% for a percentage"}, nil},
		{"confidence out of range", `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate:
  confidence: 40%
`, []string{":4: gate.confidence:", "above 50%"}, nil},
		{"error rate over 100%", `
targets:
  - name: a
    base_url: sim
    max_error_rate: 150%
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`, []string{":4: targets[0].max_error_rate:", "between 0% and 100%"}, nil},
		{"temperature out of range", `
targets:
  - name: a
    base_url: sim
    temperature: 2.5
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`, []string{":4: targets[0].temperature:", "between 0 and 2"}, nil},
		{"bad base_url", `
targets:
  - name: a
    base_url: ftp://user:hunter2@example.com/v1
    model: m
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`, []string{":3: targets[0].base_url:", "not an http(s) URL", "sim"}, []string{"hunter2"}},
		{"empty sim spec", `
targets:
  - name: a
    base_url: "sim:"
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`, []string{":3: targets[0].base_url:", "names no simulator profile"}, nil},
		{"extra_body reserved", `
targets:
  - name: a
    base_url: sim
    extra_body:
      stream: false
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`, []string{"targets[0].extra_body.stream:", "latgate sets stream itself"}, nil},
		{"extra_body not JSON", `
targets:
  - name: a
    base_url: sim
    extra_body:
      top_p: .nan
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`, []string{":5: targets[0].extra_body.top_p:", "no JSON form"}, nil},
		{"extra_body not a mapping", `
targets:
  - name: a
    base_url: sim
    extra_body: [1]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`, []string{":4: targets[0].extra_body:", "want a mapping"}, nil},
		{"bad role", `
targets: [{name: a, base_url: sim}]
prompts:
  - id: p
    messages:
      - role: bot
        content: hi
`, []string{":5: prompts[0].messages[0].role:", `"bot" is not a role`, "user"}, nil},
		{"missing content", `
targets: [{name: a, base_url: sim}]
prompts:
  - id: p
    messages:
      - role: user
`, []string{":5: prompts[0].messages[0].content:", "missing or empty content"}, nil},
		{"messages and messages_file", `
targets: [{name: a, base_url: sim}]
prompts:
  - id: p
    messages: [{role: user, content: hi}]
    messages_file: bot.json
`, []string{":5: prompts[0]:", "both messages and messages_file", "exactly one"}, nil},
		{"neither messages nor messages_file", `
targets: [{name: a, base_url: sim}]
prompts:
  - id: p
`, []string{":3: prompts[0]:", "neither messages nor messages_file"}, nil},
		{"messages_file unreadable", `
targets: [{name: a, base_url: sim}]
prompts:
  - id: p
    messages_file: prompts/missing.json
`, []string{":4: prompts[0].messages_file:", filepath.Join(dir, "prompts", "missing.json"), "no such file"}, nil},
		{"messages_file is a directory", `
targets: [{name: a, base_url: sim}]
prompts:
  - id: p
    messages_file: .
`, []string{":4: prompts[0].messages_file:", "not a regular file"}, nil},
		{"messages_file malformed", `
targets: [{name: a, base_url: sim}]
prompts:
  - id: p
    messages_file: bad.json
`, []string{":4: prompts[0].messages_file:", filepath.Join(dir, "bad.json") + ":3:", "invalid messages JSON"}, nil},
		{"messages_file unknown field", `
targets: [{name: a, base_url: sim}]
prompts:
  - id: p
    messages_file: extra.json
`, []string{":4: prompts[0].messages_file:", "extra.json", "tool_calls"}, nil},
		{"messages_file bad role", `
targets: [{name: a, base_url: sim}]
prompts:
  - id: p
    messages_file: bot.json
`, []string{":4: prompts[0].messages_file:", "bot.json: messages[0].role", `"bot" is not a role`}, nil},
		{"bad metric and stat", `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate:
  checks:
    - metric: latency
      stat: p80
      tolerance: 10%
`, []string{":5: gate.checks[0].metric:", `"latency" is not a metric`, ":6: gate.checks[0].stat:", "p50, p90, p95, p99, mean"}, nil},
		{"check without tolerance", `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate:
  checks:
    - {metric: ttft, stat: p95}
`, []string{":5: gate.checks[0]:", "missing required field tolerance"}, nil},
		{"empty checks", `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate:
  checks: []
`, []string{":4: gate.checks: empty"}, nil},
		{"duplicate check", `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate:
  checks:
    - {metric: ttft, stat: p95, tolerance: 10%}
    - {metric: ttft, stat: p95, tolerance: 20%}
`, []string{":6: gate.checks[1]:", "duplicate check ttft p95 (first at line 5)"}, nil},
		{"override unknown prompt", `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate:
  overrides:
    - {prompt: q, metric: ttft, stat: p95, tolerance: 40%}
`, []string{":5: gate.overrides[0].prompt:", `no prompt has id "q"`}, nil},
		{"override unchecked metric", `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate:
  overrides:
    - {prompt: p, metric: total, stat: p95, tolerance: 40%}
`, []string{":5: gate.overrides[0]:", "no check gates total p95"}, nil},
		{"override sets nothing", `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate:
  overrides:
    - {prompt: p, metric: ttft, stat: p95}
`, []string{":5: gate.overrides[0]:", "neither tolerance nor floor"}, nil},
		{"bad order", `
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {order: random}
`, []string{":3: run.order:", "interleave", "shuffle"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(y(tt.src), filepath.Join(dir, "latgate.yaml"), Options{Getenv: noEnv, CheckSimSpec: checkSim})
			if err == nil {
				t.Fatal("Parse succeeded, want an error")
			}
			msg := strings.ReplaceAll(err.Error(), filepath.Join(dir, "latgate.yaml"), "examples/latgate.yaml")
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error does not contain %q:\n%s", w, msg)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(msg, w) {
					t.Errorf("error contains %q, which it must not:\n%s", w, msg)
				}
			}
			var ce *Error
			if !errors.As(err, &ce) {
				t.Errorf("errors.As(*Error) failed for %T", err)
			}
		})
	}
}

// editLine returns data with its line n (1-based) replaced by repl, after
// checking that the line holds was: an edit of the example that no longer
// hits the line it was written for fails here instead of testing nothing.
func editLine(t *testing.T, data []byte, n int, was, repl string) []byte {
	t.Helper()
	lines := strings.Split(string(data), "\n")
	if n < 1 || n > len(lines) || lines[n-1] != was {
		t.Fatalf("line %d is not %q; update the test to the example", n, was)
	}
	lines[n-1] = repl
	return []byte(strings.Join(lines, "\n"))
}

// TestSyntaxErrorLine: a YAML syntax error names the line to edit, not the
// line yaml's message names (that of the enclosing block, or the one before
// it), and a line indented with a tab gets the hint whatever yaml's wording.
func TestSyntaxErrorLine(t *testing.T) {
	example, err := os.ReadFile(filepath.Join("..", "..", "examples", "latgate.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		src  []byte
		line int    // the line the error must name
		msg  string // yaml's problem, which the error must carry
		hint bool   // whether it must say "indent with spaces"
	}{
		// yaml: "line 17" (targets:), the line before the list.
		{"3-space indent in the example", editLine(t, example, 20, "    model: sim", "   model: sim"),
			20, "did not find expected '-' indicator", false},
		// yaml: "line 1", the line before the list.
		{"3-space indent, last of 4 lines", y(`
targets:
  - name: a
    base_url: sim
   model: x
`), 4, "did not find expected '-' indicator", false},
		// yaml: "line 34", the line before the one the mapping opens.
		{"missing } in the example", editLine(t, example, 35,
			`      - {role: user, content: "Say hello in five words."}`,
			`      - {role: user, content: "Say hello in five words."`),
			35, "did not find expected ',' or '}'", false},
		{"missing ]", y(`
targets: [{name: a, base_url: sim}]
prompts:
  - id: p
    messages: [{role: user, content: hi}
run: {}
`), 4, "did not find expected ',' or ']'", false},
		{"unclosed quote", y(`
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: "hi}]}]
run: {}
`), 2, "found unexpected end of stream", false},
		// A scanner error: yaml names the key's line itself.
		{"key without colon", y(`
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run:
  requests: 1
  warmup 2
  seed: 3
`), 5, "could not find expected ':'", false},
		{"tab before a list item", y(`
targets:
	- {name: a, base_url: sim}
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`), 2, "found character that cannot start any token", true},
		// yaml: "line 3", the line before the tab's.
		{"tab before a key", y(`
targets:
  - name: a
    base_url: sim
	model: x
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`), 4, "found a tab character", true},
		{"tab after the indentation is no indentation", y(`
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run:
  requests: 1
  warmup	2
`), 5, "could not find expected ':'", false},
		// The second document is decoded after the first: its lines count
		// from the top of the file too.
		{"in a second document", y(`
targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
---
run:
  - requests: 1
    warmup: 2
   seed: 3
`), 7, "did not find expected '-' indicator", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.src, "latgate.yaml", Options{Getenv: noEnv, CheckSimSpec: checkSim})
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("Parse: %v, want an *Error", err)
			}
			if want := fmt.Sprintf("latgate.yaml:%d: YAML syntax error: ", tt.line); !strings.HasPrefix(err.Error(), want) || ce.Line != tt.line {
				t.Errorf("error %q (line %d), want it to start %q", err, ce.Line, want)
			}
			if !strings.Contains(ce.Msg, tt.msg) {
				t.Errorf("error %q does not carry yaml's %q", err, tt.msg)
			}
			if got := strings.Contains(ce.Msg, "; indent with spaces"); got != tt.hint {
				t.Errorf("error %q: hint to indent with spaces %v, want %v", err, got, tt.hint)
			}
		})
	}
}

// TestSyntaxErrorLineAnywhere: the line is found wherever the slip is in
// the file, near its start, its end or yaml's line (the search probes from
// both ends), and for a slip yaml notices at once as for one it notices only
// at the end of the file.
func TestSyntaxErrorLineAnywhere(t *testing.T) {
	const items = 40
	for _, bad := range []string{"   model: x", "  - {name: x", "  - name: \"x", "\t- name: x"} {
		// From after the first item: "   model: x" first of all is a valid
		// mapping, and the error is at the "- " after it.
		for at := 1; at <= items; at++ {
			var b strings.Builder
			b.WriteString("targets:\n")
			for i := range items {
				if i == at {
					b.WriteString(bad + "\n")
				}
				fmt.Fprintf(&b, "  - name: t%d\n    base_url: sim\n", i)
			}
			if at == items {
				b.WriteString(bad + "\n")
			}
			want := 2 + 2*at
			_, err := Parse([]byte(b.String()), "latgate.yaml", Options{Getenv: noEnv, CheckSimSpec: checkSim})
			var ce *Error
			if !errors.As(err, &ce) || ce.Line != want {
				t.Errorf("%q before item %d: %v, want an error at line %d", bad, at, err, want)
			}
		}
	}
}

func TestParseErrorsAllInLineOrder(t *testing.T) {
	src := y(`
targets:
  - name: a
    base_url: sim
    max_tokens: 0
prompts:
  - id: p
    messages: [{role: user, content: hi}]
run:
  requests: -1
  timeout: 60
gate:
  resamples: 1
`)
	_, err := parse(t, src)
	if err == nil {
		t.Fatal("Parse succeeded, want errors")
	}
	var lines []string
	for _, l := range strings.Split(err.Error(), "\n") {
		lines = append(lines, strings.SplitN(l, ": ", 2)[0])
	}
	want := []string{"examples/latgate.yaml:4", "examples/latgate.yaml:9", "examples/latgate.yaml:10", "examples/latgate.yaml:12"}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("error lines (-want +got):\n%s\nfull error:\n%s", diff, err)
	}
}

func TestParseErrorsCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString("targets: [{name: a, base_url: sim}]\nprompts:\n")
	for range MaxErrors + 5 {
		b.WriteString("  - {id: p, messages: [{role: bot, content: hi}]}\n")
	}
	_, err := parse(t, []byte(b.String()))
	if err == nil {
		t.Fatal("Parse succeeded, want errors")
	}
	lines := strings.Split(err.Error(), "\n")
	if got, want := len(lines), MaxErrors+1; got != want {
		t.Errorf("got %d error lines, want %d", got, want)
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, "more errors not shown") {
		t.Errorf("last line %q does not count the hidden errors", last)
	}
}

func TestDefaults(t *testing.T) {
	cfg := mustParse(t, y(`
targets:
  - name: local
    base_url: http://127.0.0.1:11434/v1/
    model: stories260k
  - name: s
    base_url: sim
prompts:
  - id: p
    messages: [{role: user, content: hi}]
`), filepath.Join("examples", "latgate.yaml"), Options{})
	want := &Config{
		Path:     filepath.Join("examples", "latgate.yaml"),
		Dir:      "examples",
		Baseline: filepath.Join("examples", "latgate.baseline.json"),
		Targets: []Target{
			{Name: "local", BaseURL: "http://127.0.0.1:11434/v1", Model: "stories260k", APIKeyEnv: "OPENAI_API_KEY",
				MaxTokens: 64, IncludeUsage: true, MaxErrorRate: 0.05, Line: 2, API: APIChat},
			{Name: "s", BaseURL: "sim", Model: "sim", APIKeyEnv: "OPENAI_API_KEY",
				MaxTokens: 64, IncludeUsage: true, MaxErrorRate: 0.05, Line: 5, API: APIChat},
		},
		Prompts: []Prompt{{ID: "p", Messages: []Message{{Role: "user", Content: "hi"}}, Line: 8}},
		Run:     Run{Requests: 60, Warmup: 2, Concurrency: 1, Timeout: 60 * time.Second, Order: "interleave", Seed: 1},
		Gate:    DefaultGate(),
		AB:      AB{Schedule: ScheduleInterleave, Block: 10},
		Knee:    Knee{Tolerance: 0.15},
	}
	ignore := cmp.Options{cmpopts.IgnoreFields(Config{}, "Hash"), cmpopts.IgnoreFields(Prompt{}, "Hash")}
	if diff := cmp.Diff(want, cfg, ignore); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	if len(cfg.Hash) != 16 || len(cfg.Prompts[0].Hash) != 16 {
		t.Errorf("hashes %q, %q: want 16 hex characters", cfg.Hash, cfg.Prompts[0].Hash)
	}
}

func TestExplicitValues(t *testing.T) {
	dir := t.TempDir()
	cfg := mustParse(t, y(`
baseline: ../shared/base.json
targets:
  - &t
    name: a
    region: eu-west
    base_url: sim:fixed?ttft=50ms
    model: m
    api_key_env: MY_KEY
    max_tokens: 8
    temperature: 0.7
    headers: {X-Team: search}
    extra_body: {top_k: 1, options: {num_ctx: 512, stop: ["\n"]}, ignore_eos: true}
    include_usage: false
    max_error_rate: 0.1
  - <<: *t
    name: b
prompts:
  - id: p
    messages: [{role: user, content: hi, name: alice}]
run: {requests: 5, warmup: 0, concurrency: 4, timeout: 1m30s, order: shuffle, seed: 7}
gate:
  confidence: 0.9
  resamples: 500
  seed: -3
  aggregate: false
  checks:
    - {metric: total, stat: mean, tolerance: 0.1, floor: 1s}
    - {metric: ttft, stat: p99, tolerance: 50%}
  overrides:
    - {prompt: p, metric: total, stat: mean, tolerance: 30%}
    - {prompt: p, metric: ttft, stat: p99, floor: 5ms}
`), filepath.Join(dir, "latgate.yaml"), Options{})
	temp := 0.7
	target := Target{Name: "a", Region: "eu-west", BaseURL: "sim:fixed?ttft=50ms", Model: "m", APIKeyEnv: "MY_KEY",
		MaxTokens: 8, Temperature: &temp, Headers: map[string]string{"X-Team": "search"},
		Extra:        map[string]any{"top_k": int64(1), "options": map[string]any{"num_ctx": int64(512), "stop": []any{"\n"}}, "ignore_eos": true},
		MaxErrorRate: 0.1, Line: 3, API: APIChat}
	targetB := target
	targetB.Name, targetB.Line = "b", 15
	want := &Config{
		Path:     filepath.Join(dir, "latgate.yaml"),
		Dir:      dir,
		Baseline: filepath.Join(dir, "..", "shared", "base.json"),
		Targets:  []Target{target, targetB},
		Prompts:  []Prompt{{ID: "p", Messages: []Message{{Role: "user", Content: "hi", Name: "alice"}}, Line: 18}},
		Run:      Run{Requests: 5, Warmup: 0, Concurrency: 4, Timeout: 90 * time.Second, Order: "shuffle", Seed: 7},
		Gate: Gate{Confidence: 0.9, Resamples: 500, Seed: -3, Aggregate: false, DayToDay: DayToDayAuto, OkConfidence: DefaultOkConfidence, OnInconclusive: OnInconclusiveWarn,
			Checks: []Check{
				{Metric: "total", Stat: "mean", Tolerance: Tolerance{Rel: 0.1, Floor: time.Second}},
				{Metric: "ttft", Stat: "p99", Tolerance: Tolerance{Rel: 0.5}},
			},
			Overrides: []Override{
				{Prompt: "p", Metric: "total", Stat: "mean", Tolerance: Tolerance{Rel: 0.3, Floor: time.Second}, Line: 30},
				{Prompt: "p", Metric: "ttft", Stat: "p99", Tolerance: Tolerance{Rel: 0.5, Floor: 5 * time.Millisecond}, Line: 31},
			}},
		AB:   AB{Schedule: ScheduleInterleave, Block: 10},
		Knee: Knee{Tolerance: 0.15},
	}
	ignore := cmp.Options{cmpopts.IgnoreFields(Config{}, "Hash"), cmpopts.IgnoreFields(Prompt{}, "Hash")}
	if diff := cmp.Diff(want, cfg, ignore); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	if !cfg.Targets[0].IsSim() || cfg.Targets[0].SimSpec() != "fixed?ttft=50ms" {
		t.Errorf("IsSim/SimSpec = %v/%q", cfg.Targets[0].IsSim(), cfg.Targets[0].SimSpec())
	}
	// ToleranceFor honours the override and falls back to the check.
	if got := cfg.Gate.ToleranceFor("p", cfg.Gate.Checks[0]); got.Rel != 0.3 {
		t.Errorf("ToleranceFor(p) = %+v, want the override", got)
	}
	if got := cfg.Gate.ToleranceFor("other", cfg.Gate.Checks[0]); got.Rel != 0.1 {
		t.Errorf("ToleranceFor(other) = %+v, want the check's", got)
	}
}

func TestBaseURLFromEnvironment(t *testing.T) {
	src := func(baseURL string) []byte {
		s := "targets:\n  - name: a\n    model: m\n"
		if baseURL != "" {
			s += "    base_url: " + baseURL + "\n"
		}
		return []byte(s + "prompts: [{id: p, messages: [{role: user, content: hi}]}]\n")
	}
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "OPENAI_BASE_URL" {
				return v
			}
			return ""
		}
	}
	tests := []struct {
		name, env, baseURL, want string
	}{
		{"default", "", "", DefaultBaseURL},
		{"from env", "http://127.0.0.1:8000/v1/", "", "http://127.0.0.1:8000/v1"},
		{"explicit wins", "http://127.0.0.1:8000/v1", "https://example.com/v1", "https://example.com/v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := mustParse(t, src(tt.baseURL), "latgate.yaml", Options{Getenv: env(tt.env)})
			if got := cfg.Targets[0].BaseURL; got != tt.want {
				t.Errorf("BaseURL = %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("invalid env", func(t *testing.T) {
		_, err := Parse(src(""), "latgate.yaml", Options{Getenv: env("localhost:8000")})
		if err == nil || !strings.Contains(err.Error(), "latgate.yaml:2: targets[0].base_url (from $OPENAI_BASE_URL):") {
			t.Errorf("err = %v, want one naming $OPENAI_BASE_URL", err)
		}
	})
}

func TestMessagesFileRelativeToConfig(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "ci", "latgate.yaml")
	testkit.WriteFile(t, dir, filepath.Join("ci", "prompts", "rag.json"), `{"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Why?"}]}`)
	testkit.WriteFile(t, dir, filepath.Join("ci", "latgate.yaml"), "targets: [{name: a, base_url: sim}]\nprompts:\n  - id: rag\n    messages_file: prompts/rag.json\n")
	cfg, err := Load(cfgPath, Options{Getenv: noEnv, CheckSimSpec: checkSim})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	want := []Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Why?"}}
	if diff := cmp.Diff(want, cfg.Prompts[0].Messages); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if got := cfg.Prompts[0].MessagesFile; got != "prompts/rag.json" {
		t.Errorf("MessagesFile = %q, want it as written", got)
	}
	if got, want := cfg.Baseline, filepath.Join(dir, "ci", DefaultBaseline); got != want {
		t.Errorf("Baseline = %q, want %q", got, want)
	}
}

// TestMessagesFileNotUTF8: bytes that are not UTF-8 in a messages_file are
// an error naming the file and the byte offset (they used to be replaced,
// so two different files could share a prompt hash).
func TestMessagesFileNotUTF8(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "latgate.yaml")
	testkit.WriteFile(t, dir, "m.json", "[{\"role\": \"user\", \"content\": \"caf\xe9\"}]")
	testkit.WriteFile(t, dir, "latgate.yaml", "targets: [{name: a, base_url: sim}]\nprompts:\n  - id: p\n    messages_file: m.json\n")
	_, err := Load(cfgPath, Options{Getenv: noEnv})
	want := filepath.Join(dir, "m.json") + ": byte offset 33 (0xe9) is not UTF-8; save the file as UTF-8"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want it to contain %q", err, want)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.yaml"), Options{Getenv: noEnv, CheckSimSpec: checkSim})
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v, want os.ErrNotExist", err)
	}
}

func TestPromptHash(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, dir, "array.json", `[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hi."}]`)
	testkit.WriteFile(t, dir, "object.json", "{\n  \"messages\": [\n    {\"content\": \"Be brief.\", \"role\": \"system\"},\n    {\"role\": \"user\", \"content\": \"Say hi.\"}\n  ]\n}\n")
	testkit.WriteFile(t, dir, "changed.json", `[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hi!"}]`)
	cfg := mustParse(t, y(`
targets: [{name: a, base_url: sim}]
prompts:
  - id: flow
    messages: [{role: system, content: Be brief.}, {role: user, content: "Say hi."}]
  - id: block
    messages:
      - content: 'Be brief.'
        role: system
      - role: user
        content: >-
          Say hi.
  - id: array
    messages_file: array.json
  - id: object
    messages_file: object.json
  - id: changed
    messages_file: changed.json
  - id: role
    messages: [{role: developer, content: Be brief.}, {role: user, content: "Say hi."}]
  - id: named
    messages: [{role: system, content: Be brief.}, {role: user, content: "Say hi.", name: bob}]
`), filepath.Join(dir, "latgate.yaml"), Options{})
	hash := make(map[string]string)
	for _, p := range cfg.Prompts {
		hash[p.ID] = p.Hash
	}
	for _, id := range []string{"block", "array", "object"} {
		if hash[id] != hash["flow"] {
			t.Errorf("hash[%s] = %s, want the same as hash[flow] = %s", id, hash[id], hash["flow"])
		}
	}
	for _, id := range []string{"changed", "role", "named"} {
		if hash[id] == hash["flow"] {
			t.Errorf("hash[%s] = hash[flow] = %s, want a different hash", id, hash[id])
		}
	}
}

func TestConfigHash(t *testing.T) {
	const base = `
targets:
  - name: a
    base_url: https://example.com/v1
    model: m
    api_key_env: KEY_ONE
    region: eu
    headers: {X-Team: search}
    extra_body: {top_k: 1, min_p: 0.1}
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {requests: 10}
gate: {confidence: 95%}
`
	h0 := mustParse(t, y(base), "latgate.yaml", Options{}).Hash
	tests := []struct {
		name, old, new string
		same           bool
	}{
		{"header value", "X-Team: search", "X-Team: other", true},
		{"header name case", "X-Team: search", "x-team: search", true},
		{"api key env", "KEY_ONE", "KEY_TWO", true},
		{"region", "region: eu", "region: us", true},
		{"gate", "confidence: 95%", "confidence: 99%", true},
		{"extra_body order", "{top_k: 1, min_p: 0.1}", "{min_p: 0.1, top_k: 1}", true},
		{"url credentials", "https://example.com/v1", "https://u:p@example.com/v1", true},
		{"header name", "X-Team: search", "X-Org: search", false},
		{"extra_body value", "top_k: 1", "top_k: 2", false},
		{"model", "model: m", "model: n", false},
		{"base_url", "example.com", "example.org", false},
		{"max_tokens", "region: eu", "max_tokens: 65", false},
		{"temperature", "region: eu", "temperature: 0", false},
		{"include_usage", "region: eu", "include_usage: false", false},
		{"prompt text", "content: hi", "content: hello", false},
		{"prompt id", "id: p", "id: q", false},
		{"requests", "requests: 10", "requests: 11", false},
		{"order", "requests: 10", "requests: 10, order: shuffle", false},
		{"timeout", "requests: 10", "requests: 10, timeout: 30s", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			changed := strings.Replace(base, tt.old, tt.new, 1)
			if changed == base {
				t.Fatalf("%q not found in the base config", tt.old)
			}
			h := mustParse(t, y(changed), "latgate.yaml", Options{}).Hash
			if same := h == h0; same != tt.same {
				t.Errorf("hash %s vs base %s: same = %v, want %v", h, h0, same, tt.same)
			}
		})
	}
}

func TestParamsHash(t *testing.T) {
	if got := (Target{}).ParamsHash(); got != "" {
		t.Errorf("ParamsHash of no extra body = %q, want empty", got)
	}
	a := Target{Extra: map[string]any{"top_k": int64(1), "options": map[string]any{"a": 1.5, "b": "x"}}}
	b := Target{Extra: map[string]any{"options": map[string]any{"b": "x", "a": 1.5}, "top_k": int64(1)}}
	c := Target{Extra: map[string]any{"top_k": int64(2), "options": map[string]any{"a": 1.5, "b": "x"}}}
	if a.ParamsHash() != b.ParamsHash() {
		t.Errorf("ParamsHash depends on key order: %s vs %s", a.ParamsHash(), b.ParamsHash())
	}
	if a.ParamsHash() == c.ParamsHash() {
		t.Errorf("ParamsHash ignores a changed value: %s", a.ParamsHash())
	}
}

func TestAliasBomb(t *testing.T) {
	// Exponential alias expansion (a "billion laughs") must be refused
	// after a bounded amount of work, not followed.
	var b strings.Builder
	b.WriteString("targets:\n  - name: a\n    base_url: sim\n    extra_body:\n")
	b.WriteString("      x0: &x0 [a, a, a, a, a, a, a, a, a, a]\n")
	for i := 1; i <= 8; i++ {
		prev := fmt.Sprintf("*x%d", i-1)
		fmt.Fprintf(&b, "      x%d: &x%d [%s%s]\n", i, i, strings.Repeat(prev+", ", 9), prev)
	}
	b.WriteString("prompts: [{id: p, messages: [{role: user, content: hi}]}]\n")
	_, err := parse(t, []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "targets[0].extra_body") || !strings.Contains(err.Error(), "too large") {
		t.Errorf("err = %v, want extra_body refused as too large", err)
	}
}

func TestExample(t *testing.T) {
	cfg := mustParse(t, Example(), "latgate.yaml", Options{})
	if len(cfg.Targets) != 1 || !cfg.Targets[0].IsSim() {
		t.Errorf("targets = %+v, want one sim target", cfg.Targets)
	}
	if n := len(cfg.Prompts); n < 2 || n > 3 {
		t.Errorf("%d prompts, want 2 or 3", n)
	}
	// Concurrency 1, the default: a local server that serves one request at
	// a time would otherwise be measured with its queue (issue #23).
	if got, want := cfg.Run, (Run{Requests: 60, Warmup: 2, Concurrency: 1, Timeout: 60 * time.Second, Order: "interleave", Seed: 1}); got != want {
		t.Errorf("run = %+v, want %+v", got, want)
	}
	// The example spells the defaults out: it must agree with them.
	if diff := cmp.Diff(DefaultGate(), cfg.Gate); diff != "" {
		t.Errorf("example gate differs from the defaults (-want +got):\n%s", diff)
	}
	ex := Example()
	ex[0] = 'X'
	if Example()[0] == 'X' {
		t.Error("Example returns shared bytes")
	}
}

func TestMergeCycle(t *testing.T) {
	_, err := parse(t, y(`
targets:
  - &t {<<: *t, name: a, base_url: sim}
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`))
	if err == nil || !strings.Contains(err.Error(), ":2: targets[0]: << (merge) includes the mapping it is in") {
		t.Errorf("err = %v, want the merge cycle refused", err)
	}
}

func TestLoadTestdata(t *testing.T) {
	cfg, err := Load(filepath.Join("testdata", "latgate.yaml"), Options{Getenv: noEnv, CheckSimSpec: checkSim})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	checkInvariants(t, cfg)
	got := []string{cfg.Prompts[1].Messages[0].Role, cfg.Prompts[1].Messages[1].Role, cfg.Baseline}
	want := []string{"system", "user", filepath.Join("testdata", DefaultBaseline)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rag-long roles and baseline (-want +got):\n%s", diff)
	}
	if o := cfg.Gate.Overrides[0]; o.Prompt != "rag-long" || o.Tolerance != (Tolerance{Rel: 0.4, Floor: 60 * time.Millisecond}) {
		t.Errorf("override = %+v", o)
	}
}

// TestToleranceJSON: a tolerance reads back as it was written, so a
// comparison in a results file keeps its tolerances.
func TestToleranceJSON(t *testing.T) {
	for _, want := range []Tolerance{{}, {Rel: 0.15, Floor: 20 * time.Millisecond}, {Rel: 0.25, Floor: 1500 * time.Microsecond}} {
		data, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		var got Tolerance
		if err := json.Unmarshal(data, &got); err != nil || got != want {
			t.Errorf("%s read back as %+v, %v; want %+v", data, got, err, want)
		}
	}
	var tol Tolerance
	if err := json.Unmarshal([]byte(`{"rel": "x"}`), &tol); err == nil {
		t.Error(`{"rel": "x"} decoded without an error`)
	}
}

// TestGateDecisionKeys: day_to_day, ok_confidence and on_inconclusive read, default, and
// refuse bad values naming the field and the fix.
func TestGateDecisionKeys(t *testing.T) {
	const head = "targets: [{name: t, base_url: sim, model: m}]\nprompts: [{id: p, messages: [{role: user, content: hi}]}]\n"
	tests := []struct {
		gate    string
		day     float64
		okConf  float64
		policy  string
		wantErr string
	}{
		{"", DayToDayAuto, DefaultOkConfidence, OnInconclusiveWarn, ""},
		{"gate: {day_to_day: 3%, ok_confidence: 97.5%, on_inconclusive: fail}", 0.03, 0.975, OnInconclusiveFail, ""},
		{"gate: {day_to_day: 0%, on_inconclusive: pass}", 0, DefaultOkConfidence, OnInconclusivePass, ""},
		{"gate: {on_inconclusive: ignore}", 0, 0, "", `gate.on_inconclusive: "ignore" is not one of pass, warn, fail`},
		{"gate: {day_to_day: -1%}", 0, 0, "", "gate.day_to_day: must be between 0% and 100%"},
		{"gate: {ok_confidence: 50%}", 0, 0, "", "gate.ok_confidence: must be above 50% and below 100%"},
		{"gate: {ok_confidence: 100%}", 0, 0, "", "gate.ok_confidence: must be above 50% and below 100%"},
	}
	for _, tt := range tests {
		cfg, err := Parse([]byte(head+tt.gate+"\n"), "latgate.yaml", Options{Getenv: func(string) string { return "" }})
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: err %v, want %q", tt.gate, err, tt.wantErr)
			}
			continue
		}
		if err != nil || cfg.Gate.DayToDay != tt.day || cfg.Gate.OkConfidence != tt.okConf || cfg.Gate.OnInconclusive != tt.policy {
			t.Errorf("%q: day_to_day %v, ok_confidence %v, on_inconclusive %q, err %v; want %v, %v, %q", tt.gate, cfg.Gate.DayToDay, cfg.Gate.OkConfidence, cfg.Gate.OnInconclusive, err, tt.day, tt.okConf, tt.policy)
		}
	}
}
