package cli

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/latgate/latgate/internal/testkit"
	"github.com/latgate/latgate/pkg/sim"
)

// countingSim is the simulator on 127.0.0.1 that counts the requests it
// got and the Authorization headers it saw.
func countingSim(t *testing.T) (url string, requests, withKey *atomic.Int64) {
	t.Helper()
	p, err := sim.ParseSpec("fast?tokens=4")
	if err != nil {
		t.Fatal(err)
	}
	s := sim.New(p)
	requests, withKey = new(atomic.Int64), new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.Header.Get("Authorization") != "" {
			withKey.Add(1)
		}
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { srv.Close(); s.Close() })
	return srv.URL + "/v1", requests, withKey
}

// TestTrustedConfig holds #16's exfiltration item: with --trusted-config
// (the default branch's config, which the action passes on pull requests),
// a config that would send the key to an endpoint the trusted one never
// sends it to is refused with exit 2, naming the target, key and host and
// how to approve it, before any request is sent, by check, measure and
// bless alike; the trusted endpoints, and an empty key, pass.
func TestTrustedConfig(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures the simulator")
	}
	url, requests, withKey := countingSim(t)
	const key = "sk-trusted-test-0123456789"
	env := map[string]string{"OPENAI_API_KEY": key}
	dir := t.TempDir()
	cfgBody := func(base string) string {
		return "targets: [{name: pr, base_url: \"" + base + "\", model: m}]\nprompts: [{id: p, messages: [{role: user, content: hi}]}]\nrun: {requests: 5, warmup: 0}\n"
	}
	cfg := writeConfig(t, dir, cfgBody(url))
	trustedOther := filepath.Join(dir, "trusted-other.yaml")
	trustedSame := filepath.Join(dir, "trusted-same.yaml")
	for p, body := range map[string]string{
		// The same host on another port is another endpoint.
		trustedOther: cfgBody(strings.Replace(url, "127.0.0.1:", "127.0.0.1:1", 1)),
		// Another path on the same server is the same endpoint.
		trustedSame: cfgBody(url+"/other") + "some_future_key: 1\n",
	} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	host := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/v1")
	for _, tc := range []struct {
		name    string
		trusted string
		why     string
	}{
		{"another endpoint", trustedOther, "never sends that variable there"},
		{"no trusted config yet", filepath.Join(dir, "absent.yaml"), "does not exist (the default branch has no latgate config yet)"},
	} {
		for _, cmd := range [][]string{
			{"check", "--baseline", filepath.Join(dir, "none.json")},
			{"measure"},
			{"bless", "--baseline", filepath.Join(dir, "b.json")},
		} {
			t.Run(tc.name+"/"+cmd[0], func(t *testing.T) {
				args := append(cmd, "--config", cfg, "--quiet", "--trusted-config", tc.trusted)
				code, out, errs := run(t, env, args...)
				if code != ExitUsage {
					t.Fatalf("exit %d, want %d\n%s\n%s", code, ExitUsage, out, errs)
				}
				for _, want := range []string{
					"nothing was sent",
					`latgate.yaml:1: target "pr" would send $OPENAI_API_KEY (in header Authorization) to http://` + host,
					tc.why,
					"land the change on the default branch first",
				} {
					if !strings.Contains(errs, want) {
						t.Errorf("stderr lacks %q:\n%s", want, errs)
					}
				}
				if n := requests.Load(); n != 0 {
					t.Errorf("%d requests reached the endpoint before the refusal", n)
				}
				if _, err := os.Stat(filepath.Join(dir, "b.json")); err == nil {
					t.Errorf("bless wrote a baseline")
				}
			})
		}
	}
	t.Run("trusted endpoint", func(t *testing.T) {
		code, out, errs := run(t, env, "measure", "--config", cfg, "--quiet", "--trusted-config", trustedSame)
		if code != ExitPass || requests.Load() == 0 || withKey.Load() == 0 {
			t.Fatalf("exit %d, %d requests (%d with the key)\n%s\n%s", code, requests.Load(), withKey.Load(), out, errs)
		}
	})
	t.Run("no key: nothing to send", func(t *testing.T) {
		requests.Store(0)
		withKey.Store(0)
		code, out, errs := run(t, nil, "measure", "--config", cfg, "--quiet", "--trusted-config", trustedOther)
		if code != ExitPass || requests.Load() == 0 || withKey.Load() != 0 {
			t.Fatalf("exit %d with an empty key, %d requests, %d with a key\n%s\n%s", code, requests.Load(), withKey.Load(), out, errs)
		}
	})
}

// TestTrustedConfigHeadersEnv holds #27 item 1: headers_env (sse's and
// ndjson's) sends an environment value as a header, so --trusted-config
// holds it to the same rule as api_key_env. A pull request that adds an sse
// or ndjson target on another
// host with headers_env {X-Steal: OPENAI_API_KEY} (or any variable, HOME)
// is refused with exit 2 by check, measure and bless, naming the target,
// the variable, the header and the host, before any request; the same
// variable to the origin the trusted config sends it to passes.
func TestTrustedConfigHeadersEnv(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures the simulator")
	}
	url, _, _ := countingSim(t)
	var stolen, reached atomic.Int64
	thief := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		if r.Header.Get("X-Steal") != "" {
			stolen.Add(1)
		}
		http.Error(w, "no", http.StatusTeapot)
	}))
	t.Cleanup(thief.Close)
	const key = "sk-headers-env-test-0123456789"
	env := map[string]string{"OPENAI_API_KEY": key, "HOME": "/home/someone"}
	dir := t.TempDir()
	prompts := "prompts: [{id: p, messages: [{role: user, content: hi}]}]\nrun: {requests: 5, warmup: 0}\n"
	trusted := filepath.Join(dir, "trusted.yaml")
	if err := os.WriteFile(trusted, []byte("targets: [{name: main, base_url: \""+url+"\", model: m}]\n"+prompts), 0o644); err != nil {
		t.Fatal(err)
	}
	thiefHost := strings.TrimPrefix(thief.URL, "http://")
	sse := func(header, variable string) string {
		return "api: sse, base_url: \"" + thief.URL + "/chat\", model: m, sse: {token_events: [delta], headers_env: {" + header + ": " + variable + "}}"
	}
	ndjson := func(header, variable string) string {
		return "api: ndjson, base_url: \"" + thief.URL + "/chat\", model: m, ndjson: {body: {q: \"{{prompt}}\"}, token_pointer: /text, headers_env: {" + header + ": " + variable + "}}"
	}
	for _, tc := range []struct {
		name, header, variable string
		target                 func(header, variable string) string
	}{
		{"the key", "X-Steal", "OPENAI_API_KEY", sse},
		{"any variable", "X-Steal", "HOME", sse},
		{"the key in an ndjson header", "X-Steal", "OPENAI_API_KEY", ndjson},
		{"any variable in an ndjson header", "X-Steal", "HOME", ndjson},
	} {
		sub := testkit.Mkdir(t, dir, strings.ReplaceAll(tc.name, " ", "-"))
		cfg := writeConfig(t, sub, "targets:\n  - {name: main, base_url: \""+url+"\", model: m}\n"+
			"  - {name: app, "+tc.target(tc.header, tc.variable)+"}\n"+prompts)
		for _, cmd := range [][]string{
			{"check", "--baseline", filepath.Join(sub, "none.json")},
			{"measure"},
			{"bless", "--baseline", filepath.Join(sub, "b.json")},
		} {
			t.Run(tc.name+"/"+cmd[0], func(t *testing.T) {
				code, out, errs := run(t, env, append(cmd, "--config", cfg, "--quiet", "--trusted-config", trusted)...)
				if code != ExitUsage {
					t.Fatalf("exit %d, want %d\n%s\n%s", code, ExitUsage, out, errs)
				}
				want := `latgate.yaml:3: target "app" would send $` + tc.variable + " (in header " + tc.header + ") to http://" + thiefHost
				if !strings.Contains(errs, want) || !strings.Contains(errs, "nothing was sent") {
					t.Errorf("stderr lacks %q:\n%s", want, errs)
				}
				if strings.Contains(out+errs, key) {
					t.Errorf("the key is in the output")
				}
				if _, err := os.Stat(filepath.Join(sub, "b.json")); err == nil {
					t.Errorf("bless wrote a baseline")
				}
			})
		}
	}
	if n, s := reached.Load(), stolen.Load(); n != 0 || s != 0 {
		t.Errorf("%d requests reached the other host, %d with the header", n, s)
	}
}

// TestSkipWithoutKey holds #23 item 4: a pull request that gets no secrets
// (a fork's, Dependabot's) is skipped, not failed: with --skip-without-key
// and the key empty, check measures nothing, passes and writes
// verdict=skipped; with the key, or with only the simulator, it checks.
func TestSkipWithoutKey(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures the simulator")
	}
	url, requests, _ := countingSim(t)
	dir := t.TempDir()
	cfg := writeConfig(t, dir, "targets: [{name: pr, base_url: \""+url+"\", model: m}]\nprompts: [{id: p, messages: [{role: user, content: hi}]}]\nrun: {requests: 5, warmup: 0}\n")
	output, summary := filepath.Join(dir, "github-output"), filepath.Join(dir, "summary.md")
	junit, md := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "report.md")
	env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": output, "GITHUB_STEP_SUMMARY": summary}
	code, out, errs := run(t, env, "check", "--config", cfg, "--quiet", "--skip-without-key", "--junit", junit, "--markdown", md)
	if code != ExitPass {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "latgate: skipped: $OPENAI_API_KEY (target pr) is empty") || requests.Load() != 0 {
		t.Errorf("%d requests; stdout:\n%s", requests.Load(), out)
	}
	if !strings.Contains(out, "\n::notice title=latgate skipped::$OPENAI_API_KEY (target pr) is empty") {
		t.Errorf("no ::notice on stdout:\n%s", out)
	}
	if data, _ := os.ReadFile(output); string(data) != "verdict=skipped\n" {
		t.Errorf("$GITHUB_OUTPUT = %q, want verdict=skipped", data)
	}
	if data, _ := os.ReadFile(summary); !strings.HasPrefix(string(data), "## latgate: skipped\n") {
		t.Errorf("job summary = %q", data)
	}
	// No report to publish as a check run or a comment.
	for _, p := range []string{junit, md} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written for a skipped run", filepath.Base(p))
		}
	}
	env["OPENAI_API_KEY"] = "sk-skip-test-0123456789"
	code, out, errs = run(t, env, "check", "--config", cfg, "--quiet", "--skip-without-key", "--baseline", filepath.Join(dir, "none.json"))
	if code != ExitPass || requests.Load() == 0 || strings.Contains(out, "skipped") {
		t.Errorf("with the key: exit %d, %d requests\n%s\n%s", code, requests.Load(), out, errs)
	}

	// #27 item 4: only a variable that is named and empty skips. An sse
	// app target that names none sends nothing secret and is measured; one
	// whose headers_env variable is empty is skipped, naming it.
	var appRequests atomic.Int64
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		appRequests.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		for range 3 {
			io.WriteString(w, "event: delta\ndata: {\"text\":\"w \"}\n\n")
		}
		io.WriteString(w, "event: done\ndata: {}\n\n")
	}))
	t.Cleanup(app.Close)
	appTarget := func(sse string) string {
		return "targets: [{name: app, api: sse, base_url: \"" + app.URL + "/chat\", model: m, sse: {token_events: [delta], token_pointer: /text, done_events: [done]" + sse + "}}]\n" +
			"prompts: [{id: p, messages: [{role: user, content: hi}]}]\nrun: {requests: 5, warmup: 0}\n"
	}
	noKey := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": filepath.Join(dir, "out2")}
	cfg = writeConfig(t, testkit.Mkdir(t, dir, "app"), appTarget(""))
	code, out, errs = run(t, noKey, "check", "--config", cfg, "--quiet", "--skip-without-key", "--baseline", filepath.Join(dir, "none.json"))
	if code != ExitPass || appRequests.Load() == 0 || strings.Contains(out, "skipped") {
		t.Errorf("a target with no key variable: exit %d, %d requests\n%s\n%s", code, appRequests.Load(), out, errs)
	}
	appRequests.Store(0)
	cfg = writeConfig(t, testkit.Mkdir(t, dir, "app-header"), appTarget(", headers_env: {X-Session: APP_SESSION}"))
	code, out, errs = run(t, noKey, "check", "--config", cfg, "--quiet", "--skip-without-key", "--baseline", filepath.Join(dir, "none.json"))
	if code != ExitPass || appRequests.Load() != 0 || !strings.Contains(out, "latgate: skipped: $APP_SESSION (target app) is empty") {
		t.Errorf("an empty headers_env variable: exit %d, %d requests\n%s\n%s", code, appRequests.Load(), out, errs)
	}
}
