package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/latgate/latgate/internal/testkit"
)

// Sentinels of TestHostileEndpoint: a key padded with white space (trimmed
// when sent) and a key in base_url's query string.
const (
	paddedKey   = " \tsk-PADDED-SENTINEL-0123456789\t "
	queryKey    = "qk-QUERY-SENTINEL-4242"
	hostileUser = "hostileuser"
	hostilePass = "hostilepass-77aa"
)

// hostile is what a misbehaving endpoint puts into every text field: the
// request's credentials, a line break followed by a workflow command, a
// Markdown fence, heading and image, HTML, and terminal escapes.
func hostile(r *http.Request) string {
	return fmt.Sprintf("m\n::error title=pwned::owned\n```\n# H ![i](http://x/i.png) <img src=x>\x1b[31mRED\x1b]0;title\x07 auth=%s url=%s",
		r.Header.Get("Authorization"), r.URL)
}

// hostileServer streams answers whose model, system_fingerprint and
// finish_reason are hostile; every 40th request is a 500 with a hostile body
// (under the default error budget), and while auth is set every request is a 401
// with a hostile body. It records the request URLs it saw; the returned
// function reads them under the lock (a handler may still be running when
// the test reads).
func hostileServer(t *testing.T, auth *atomic.Bool) (*httptest.Server, func() []string) {
	t.Helper()
	var (
		n    atomic.Int64
		mu   sync.Mutex
		seen []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		seen = append(seen, r.URL.String())
		mu.Unlock()
		h := hostile(r)
		if k := n.Add(1); auth.Load() || k%40 == 0 {
			w.WriteHeader(map[bool]int{true: http.StatusUnauthorized, false: http.StatusInternalServerError}[auth.Load()])
			b, _ := json.Marshal(map[string]any{"error": map[string]string{"message": h}})
			w.Write(b)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
		for i := range 4 {
			fmt.Fprintf(w, "data: {\"id\":\"c\",\"model\":%s,\"system_fingerprint\":%s,\"choices\":[{\"index\":0,\"delta\":{\"content\":\"w%d \"}}]}\n\n", js(h), js(h), i)
		}
		fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":%s}]}\n\ndata: [DONE]\n\n", js(h))
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

// TestHostileEndpoint runs every command that writes against an endpoint
// that echoes the credentials (a white-space padded key, a key in base_url's
// query string, user:pass@) into every field of successful streams and into
// error bodies, with text built to inject workflow commands, Markdown and
// terminal escapes. It greps every output: stdout, stderr, results, baseline,
// JUnit, Markdown, job summary, step outputs, run history.
func TestHostileEndpoint(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures for a few seconds")
	}
	dir, inputs := t.TempDir(), t.TempDir()
	out := outputs{}
	env := map[string]string{
		keyEnv:                paddedKey,
		"GITHUB_ACTIONS":      "true",
		"GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md"),
		"GITHUB_OUTPUT":       filepath.Join(dir, "output.txt"),
	}
	step := func(name string, wantCode int, args ...string) {
		t.Helper()
		code, stdout, stderr := run(t, env, args...)
		out.add(name+" stdout", stdout)
		out.add(name+" stderr", stderr)
		if code != wantCode {
			t.Errorf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", name, code, wantCode, stdout, stderr)
		}
	}
	url := func(srv *httptest.Server) string {
		return "http://" + hostileUser + ":" + hostilePass + "@" + strings.TrimPrefix(srv.URL, "http://") + "/v1?api-key=" + queryKey
	}
	reports := func(name string) []string {
		return []string{"--quiet", "--out", filepath.Join(dir, name+".results.json"),
			"--junit", filepath.Join(dir, name+".junit.xml"), "--markdown", filepath.Join(dir, name+".md")}
	}
	var auth atomic.Bool
	srv, seen := hostileServer(t, &auth)
	cfg := faultConfig(t, testkit.Mkdir(t, inputs, "ok"), url(srv), 80, 4)
	base := filepath.Join(dir, "baseline.json")
	history := filepath.Join(dir, "history.jsonl")
	step("measure", ExitPass, "measure", "--config", cfg, "--quiet", "--out", filepath.Join(dir, "measure.json"), "--history", history)
	step("bless", ExitPass, "bless", "--config", cfg, "--quiet", "--force", "--baseline", base)
	step("check", ExitPass, append([]string{"check", "--config", cfg, "--baseline", base, "--history", history}, reports("check")...)...)
	step("compare", ExitPass, "compare", "--config", cfg, "--junit", filepath.Join(dir, "compare.junit.xml"),
		"--markdown", filepath.Join(dir, "compare.md"), base, filepath.Join(dir, "check.results.json"))
	auth.Store(true)
	step("check 401", ExitMeasurement, append([]string{"check", "--config", cfg, "--baseline", base}, reports("auth")...)...)

	// The query string reached the endpoint on the request URL, after the path.
	if urls := seen(); len(urls) == 0 || urls[0] != "/v1/chat/completions?api-key="+queryKey {
		t.Errorf("request URLs %q, want the first /v1/chat/completions?api-key=%s", urls, queryKey)
	}
	out.addFiles(t, dir)
	for _, f := range []string{"summary.md", "output.txt", "measure.json", "baseline.json", "check.junit.xml", "check.md", "history.jsonl",
		"compare.md", "auth.junit.xml", "auth.md"} {
		if _, ok := out[filepath.Join(dir, f)]; !ok {
			t.Errorf("%s was not written; the test would not check it", f)
		}
	}
	// The text did reach the outputs (sanitised), or the test proves nothing.
	if !strings.Contains(out[filepath.Join(dir, "baseline.json")], "owned") || !strings.Contains(out["check 401 stderr"], "owned") ||
		!strings.Contains(out[history], "owned") {
		t.Fatalf("the hostile text reached neither the baseline nor stderr; the test would prove nothing")
	}
	secrets := []string{strings.TrimSpace(paddedKey), "PADDED-SENTINEL", queryKey, "QUERY-SENTINEL", hostilePass}
	for name, s := range out {
		for _, secret := range secrets {
			if i := strings.Index(s, secret); i >= 0 {
				t.Errorf("%s leaks %q: ...%q...", name, secret, s[max(0, i-60):min(len(s), i+len(secret)+20)])
			}
		}
		if strings.Contains(s, "\x1b") || strings.Contains(s, "\x07") {
			t.Errorf("%s holds a terminal escape: %q", name, s)
		}
		for _, line := range strings.Split(s, "\n") {
			trimmed := strings.TrimLeft(line, " \t")
			if strings.HasPrefix(trimmed, "::") && (strings.Contains(line, "pwned") || strings.Contains(line, "owned")) {
				t.Errorf("%s: the endpoint's text became a workflow command: %q", name, line)
			}
		}
		if strings.HasSuffix(name, ".md") || strings.HasSuffix(name, "summary.md") {
			for _, bad := range []string{"![i](", "<img", "\n# H"} {
				if strings.Contains(outsideFences(s), bad) {
					t.Errorf("%s renders the endpoint's Markdown %q:\n%s", name, bad, s)
				}
			}
		}
	}
	var f struct {
		Targets []struct {
			ReturnedModels     []string `json:"returned_models"`
			SystemFingerprints []string `json:"system_fingerprints"`
		} `json:"targets"`
	}
	data, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	for _, m := range append(f.Targets[0].ReturnedModels, f.Targets[0].SystemFingerprints...) {
		if strings.ContainsAny(m, "\n\r\x1b") || !strings.Contains(m, "[REDACTED]") {
			t.Errorf("baseline keeps an unsanitised endpoint field: %q", m)
		}
	}
}

// outsideFences returns the Markdown s without the content of its fenced
// code blocks, which renders as literal text; a fence closes only on a line
// of at least as many backticks as opened it (CommonMark).
func outsideFences(s string) string {
	var b strings.Builder
	fence := ""
	for _, line := range strings.Split(s, "\n") {
		ticks := len(line) - len(strings.TrimLeft(line, "`"))
		switch {
		case fence == "" && ticks >= 3:
			fence = line[:ticks]
		case fence != "" && ticks >= len(fence) && strings.TrimSpace(line[ticks:]) == "":
			fence = ""
		case fence == "":
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
