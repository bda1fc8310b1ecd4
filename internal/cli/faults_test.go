package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"html"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latgate/latgate/pkg/baseline"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/sim"
)

// keyEnv is the api_key_env of the fault and secrets configs.
const keyEnv = "LATGATE_TEST_KEY"

// faultConfig writes a one-target, one-prompt config measuring baseURL.
func faultConfig(t *testing.T, dir, baseURL string, requests, concurrency int) string {
	t.Helper()
	return writeConfig(t, dir, fmt.Sprintf(`targets:
  - name: t
    base_url: %[1]q
    model: sim
    api_key_env: %[2]s
    max_tokens: 16
prompts:
  - id: p
    messages:
      - {role: user, content: "Say hello."}
run:
  requests: %[3]d
  max_requests: %[3]d   # no extra rounds: these tests are about faults, not latency
  bless_requests: %[3]d
  warmup: 0
  concurrency: %[4]d
  timeout: 5s
gate:
  # Floors far above a loaded test machine's scheduling jitter: the verdicts
  # here must not depend on how busy the machine is.
  checks:
    - {metric: ttft, stat: p50, tolerance: 20%%, floor: 50ms}
    - {metric: ttft, stat: p90, tolerance: 35%%, floor: 50ms}
    - {metric: itl, stat: p50, tolerance: 15%%, floor: 50ms}
    - {metric: itl, stat: p95, tolerance: 25%%, floor: 50ms}
`, baseURL, keyEnv, requests, concurrency))
}

// measured runs `latgate measure` on cfg with --out and returns the exit
// code, stdout, stderr and the results file it wrote.
func measured(t *testing.T, env map[string]string, cfg string, extra ...string) (int, string, string, *results.File) {
	t.Helper()
	out := filepath.Join(filepath.Dir(cfg), "results.json")
	os.Remove(out)
	code, stdout, stderr := run(t, env, append([]string{"measure", "--config", cfg, "--quiet", "--out", out}, extra...)...)
	f, err := results.Read(out)
	if err != nil {
		t.Fatalf("exit %d: no results file: %v\nstdout:\n%s\nstderr:\n%s", code, err, stdout, stderr)
	}
	return code, stdout, stderr, f
}

// checkAccounting asserts that every measured request is exactly one sample
// or one failure, that failures are never samples, and that the summaries
// count samples only.
func checkAccounting(t *testing.T, tg results.Target) {
	t.Helper()
	samples, failures := 0, 0
	for _, p := range tg.Prompts {
		seqs := map[int]bool{}
		for _, s := range p.Samples {
			seqs[s.Seq] = true
		}
		for _, f := range p.Failures {
			if seqs[f.Seq] {
				t.Errorf("request %d of %s is both a sample and a failure", f.Seq, p.ID)
			}
		}
		if p.Requests != len(p.Samples)+len(p.Failures) || p.Errors != len(p.Failures) {
			t.Errorf("prompt %s: %d requests, %d errors, but %d samples and %d failures", p.ID, p.Requests, p.Errors, len(p.Samples), len(p.Failures))
		}
		n := 0
		if p.Metrics.TTFT != nil {
			n = p.Metrics.TTFT.N
		}
		if n != len(p.Samples) {
			t.Errorf("prompt %s: TTFT summarizes %d values, want the %d samples", p.ID, n, len(p.Samples))
		}
		samples += len(p.Samples)
		failures += len(p.Failures)
	}
	if tg.Errors != failures || tg.Requests != samples+failures {
		t.Errorf("target: %d requests, %d errors; prompts hold %d samples, %d failures", tg.Requests, tg.Errors, samples, failures)
	}
	sum := 0
	for _, n := range tg.ByClass {
		sum += n
	}
	if sum != tg.Errors {
		t.Errorf("errors by class %v sum to %d, want %d", tg.ByClass, sum, tg.Errors)
	}
}

// TestSimFaults runs every fault of the built-in simulator through the real
// HTTP path of `latgate measure`: under the 5% default error budget (one
// failed request in 40) the run passes and reports the failure in the table
// and the results file; over it (every 2nd request) it exits 3 with the
// breakdown by class on stderr. Failed requests are never samples.
func TestSimFaults(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures the simulator for a few seconds")
	}
	const requests = 40
	tests := []struct {
		fault string
		extra string // more sim keys
		class string // "" when the fault is not an error
		msg   string // in the failure message
	}{
		{fault: "500", class: results.ErrServer, msg: "HTTP 500"},
		{fault: "cut", class: results.ErrTruncated, msg: "stream cut after 2 chunks"},
		{fault: "no_done", class: results.ErrTruncated, msg: "without a finish_reason or [DONE] after 2 chunks"},
		{fault: "stall", class: results.ErrTimeout, msg: "timed out mid-stream after 2 chunks"},
		{fault: "malformed", class: results.ErrMalformed, msg: "{not json"},
		{fault: "error_frame", class: results.ErrStreamErr, msg: "server_error: simulated mid-stream failure"},
		{fault: "error_string", class: results.ErrStreamErr, msg: "error in stream after 2 chunks: simulated mid-stream failure"},
		{fault: "error_string", extra: "&itl=40ms&keepalive=5ms", class: results.ErrStreamErr, msg: "simulated mid-stream failure"}, // after keep-alives
		{fault: "zero", class: results.ErrEmpty, msg: "no tokens"},
		{fault: "split"},
		{fault: "big"},
	}
	for _, tt := range tests {
		name := tt.fault + strings.ReplaceAll(tt.extra, "&", ",")
		spec := "sim:fast?fault_after=2" + tt.extra + "&fault=" + tt.fault
		t.Run(name+"/under budget", func(t *testing.T) {
			every := requests // one failure in 40: 2.5% < 5%
			if tt.class == "" {
				every = 1 // not an error: fault every request
			}
			cfg := faultConfig(t, t.TempDir(), fmt.Sprintf("%s&fault_every=%d", spec, every), requests, 4)
			code, stdout, stderr, f := measured(t, nil, cfg, "--timeout", "1500ms")
			if code != ExitPass {
				t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			tg := f.Targets[0]
			checkAccounting(t, tg)
			if tt.class == "" {
				if tg.Errors != 0 || len(tg.Prompts[0].Samples) != requests {
					t.Fatalf("%d errors %v, %d samples; want none and %d", tg.Errors, tg.Prompts[0].Failures, len(tg.Prompts[0].Samples), requests)
				}
				return
			}
			if tg.Errors != 1 || tg.ByClass[tt.class] != 1 || len(tg.Prompts[0].Samples) != requests-1 {
				t.Fatalf("errors %d %v, %d samples; want 1 %s failure and %d samples", tg.Errors, tg.ByClass, len(tg.Prompts[0].Samples), tt.class, requests-1)
			}
			if fl := tg.Prompts[0].Failures[0]; fl.Class != tt.class || !strings.Contains(fl.Message, tt.msg) {
				t.Errorf("failure {%s %q}, want {%s ...%q...}", fl.Class, fl.Message, tt.class, tt.msg)
			}
			if want := fmt.Sprintf("1 of %d requests failed (2.5%%): %s 1; failed requests are not samples", requests, tt.class); !strings.Contains(stdout, want) {
				t.Errorf("stdout does not report the failure (%q):\n%s", want, stdout)
			}
		})
		if tt.class == "" {
			continue
		}
		t.Run(name+"/over budget", func(t *testing.T) {
			cfg := faultConfig(t, t.TempDir(), spec+"&fault_every=2", requests, 4)
			code, stdout, stderr, f := measured(t, nil, cfg, "--timeout", "1500ms")
			if code != ExitMeasurement {
				t.Fatalf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			// Given up as soon as the budget (2 of 40) is out of reach, not
			// after 20 failures. Requests already failing when the third
			// failure cancelled the rest (at most concurrency-1) count too.
			tg := f.Targets[0]
			checkAccounting(t, tg)
			if n := tg.ByClass[tt.class]; n < 3 || n > 3+3 || tg.Errors != n || len(tg.Prompts[0].Samples) >= requests-3 || !f.Partial || !f.GaveUp {
				t.Errorf("errors %v, %d samples, partial %v, gave up %v; want %s 3 to 6, fewer than %d samples, given up",
					tg.ByClass, len(tg.Prompts[0].Samples), f.Partial, f.GaveUp, tt.class, requests-3)
			}
			want := fmt.Sprintf(`target "t": gave up after %d of %d requests: the error budget can no longer be met: 3 measured requests failed, max_error_rate allows 2 of the %d planned (%s %d); the endpoint said: %s: `,
				tg.Requests, requests, requests, tt.class, tg.ByClass[tt.class], tt.class)
			if !strings.Contains(stderr, want) || !strings.Contains(stderr, tt.msg) {
				t.Errorf("stderr lacks the breakdown %q and the endpoint's message %q:\n%s", want, tt.msg, stderr)
			}
		})
	}
}

// TestManyKeepAlives: keep-alive comments do not count against go-openai's
// limit of 300 consecutive non-data lines, which would fail the stream.
func TestManyKeepAlives(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("streams for seconds")
	}
	const spec = "fast?tokens=3&ttft=1500ms&ttft_sigma=0&itl=10ms&itl_sigma=0&keepalive=1ms"
	// The simulator really sends more than 300 non-data lines in a row.
	p, err := sim.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sim.Start(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	resp, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	run, longest := 0, 0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data:") {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	resp.Body.Close()
	if longest <= 300 {
		t.Fatalf("the simulator sent at most %d non-data lines in a row; the test needs more than go-openai's 300", longest)
	}

	cfg := faultConfig(t, t.TempDir(), "sim:"+spec, 2, 2)
	code, stdout, stderr, f := measured(t, nil, cfg)
	if code != ExitPass || f.Targets[0].Errors != 0 || len(f.Targets[0].Prompts[0].Samples) != 2 {
		t.Fatalf("exit %d, failures %+v; want 0 and 2 samples\nstdout:\n%s\nstderr:\n%s", code, f.Targets[0].Prompts[0].Failures, stdout, stderr)
	}
}

// TestRateLimitRetries: a 429 is retried after its Retry-After (the
// simulator's minimum, 1 s); the retry is counted and reported, and the
// sample's times are the final attempt's, not the wait. A 429 that never
// clears is a rate_limit failure after 3 retries, and over the budget.
func TestRateLimitRetries(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits for Retry-After")
	}
	t.Run("retried", func(t *testing.T) {
		cfg := faultConfig(t, t.TempDir(), "sim:fast?fault=429&fault_every=10", 10, 1)
		code, stdout, stderr, f := measured(t, nil, cfg)
		if code != ExitPass {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		tg := f.Targets[0]
		checkAccounting(t, tg)
		if tg.Errors != 0 || tg.Retries != 1 {
			t.Fatalf("errors %v, retries %d; want none and 1", tg.ByClass, tg.Retries)
		}
		var retried *results.Sample
		for i, s := range tg.Prompts[0].Samples {
			if s.Retries > 0 {
				retried = &tg.Prompts[0].Samples[i]
			}
		}
		if retried == nil || retried.Retries != 1 {
			t.Fatalf("no sample says it was retried once: %+v", tg.Prompts[0].Samples)
		}
		// The wait was at least 1 s; the final attempt's TTFT is a few ms.
		if retried.TTFT >= 500 || retried.Total >= 500 {
			t.Errorf("retried sample TTFT %.1f ms, total %.1f ms: the Retry-After wait leaked into its timings", retried.TTFT, retried.Total)
		}
		if !strings.Contains(stdout, "1 retry after HTTP 429 (timings are the final attempt's)") {
			t.Errorf("stdout does not report the retry:\n%s", stdout)
		}
	})
	t.Run("never clears", func(t *testing.T) {
		// One request at a time: 4 answers of HTTP 429 (3 retries), then a
		// rate_limit failure; the next request's first 429 is the fifth in a
		// row, which gives the target up instead of waiting out 100 requests.
		cfg := faultConfig(t, t.TempDir(), "sim:fast?fault=429", 100, 1) // a budget of 5 failures
		code, stdout, stderr, f := measured(t, nil, cfg)
		if code != ExitMeasurement {
			t.Fatalf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		tg := f.Targets[0]
		checkAccounting(t, tg)
		if tg.ByClass[results.ErrRateLimit] != 2 || tg.Retries != 3 || !f.GaveUp {
			t.Errorf("errors %v, retries %d, gave up %v; want 2 rate_limit (3 retries, then 0) and given up", tg.ByClass, tg.Retries, f.GaveUp)
		}
		for _, fl := range tg.Prompts[0].Failures {
			if fl.Status != http.StatusTooManyRequests {
				t.Errorf("failure %+v, want HTTP 429", fl)
			}
		}
		if !strings.Contains(stderr, "5 answers in a row were HTTP 429") || !strings.Contains(stderr, "rate_limit 2") {
			t.Errorf("stderr lacks why it gave up and the breakdown:\n%s", stderr)
		}
	})
}

// TestAuthFailsFast: a 401 or 403 stops the run at once (not 40 refused
// requests), exits 3, and names the environment variable that holds the key.
func TestAuthFailsFast(t *testing.T) {
	t.Parallel()
	const conc = 2
	for _, spec := range []string{"sim:fast?fault=401", "sim:fast?fault=403", "sim:fast?fault=echo_key", "sim:fast?require_key=right-key"} {
		t.Run(spec, func(t *testing.T) {
			cfg := faultConfig(t, t.TempDir(), spec, 40, conc)
			code, stdout, stderr, f := measured(t, map[string]string{keyEnv: "wrong-key"}, cfg)
			if code != ExitMeasurement {
				t.Fatalf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			if !strings.Contains(stderr, "$"+keyEnv) || !strings.Contains(stderr, "refused the credentials") {
				t.Errorf("stderr does not name $%s:\n%s", keyEnv, stderr)
			}
			tg := f.Targets[0]
			if !f.Partial || tg.Requests > conc || tg.ByClass[results.ErrAuth] == 0 {
				t.Errorf("partial %v, %d requests, errors %v: want a partial run stopped after at most %d auth failures", f.Partial, tg.Requests, tg.ByClass, conc)
			}
			checkAccounting(t, tg)
		})
	}
}

// TestUnreachable covers the endpoint faults before any response: connection
// refused, DNS failure, TLS failure and a timeout before the headers. Every
// request fails with its class: over the budget, exit 3.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String() + "/v1"
	ln.Close()

	tlsSrv := httptest.NewUnstartedServer(http.NotFoundHandler())
	tlsSrv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes
	tlsSrv.StartTLS()
	defer tlsSrv.Close()

	tests := []struct {
		name, url, class, msg string
		timeout               string // generous, but for the timeout
		setup                 func(t *testing.T)
		next                  string // the next step's advice for the class
	}{
		{name: "connection refused", url: refused, class: results.ErrConnect, msg: "connection refused", timeout: "10s", next: "nothing answered at base_url"},
		{name: "TLS failure", url: tlsSrv.URL + "/v1", class: results.ErrConnect, msg: "certificate", timeout: "10s", next: "nothing answered at base_url"},
		{name: "DNS failure", url: "http://latgate-nxdomain.invalid/v1", class: results.ErrConnect, msg: "DNS lookup of latgate-nxdomain.invalid failed: no such host", timeout: "10s", setup: loopbackDNS, next: "nothing answered at base_url"},
		{name: "timeout before headers", url: "sim:fast?header_delay=10s", class: results.ErrTimeout, msg: "timed out before the response headers", timeout: "300ms", next: "the endpoint did not finish within run.timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.setup != nil {
				tt.setup(t)
			}
			cfg := faultConfig(t, t.TempDir(), tt.url, 3, 1)
			start := time.Now()
			code, stdout, stderr, f := measured(t, nil, cfg, "--timeout", tt.timeout)
			if code != ExitMeasurement {
				t.Fatalf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			if el := time.Since(start); el > 20*time.Second {
				t.Errorf("took %v for 3 requests that fail at once or time out after %s", el, tt.timeout)
			}
			// The first failure puts the 5% budget of 3 requests out of
			// reach: the target is given up, not tried twice more.
			tg := f.Targets[0]
			checkAccounting(t, tg)
			if tg.ByClass[tt.class] != 1 || tg.Requests != 1 {
				t.Fatalf("errors %v of %d requests, want 1 %s of 1", tg.ByClass, tg.Requests, tt.class)
			}
			if fl := tg.Prompts[0].Failures[0]; !strings.Contains(fl.Message, tt.msg) {
				t.Errorf("failure message %q lacks %q", fl.Message, tt.msg)
			}
			if want := tt.class + " 1"; !strings.Contains(stderr, "gave up after 1 of 3 requests: the error budget can no longer be met") ||
				!strings.Contains(stderr, want) || !strings.Contains(stderr, tt.msg) {
				t.Errorf("stderr lacks why it gave up, the breakdown %q and the message %q:\n%s", want, tt.msg, stderr)
			}
			// The failing command ends with what to do next (#23).
			if want := "\nnext: " + tt.next; !strings.Contains(stderr, want) || !strings.Contains(stderr, "latgate measure --config "+cfg+" --requests 5") {
				t.Errorf("stderr lacks the next step %q with the command that tries the endpoint:\n%s", want, stderr)
			}
		})
	}
}

// loopbackDNS makes the process's Go resolver ask a DNS server on
// 127.0.0.1 that answers NXDOMAIN to every query, for the rest of the test:
// a DNS failure without a packet leaving the machine. (The http.Transport's
// dialer uses net.DefaultResolver.)
func loopbackDNS(t *testing.T) {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		buf := make([]byte, 1500)
		for {
			n, addr, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if n < 12 {
				continue
			}
			resp := bytes.Clone(buf[:n])
			resp[2] |= 0x80    // QR: a response (RD kept)
			resp[3] = 0x80 | 3 // RA, RCODE 3: NXDOMAIN
			pc.WriteTo(resp, addr)
		}
	}()
	var queries atomic.Int32
	r := net.DefaultResolver
	oldGo, oldDial := r.PreferGo, r.Dial
	r.PreferGo = true // never the C library, which would ask the system's server
	r.Dial = func(ctx context.Context, network, _ string) (net.Conn, error) {
		queries.Add(1)
		var d net.Dialer
		return d.DialContext(ctx, "udp", pc.LocalAddr().String()) // whatever server was asked for
	}
	t.Cleanup(func() {
		r.PreferGo, r.Dial = oldGo, oldDial
		pc.Close()
		t.Logf("loopback DNS server answered %d lookups", queries.Load())
	})
}

// TestCheckErrorBudget: under the budget, check passes and every output says
// how many requests failed and that they are not samples; over it, check
// exits 3 with the breakdown, compares nothing and leaves the baseline alone.
func TestCheckErrorBudget(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures the simulator")
	}
	dir := t.TempDir()
	cfg := faultConfig(t, dir, "sim:fast", 40, 4)
	basePath := filepath.Join(dir, "latgate.baseline.json")
	if code, stdout, stderr := run(t, nil, "bless", "--config", cfg, "--quiet"); code != ExitPass {
		t.Fatalf("bless: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	blessed, err := os.ReadFile(basePath)
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{}
	for _, name := range []string{"results.json", "junit.xml", "report.md", "summary.md", "output.txt"} {
		paths[name] = filepath.Join(dir, name)
	}
	env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": paths["summary.md"], "GITHUB_OUTPUT": paths["output.txt"]}
	check := func(spec string) (int, map[string]string) {
		t.Helper()
		for _, p := range paths {
			os.Remove(p)
		}
		code, stdout, stderr := run(t, env, "check", "--config", cfg, "--quiet", "--base-url", spec,
			"--out", paths["results.json"], "--junit", paths["junit.xml"], "--markdown", paths["report.md"])
		got := map[string]string{"stdout": stdout, "stderr": stderr}
		for name, p := range paths {
			if data, err := os.ReadFile(p); err == nil {
				got[name] = html.UnescapeString(string(data)) // the JUnit XML's &#34;
			}
		}
		return code, got
	}

	t.Run("under budget", func(t *testing.T) {
		code, got := check("sim:fast?fault=500&fault_every=40")
		if code != ExitPass {
			t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, got["stdout"], got["stderr"])
		}
		const want = "1 of 40 requests failed"
		// The endpoint's words, then which request it answered (#33).
		const said = "server: \"HTTP 500: The server had an error while processing your request (simulated). (POST http://127.0.0.1:"
		for _, name := range []string{"stdout", "junit.xml", "report.md", "summary.md"} {
			if !strings.Contains(got[name], want) || !strings.Contains(got[name], "server 1") {
				t.Errorf("%s does not report the failed request (%q):\n%s", name, want, got[name])
			}
			flat := strings.Join(strings.Fields(strings.ReplaceAll(got[name], `\`, "")), " ") // the text wraps at 100 columns
			if !strings.Contains(got[name], "the endpoint said:") || !strings.Contains(flat, strings.ReplaceAll(said, `\`, "")) {
				t.Errorf("%s lacks the endpoint's words %q:\n%s", name, said, got[name])
			}
		}
		if !strings.Contains(got["stdout"], "::warning title=latgate::target t: 1 of 40 requests failed") {
			t.Errorf("no annotation of the failed request:\n%s", got["stdout"])
		}
		f, err := results.Read(paths["results.json"])
		if err != nil {
			t.Fatal(err)
		}
		checkAccounting(t, f.Targets[0])
		if f.Targets[0].ByClass[results.ErrServer] != 1 || len(f.Targets[0].Prompts[0].Samples) != 39 {
			t.Errorf("results: errors %v, %d samples; want server 1 and 39 samples", f.Targets[0].ByClass, len(f.Targets[0].Prompts[0].Samples))
		}
	})

	t.Run("over budget", func(t *testing.T) {
		code, got := check("sim:fast?fault=500&fault_every=2")
		if code != ExitMeasurement {
			t.Fatalf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", code, got["stdout"], got["stderr"])
		}
		const want = `the error budget can no longer be met: 3 measured requests failed, max_error_rate allows 2 of the 40 planned (server 3); the endpoint said: server: HTTP 500`
		for _, name := range []string{"stderr", "junit.xml", "report.md", "summary.md"} {
			if !strings.Contains(got[name], want) {
				t.Errorf("%s lacks %q:\n%s", name, want, got[name])
			}
		}
		if got["output.txt"] != "verdict=error\n" {
			t.Errorf("step output %q, want verdict=error", got["output.txt"])
		}
		if strings.Contains(got["stdout"], "ratio") || strings.Contains(got["stdout"], "regressed") {
			t.Errorf("compared an over-budget run:\n%s", got["stdout"])
		}
		data, err := os.ReadFile(paths["results.json"])
		if err != nil {
			t.Fatal(err)
		}
		f, err := compare.DecodeRecorded(data, paths["results.json"])
		if err != nil {
			t.Fatal(err)
		}
		checkAccounting(t, f.Targets[0])
		if f.Comparison != nil {
			t.Errorf("the results file holds a comparison of an over-budget run")
		}
	})

	if now, err := os.ReadFile(basePath); err != nil || !bytes.Equal(now, blessed) {
		t.Errorf("check changed the baseline (%v)", err)
	}
}

// TestBlessForceOverBudget: bless --force blesses a run that went over its
// error budget, as its help says: it measures every planned request rather
// than give up when the budget is out of reach (which left it nothing to
// bless), warns, and the baseline records the target's own max_error_rate.
// Without --force the same run exits 3 and writes no baseline.
func TestBlessForceOverBudget(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures the simulator")
	}
	dir := t.TempDir()
	cfg := faultConfig(t, dir, "sim:fast", 60, 4)
	basePath := filepath.Join(dir, "latgate.baseline.json")
	const faulty = "sim:fast?fault=500&fault_every=10" // 6 of 60 fail: the budget (5%) allows 3
	code, _, stderr := run(t, nil, "bless", "--config", cfg, "--quiet", "--base-url", faulty)
	if code != ExitMeasurement || !strings.Contains(stderr, "the error budget can no longer be met") ||
		!strings.Contains(stderr, "no baseline was written to "+basePath) {
		t.Errorf("bless over budget: exit %d, want 3 naming the budget and that no baseline was written\n%s", code, stderr)
	}
	if _, err := os.Stat(basePath); err == nil {
		t.Fatalf("bless over budget without --force wrote a baseline")
	}
	code, _, stderr = run(t, nil, "bless", "--config", cfg, "--quiet", "--base-url", faulty, "--force")
	if code != ExitPass || strings.Count(stderr, "(blessing anyway: --force)") != 1 {
		t.Fatalf("bless --force over budget: exit %d, want 0 with one warning\n%s", code, stderr)
	}
	f, err := baseline.Load(basePath)
	if err != nil {
		t.Fatal(err)
	}
	bt := f.Targets[0]
	if bt.Requests != 60 || bt.Errors != 6 || bt.MaxErrorRate != 0.05 {
		t.Errorf("baseline target: %d requests, %d errors, max_error_rate %g; want 60, 6 and the config's 0.05", bt.Requests, bt.Errors, bt.MaxErrorRate)
	}
}
