package cli

import (
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/latgate/latgate/internal/testkit"
	"github.com/latgate/latgate/pkg/results"
)

// Sentinels: the API key (in $LATGATE_TEST_KEY) and the password of a base
// URL's user:pass@. Neither may appear in any output, whole or in part.
const (
	sentinelKey  = "sk-LATGATE-SENTINEL-0123456789abcdefghij"
	sentinelPass = "sentinelpass-91c2"
	sentinelUser = "latgateuser"
)

// forbidden lists what must never be written: the key, its distinctive
// middle (a clipped message could keep part of it), the password, and the
// user:pass pair in Basic-auth form.
func forbidden() []string {
	return []string{
		sentinelKey,
		"SENTINEL",
		sentinelPass,
		base64.StdEncoding.EncodeToString([]byte(sentinelUser + ":" + sentinelPass)),
	}
}

// echoServer is an OpenAI-compatible endpoint that streams a short answer
// whose model and system_fingerprint echo the request's Authorization header,
// URL and Host, and echoes them in its failures too: every 60th request is an HTTP 500 with a JSON error body, every
// 60th (offset 30) a plain-text 502 whose echo straddles the 300-byte mark
// where latgate clips an error body, every 60th (offset 15) a mid-stream
// data: {"error": ...} frame; with auth set, every request is a 401 echo.
func echoServer(t *testing.T, auth bool) *httptest.Server {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		scheme, _, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		echo := fmt.Sprintf("Scheme=%s Authorization=%s URL=%s Host=%s", scheme, r.Header.Get("Authorization"), r.URL, r.Host)
		k := n.Add(1)
		switch {
		case auth:
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"error":{"message":"bad credentials: %s","type":"invalid_request_error"}}`, echo)
			return
		case k%60 == 0:
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, `{"error":{"message":"upstream failed: %s","type":"server_error"}}`, echo)
			return
		case k%60 == 30:
			// The key starts 20 bytes before the clip, so a clip before
			// redaction would keep "sk-LATGATE-SENTINEL-".
			prefix := "proxy error; Authorization=Bearer "
			pad := strings.Repeat(".", max(0, 300-20-len(prefix)))
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprintf(w, "%s%s%s", pad, prefix, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 4 {
			// Successful streams echo too, in the fields latgate stores.
			fmt.Fprintf(w, "data: {\"id\":\"c\",\"model\":%q,\"system_fingerprint\":%q,\"choices\":[{\"index\":0,\"delta\":{\"content\":\"w%d \"}}]}\n\n", echo, echo, i)
			if k%60 == 15 && i == 1 {
				fmt.Fprintf(w, "data: {\"error\":%q}\n\n", echo)
				return
			}
		}
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// withCreds returns srv's base URL with the sentinel user:pass@.
func withCreds(srv *httptest.Server) string {
	return "http://" + sentinelUser + ":" + sentinelPass + "@" + strings.TrimPrefix(srv.URL, "http://") + "/v1"
}

// outputs collects everything a run printed and wrote, for leak checks.
type outputs map[string]string

func (o outputs) add(name, s string) { o[name] += s }

// addFiles adds every file under dir.
func (o outputs) addFiles(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		o[p] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func (o outputs) assertClean(t *testing.T) {
	t.Helper()
	for name, s := range o {
		for _, secret := range forbidden() {
			if i := strings.Index(s, secret); i >= 0 {
				t.Errorf("%s leaks %q: ...%s...", name, secret, s[max(0, i-80):min(len(s), i+len(secret)+20)])
			}
		}
	}
}

// TestSecretsNeverLeak runs measure, bless and check (with every report,
// inside GitHub Actions) against endpoints that echo the key and the base
// URL's credentials back, and greps every byte printed or written for them.
func TestSecretsNeverLeak(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures for a few seconds")
	}
	dir := t.TempDir()    // everything latgate writes
	inputs := t.TempDir() // the configs, which hold the URL credentials by design
	out := outputs{}
	ghaEnv := func(key string) map[string]string {
		return map[string]string{
			keyEnv:                key,
			"GITHUB_ACTIONS":      "true",
			"GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md"),
			"GITHUB_OUTPUT":       filepath.Join(dir, "output.txt"),
			"GITHUB_SHA":          "0123456789abcdef0123456789abcdef01234567",
		}
	}
	step := func(name string, env map[string]string, wantCode int, args ...string) string {
		t.Helper()
		code, stdout, stderr := run(t, env, args...)
		out.add(name+" stdout", stdout)
		out.add(name+" stderr", stderr)
		if code != wantCode {
			t.Errorf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", name, code, wantCode, stdout, stderr)
		}
		return stderr
	}
	flags := func(name string) []string {
		return []string{"--quiet", "--out", filepath.Join(dir, name+".results.json"),
			"--junit", filepath.Join(dir, name+".junit.xml"), "--markdown", filepath.Join(dir, name+".md")}
	}

	// A working endpoint that sometimes echoes: measure, bless, check.
	echo := faultConfig(t, testkit.Mkdir(t, inputs, "echo"), withCreds(echoServer(t, false)), 60, 4)
	hist := filepath.Join(dir, "history.jsonl")
	histEnv := ghaEnv(sentinelKey)
	histEnv["RUNNER_NAME"] = "runner " + sentinelKey // the environment is outside text too
	step("measure", histEnv, ExitPass, "measure", "--config", echo, "--quiet", "--out", filepath.Join(dir, "measure.json"), "--history", hist)
	step("bless", ghaEnv(sentinelKey), ExitPass, "bless", "--config", echo, "--quiet", "--baseline", filepath.Join(dir, "echo.baseline.json"))
	step("check", histEnv, ExitPass, append([]string{"check", "--config", echo, "--baseline", filepath.Join(dir, "echo.baseline.json"), "--history", hist}, flags("check")...)...)
	step("trend", histEnv, ExitPass, "trend", "--config", echo, "--baseline", filepath.Join(dir, "echo.baseline.json"), "--history", hist,
		"--junit", filepath.Join(dir, "trend.junit.xml"), "--markdown", filepath.Join(dir, "trend.md"))
	if f, err := results.Read(filepath.Join(dir, "check.results.json")); err != nil {
		t.Error(err)
	} else if bc := f.Targets[0].ByClass; bc[results.ErrServer] == 0 || bc[results.ErrStreamErr] == 0 {
		t.Errorf("errors by class %v: the echoing failures did not happen; the test would prove nothing", bc)
	}

	// Endpoints that echo the credentials in a 401: fail fast, exit 3.
	simCfg := faultConfig(t, testkit.Mkdir(t, inputs, "sim"), "sim:fast", 60, 4)
	simBase := filepath.Join(dir, "sim.baseline.json")
	step("bless sim", ghaEnv(sentinelKey), ExitPass, "bless", "--config", simCfg, "--quiet", "--baseline", simBase)
	for _, spec := range []string{"sim:fast?fault=echo_key", "sim:fast?require_key=another-key"} {
		stderr := step("check "+spec, ghaEnv(sentinelKey), ExitMeasurement, append([]string{"check", "--config", simCfg, "--baseline", simBase, "--base-url", spec}, flags("auth")...)...)
		if !strings.Contains(stderr, "$"+keyEnv) {
			t.Errorf("check %s: stderr does not name $%s:\n%s", spec, keyEnv, stderr)
		}
	}
	authEcho := faultConfig(t, testkit.Mkdir(t, inputs, "authecho"), withCreds(echoServer(t, true)), 60, 4)
	step("measure 401 echo", ghaEnv(sentinelKey), ExitMeasurement, "measure", "--config", authEcho, "--quiet", "--out", filepath.Join(dir, "auth.json"))
	// Without a key, net/http sends the URL's user:pass as Basic auth.
	step("measure 401 echo, no key", ghaEnv(""), ExitMeasurement, "measure", "--config", authEcho, "--quiet", "--out", filepath.Join(dir, "nokey.json"))
	if s := out["measure 401 echo, no key stderr"]; !strings.Contains(s, "Scheme=Basic") {
		t.Errorf("the server did not echo the Basic credentials; the test would prove nothing:\n%s", s)
	}

	// Credentials in a URL that cannot be reached, given by flag and in the config.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + sentinelUser + ":" + sentinelPass + "@" + ln.Addr().String() + "/v1"
	ln.Close()
	step("measure refused", ghaEnv(sentinelKey), ExitMeasurement, "measure", "--config", simCfg, "--quiet", "--base-url", refused)
	bad := faultConfig(t, testkit.Mkdir(t, inputs, "bad"), "ftp://"+sentinelUser+":"+sentinelPass+"@127.0.0.1/v1", 60, 4)
	step("config error", ghaEnv(sentinelKey), ExitUsage, "check", "--config", bad)
	step("flag error", ghaEnv(sentinelKey), ExitUsage, "measure", "--config", simCfg, "--base-url", "ftp://"+sentinelUser+":"+sentinelPass+"@127.0.0.1/v1")

	out.addFiles(t, dir)
	for _, f := range []string{"summary.md", "output.txt", "check.junit.xml", "check.md", "echo.baseline.json", "auth.json", "history.jsonl", "trend.md", "trend.junit.xml"} {
		if _, ok := out[filepath.Join(dir, f)]; !ok {
			t.Errorf("%s was not written; the test would not check it", f)
		}
	}
	out.assertClean(t)
}
