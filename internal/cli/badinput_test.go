package cli

import (
	"html"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/latgate/latgate/internal/testkit"
)

// goodConfig is the config the bad inputs are made from.
const goodConfig = `targets:
  - name: t
    base_url: "sim:fast"
    model: sim
prompts:
  - id: p
    messages:
      - {role: user, content: "Say hello."}
  - id: q
    messages_file: q.json
run:
  requests: 6
  warmup: 0
  concurrency: 2
`

// edit returns goodConfig with old replaced by new, which must be there.
func edit(t *testing.T, old, new string) string {
	t.Helper()
	if !strings.Contains(goodConfig, old) {
		t.Fatalf("goodConfig has no %q", old)
	}
	return strings.Replace(goodConfig, old, new, 1)
}

// TestBadInput: every bad config, flag or baseline is refused with exit 2
// and a message naming the file (and line and field) and the fix, before
// measuring, and nothing is overwritten: not the baseline, nor the results
// file named by --out. (check's --junit and --markdown files become the
// error report.)
func TestBadInput(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("blesses a baseline first")
	}
	// A good baseline to protect (and to compare with).
	good := t.TempDir()
	writeConfig(t, good, goodConfig)
	testkit.WriteFile(t, good, "q.json", `[{"role": "user", "content": "Summarize."}]`)
	// 40 requests: a baseline every default check can be decided against.
	if code, stdout, stderr := run(t, nil, "bless", "--config", filepath.Join(good, "latgate.yaml"), "--quiet", "--requests", "40"); code != ExitPass {
		t.Fatalf("bless: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	blessed, err := os.ReadFile(filepath.Join(good, "latgate.baseline.json"))
	if err != nil {
		t.Fatal(err)
	}
	// A results file measured with another text of prompt q.
	testkit.WriteFile(t, good, "q.json", `[{"role": "user", "content": "Summarize this."}]`)
	otherPath := filepath.Join(good, "other.json")
	if code, _, stderr := run(t, nil, "measure", "--config", filepath.Join(good, "latgate.yaml"), "--quiet", "--out", otherPath); code != ExitPass {
		t.Fatalf("measure: exit %d: %s", code, stderr)
	}
	otherData, err := os.ReadFile(otherPath)
	if err != nil {
		t.Fatal(err)
	}
	other := string(otherData)

	tests := []struct {
		name     string
		config   string            // latgate.yaml; "" for none
		files    map[string]string // more files beside it (a baseline replaces the good one)
		args     []string          // more arguments of check
		commands []string          // default: check, bless, measure
		want     []string          // in stderr
	}{
		{name: "YAML syntax error", config: edit(t, "  warmup: 0\n", "  warmup 0\n"),
			want: []string{"latgate.yaml:13: YAML syntax error"}},
		{name: "unknown key", config: edit(t, "    model: sim\n", "    model: sim\n    max_token: 5\n"),
			want: []string{"latgate.yaml:5: targets[0].max_token:", `did you mean "max_tokens"?`}},
		{name: "no config file", config: "",
			want: []string{"no config at", "latgate.yaml", "pass --config"}},
		{name: "empty prompt set", config: strings.Split(goodConfig, "prompts:")[0] + "prompts: []\n",
			want: []string{"latgate.yaml:5: prompts: empty"}},
		{name: "duplicate prompt id", config: edit(t, "id: q", "id: p"),
			want: []string{"latgate.yaml:9: prompts[1].id:", `"p"`, "line 6"}},
		{name: "duplicate target name", config: edit(t, "prompts:", "  - {name: t, base_url: sim}\nprompts:"),
			want: []string{"latgate.yaml:5: targets[1].name:", `"t"`}},
		{name: "zero requests", config: edit(t, "requests: 6", "requests: 0"),
			want: []string{"latgate.yaml:12: run.requests: must be between 1 and 100000", "e.g. requests:"}},
		{name: "negative requests", config: edit(t, "requests: 6", "requests: -5"),
			want: []string{"latgate.yaml:12: run.requests:"}},
		{name: "negative warmup", config: edit(t, "warmup: 0", "warmup: -1"),
			want: []string{"latgate.yaml:13: run.warmup:"}},
		{name: "zero concurrency", config: edit(t, "concurrency: 2", "concurrency: 0"),
			want: []string{"latgate.yaml:14: run.concurrency:"}},
		{name: "negative max_tokens", config: edit(t, "    model: sim\n", "    model: sim\n    max_tokens: -1\n"),
			want: []string{"latgate.yaml:5: targets[0].max_tokens:", "max_tokens: 64"}},
		{name: "negative --requests", config: goodConfig, args: []string{"--requests", "-3"},
			want: []string{"--requests must be between 1 and 100000, got -3"}},
		{name: "duration without unit", config: edit(t, "concurrency: 2\n", "concurrency: 2\n  timeout: 60\n"),
			want: []string{"latgate.yaml:15: run.timeout:", "60s"}},
		{name: "bad duration", config: edit(t, "concurrency: 2\n", "concurrency: 2\n  timeout: soon\n"),
			want: []string{"latgate.yaml:15: run.timeout:"}},
		{name: "negative duration", config: edit(t, "concurrency: 2\n", "concurrency: 2\n  timeout: -5s\n"),
			want: []string{"latgate.yaml:15: run.timeout:"}},
		{name: "bad percentage", config: edit(t, "    model: sim\n", "    model: sim\n    max_error_rate: 120%\n"),
			want: []string{"latgate.yaml:5: targets[0].max_error_rate:"}},
		{name: "percentage not a number", config: goodConfig + "gate:\n  confidence: high\n",
			want: []string{"latgate.yaml:16: gate.confidence:", "95%"}},
		{name: "tolerance negative", config: goodConfig + "gate:\n  checks:\n    - {metric: ttft, stat: p50, tolerance: -10%}\n",
			want: []string{"latgate.yaml:17: gate.checks[0].tolerance:"}},
		{name: "messages_file missing", config: edit(t, "q.json", "nope.json"),
			want: []string{"latgate.yaml:10: prompts[1].messages_file:", "nope.json"}},
		{name: "messages_file unreadable", config: edit(t, "q.json", "dir.json"), files: map[string]string{"dir.json/x": ""},
			want: []string{"latgate.yaml:10: prompts[1].messages_file:", "dir.json"}},
		{name: "messages_file not JSON", files: map[string]string{"q.json": "[{\"role\": \"user\",\n \"content\": }]"}, config: goodConfig,
			want: []string{"latgate.yaml:10: prompts[1].messages_file: ", "q.json:2: invalid messages JSON", "want a JSON array"}},
		{name: "messages_file wrong shape", files: map[string]string{"q.json": `{"prompt": "hi"}`}, config: goodConfig,
			want: []string{"latgate.yaml:10: prompts[1].messages_file: ", `q.json:1: invalid messages JSON: json: unknown field "prompt"`, "want a JSON array"}},
		{name: "baseline truncated", config: goodConfig, files: map[string]string{"latgate.baseline.json": string(blessed[:len(blessed)/2])},
			commands: []string{"check"}, want: []string{"latgate.baseline.json:", "truncated", "latgate bless"}},
		{name: "baseline not JSON", config: goodConfig, files: map[string]string{"latgate.baseline.json": "<html>404</html>\n"},
			commands: []string{"check"}, want: []string{"latgate.baseline.json:1:1: baseline is not valid JSON"}},
		{name: "baseline empty", config: goodConfig, files: map[string]string{"latgate.baseline.json": ""},
			commands: []string{"check"}, want: []string{"latgate.baseline.json: baseline file is empty"}},
		{name: "baseline unknown schema", config: goodConfig, files: map[string]string{"latgate.baseline.json": `{"schema": "acme/v1"}`},
			commands: []string{"check"}, want: []string{"latgate.baseline.json:", `schema "acme/v1"`, "latgate bless"}},
		{name: "baseline newer schema", config: goodConfig, files: map[string]string{"latgate.baseline.json": strings.Replace(string(blessed), "latgate.baseline/v1", "latgate.baseline/v2", 1)},
			commands: []string{"check"}, want: []string{"latgate.baseline.json:", "newer latgate", "upgrade latgate"}},
		{name: "a results file as baseline", config: goodConfig, files: map[string]string{"latgate.baseline.json": `{"schema": "latgate.results/v1"}`},
			commands: []string{"check"}, want: []string{"a results file", "latgate bless --from"}},
		// A changed config is gated and labelled (e2e_test.go); --strict-baseline
		// restores the refusal, and a baseline with nothing in common is refused.
		{name: "baseline of another prompt set", config: edit(t, "Say hello.", "Say goodbye."), args: []string{"--strict-baseline"},
			commands: []string{"check"}, want: []string{"cannot compare with the baseline", "--strict-baseline", `prompt "p"`, "edited"}},
		{name: "baseline of another model", config: edit(t, "model: sim", "model: other"), args: []string{"--strict-baseline"},
			commands: []string{"check"}, want: []string{"cannot compare with the baseline", "model"}},
		{name: "baseline of another run", config: edit(t, "concurrency: 2", "concurrency: 3"), args: []string{"--strict-baseline"},
			commands: []string{"check"}, want: []string{"cannot compare with the baseline", "concurrency"}},
		{name: "baseline of a prompt set with a prompt added", config: edit(t, "run:", "  - id: r\n    messages: [{role: user, content: more}]\nrun:"),
			args: []string{"--strict-baseline"}, commands: []string{"check"}, want: []string{"cannot compare with the baseline", `prompt "r"`}},
		{name: "baseline with nothing in common", config: edit(t, "name: t", "name: renamed"),
			commands: []string{"check"}, want: []string{"cannot compare with the baseline", "no target and prompt in common", `target renamed`}},
		{name: "bless --from a results file of another config", config: goodConfig,
			files: map[string]string{"other.json": other}, args: []string{"--from", "DIR/other.json"},
			commands: []string{"bless"}, want: []string{"other.json was not measured with", `prompt "q"`, "differs from the config"}},
		{name: "bless --from a baseline", config: goodConfig, args: []string{"--from", "DIR/latgate.baseline.json"},
			commands: []string{"bless"}, want: []string{"latgate.baseline.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			testkit.WriteFile(t, dir, "q.json", `[{"role": "user", "content": "Summarize."}]`)
			testkit.WriteFile(t, dir, "latgate.baseline.json", string(blessed))
			testkit.WriteFile(t, dir, "results.json", "previous results\n")
			testkit.WriteFile(t, dir, "junit.xml", "previous junit\n")
			testkit.WriteFile(t, dir, "report.md", "previous markdown\n")
			if tt.config != "" {
				writeConfig(t, dir, tt.config)
			}
			for name, body := range tt.files {
				testkit.WriteFile(t, dir, name, body)
			}
			before := testkit.Snapshot(t, dir)
			commands := tt.commands
			if commands == nil {
				commands = []string{"check", "bless", "measure"}
			}
			for _, command := range commands {
				args := []string{command, "--config", filepath.Join(dir, "latgate.yaml"), "--quiet"}
				switch command {
				case "check":
					args = append(args, "--out", filepath.Join(dir, "results.json"), "--junit", filepath.Join(dir, "junit.xml"), "--markdown", filepath.Join(dir, "report.md"))
				case "measure":
					args = append(args, "--out", filepath.Join(dir, "results.json"))
				}
				for _, a := range tt.args {
					args = append(args, strings.Replace(a, "DIR/", dir+string(filepath.Separator), 1))
				}
				code, stdout, stderr := run(t, nil, args...)
				t.Logf("%s: exit %d: %s", command, code, strings.ReplaceAll(stderr, dir+string(filepath.Separator), ""))
				if code != ExitUsage {
					t.Errorf("%s: exit %d, want 2\nstdout:\n%s\nstderr:\n%s", command, code, stdout, stderr)
				}
				for _, w := range tt.want {
					if !strings.Contains(stderr, w) {
						t.Errorf("%s: stderr lacks %q:\n%s", command, w, stderr)
					}
				}
				if strings.Contains(stdout, "TTFT") {
					t.Errorf("%s measured before refusing:\n%s", command, stdout)
				}
			}
			after := testkit.Snapshot(t, dir)
			for _, name := range testkit.Changed(before, after) {
				// check replaces the reports it was asked for with the
				// error, so that CI shows why rather than a stale file.
				if (name == "junit.xml" || name == "report.md") && slices.Contains(commands, "check") {
					if text := html.UnescapeString(string(after[name])); !strings.Contains(text, tt.want[0]) || !strings.Contains(strings.ToLower(text), "error") {
						t.Errorf("%s is not the error report:\n%s", name, text)
					}
					continue
				}
				t.Errorf("%s was changed, created or removed", name)
			}
		})
	}
}
