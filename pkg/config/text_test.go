package config

import (
	"strings"
	"testing"
)

// TestTextFieldsArePrintable holds #16 item 7: a control character in any
// text field that reaches output (model, region, base_url, header values,
// paths, message names) is refused at load with file:line, so bless and
// check refuse before measuring instead of printing it raw to the terminal
// or closing a Markdown code fence.
func TestTextFieldsArePrintable(t *testing.T) {
	const prompts = "prompts: [{id: p, messages: [{role: user, content: hi}]}]\n"
	tests := []struct {
		name, src, want string
	}{
		{"model with a line break and a fence", "targets: [{name: a, base_url: sim, model: \"m\\n```\\n# heading\"}]\n" + prompts,
			`latgate.yaml:1: targets[0].model: holds a line break (\n) at byte 1`},
		{"model with a terminal escape", "targets: [{name: a, base_url: sim, model: \"m\\e[31mred\"}]\n" + prompts,
			`latgate.yaml:1: targets[0].model: holds a terminal escape (\x1b) at byte 1`},
		{"model with a bidi override", "targets: [{name: a, base_url: sim, model: \"gpt\u202e4\"}]\n" + prompts,
			`targets[0].model: holds a bidirectional control (\u202e) at byte 3`},
		{"region with a tab", "targets: [{name: a, base_url: sim, region: \"eu\\twest\"}]\n" + prompts,
			`targets[0].region: holds a tab (\t) at byte 2`},
		{"base_url with a C1 control", "targets: [{name: a, base_url: \"http://h/v1\\x85\", model: m}]\n" + prompts,
			`targets[0].base_url: holds a control character (\x85) at byte 11`},
		{"header value", "targets: [{name: a, base_url: sim, headers: {X-Team: \"a\\rb\"}}]\n" + prompts,
			`targets[0].headers.X-Team: holds a line break (\r) at byte 1`},
		{"baseline path", "baseline: \"base\\n.json\"\ntargets: [{name: a, base_url: sim}]\n" + prompts,
			`latgate.yaml:1: baseline: holds a line break (\n) at byte 4`},
		{"message name", "targets: [{name: a, base_url: sim}]\nprompts: [{id: p, messages: [{role: user, content: hi, name: \"x\\ey\"}]}]\n",
			`prompts[0].messages[0].name: holds a terminal escape (\x1b) at byte 1`},
		{"unknown key with an escape is shown escaped", "targets: [{name: a, base_url: sim, \"mo\\edel\": m}]\n" + prompts,
			`targets[0].mo\x1bdel: unknown key "mo\x1bdel"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.src), "latgate.yaml", Options{Getenv: noEnv, CheckSimSpec: checkSim})
			if err == nil {
				t.Fatalf("Parse accepted %q", tt.src)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.want) {
				t.Errorf("error %q does not contain %q", msg, tt.want)
			}
			if strings.ContainsAny(msg, "\x1b\r\t\u202e\u0085") || strings.Count(msg, "\n") != strings.Count(msg, "latgate.yaml:")-1 {
				t.Errorf("the error is not one line of printable text per problem: %q", msg)
			}
		})
	}
	// A message's content is sent, not printed: it may hold line breaks.
	src := "targets: [{name: a, base_url: sim}]\nprompts: [{id: p, messages: [{role: user, content: \"line 1\\nline 2\\t```\"}]}]\n"
	if _, err := Parse([]byte(src), "latgate.yaml", Options{Getenv: noEnv}); err != nil {
		t.Errorf("content with a line break refused: %v", err)
	}
	// $OPENAI_BASE_URL is a text field too.
	getenv := func(k string) string {
		if k == "OPENAI_BASE_URL" {
			return "http://h/v1\n::error::x"
		}
		return ""
	}
	_, err := Parse([]byte("targets: [{name: a, model: m}]\n"+prompts), "latgate.yaml", Options{Getenv: getenv})
	if err == nil || !strings.Contains(err.Error(), `targets[0].base_url (from $OPENAI_BASE_URL): holds a line break (\n)`) {
		t.Errorf("$OPENAI_BASE_URL with a line break: %v", err)
	}
}

// TestDurationHintsAreTotal: a hint never suggests a duration the config
// refuses (#16: "-1d", "NaNd"), and a non-finite or negative number is
// refused, never read as some duration.
func TestDurationHintsAreTotal(t *testing.T) {
	for _, v := range []string{"-1", "NaN", ".nan", "Inf", "-Inf", ".inf", "1e400", "-0.5", "NaNd", "-1d", "Infd", "1e-300d", "0d"} {
		for _, field := range []string{"run.timeout", "gate.max_baseline_age"} {
			section, k, _ := strings.Cut(field, ".")
			src := "targets: [{name: a, base_url: sim}]\nprompts: [{id: p, messages: [{role: user, content: hi}]}]\n" +
				section + ": {" + k + ": " + v + "}\n"
			_, err := Parse([]byte(src), "latgate.yaml", Options{Getenv: noEnv})
			if err == nil {
				t.Errorf("%s: %s accepted", field, v)
				continue
			}
			msg := err.Error()
			for _, bad := range []string{"e.g. -", "e.g. NaN", "e.g. .nan", "e.g. Inf", "e.g. -Inf", "e.g. .inf", "e.g. 1e400", "NaNd", "-1d", "-1s"} {
				if strings.Contains(msg, bad) && !strings.Contains(msg, `"`+strings.TrimPrefix(bad, "e.g. ")) {
					t.Errorf("%s: %s: the hint suggests %q: %s", field, v, bad, msg)
				}
			}
		}
	}
	// A positive number without a unit still gets the number with a unit.
	_, err := Parse([]byte("targets: [{name: a, base_url: sim}]\nprompts: [{id: p, messages: [{role: user, content: hi}]}]\nrun: {timeout: 60}\n"), "latgate.yaml", Options{Getenv: noEnv})
	if err == nil || !strings.Contains(err.Error(), "60 has no unit; add a unit, e.g. 60s") {
		t.Errorf("timeout: 60: %v", err)
	}
}
