package cli

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

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
		{"another endpoint", trustedOther, "never sends that key there"},
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
					`latgate.yaml:1: target "pr" would send the key in $OPENAI_API_KEY to http://` + host,
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
}
