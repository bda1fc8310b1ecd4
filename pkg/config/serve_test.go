package config

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestServeParsed: serve:'s defaults, its dir resolved against the
// config's directory, and two targets' equal serve: one Key.
func TestServeParsed(t *testing.T) {
	src := `targets:
  - {name: a, base_url: "http://127.0.0.1:8081/v1", model: m, serve: {command: [./bin/app, "--port", "8081"]}}
  - {name: b, base_url: "http://127.0.0.1:8081/v1", model: m, serve: {command: [./bin/app, "--port", "8081"], dir: srv, env: {MODE: ci}, pass_env: [APP_KEY], ready: "http://127.0.0.1:8081/healthz", ready_timeout: 2m, stop_grace: 1s}}
  - {name: c, base_url: "http://127.0.0.1:8081/v1", model: m, serve: {command: [./bin/app, "--port", "8081"]}}
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`
	cfg, err := Parse([]byte(src), "/repo/latgate.yaml", Options{Getenv: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	want := []*Serve{
		{Command: []string{"./bin/app", "--port", "8081"}, Dir: "/repo", ReadyTimeout: 30 * time.Second, StopGrace: 5 * time.Second, Line: 2, Path: "/repo/latgate.yaml"},
		{Command: []string{"./bin/app", "--port", "8081"}, Dir: "/repo/srv", Env: map[string]string{"MODE": "ci"}, PassEnv: []string{"APP_KEY"}, Ready: "http://127.0.0.1:8081/healthz",
			ReadyTimeout: 2 * time.Minute, StopGrace: time.Second, Line: 3, Path: "/repo/latgate.yaml"},
		{Command: []string{"./bin/app", "--port", "8081"}, Dir: "/repo", ReadyTimeout: 30 * time.Second, StopGrace: 5 * time.Second, Line: 4, Path: "/repo/latgate.yaml"},
	}
	var got []*Serve
	for _, tg := range cfg.Targets {
		got = append(got, tg.Serve)
	}
	if d := cmp.Diff(want, got, cmpopts.IgnoreUnexported(Serve{})); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if got[0].Key() != got[2].Key() || got[0].Key() == got[1].Key() {
		t.Errorf("keys %q %q %q: want a == c != b", got[0].Key(), got[1].Key(), got[2].Key())
	}
}
