//go:build unix

package cli

import (
	"context"
	"errors"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/latgate/latgate/internal/testkit"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/sim"
)

// appConfig is a config whose one target is testdata/appserver, started
// by serve: on port, forwarding to the simulator at upstream with delay
// added before each answer; extra is added to serve:.
func appConfig(app, upstream, port, delay, pids, extra string) string {
	return fmt.Sprintf(`targets:
  - name: app
    base_url: "http://127.0.0.1:%[2]s/v1"
    model: m
    max_tokens: 8
    serve:
      command: [%[1]q, -listen, "127.0.0.1:%[2]s", -upstream, %[3]q, -delay, %[4]q, -pids, %[5]q%[6]s]
      ready: "http://127.0.0.1:%[2]s/healthz"
      pass_env: [APP_UPSTREAM_KEY]
      stop_grace: 2s
`+twoPrompts+`run:
  requests: 20
  max_requests: 20
  warmup: 1
  concurrency: 2
gate:
  checks:
    - {metric: ttft, stat: p50, tolerance: 15%%, floor: 10ms}
`, app, port, upstream, delay, pids, extra)
}

// appAndUpstream builds testdata/appserver and starts the simulator of
// spec for it to forward to: the binary and the simulator's chat URL.
func appAndUpstream(t *testing.T, spec string) (app, upstream string) {
	t.Helper()
	app = testkit.Build(t, "github.com/latgate/latgate/internal/cli/testdata/appserver")
	p, err := sim.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	up, err := sim.Start(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { up.Close() })
	return app, up.URLFor("chat")
}

// runWithEnviron is run with the environment a serve: process inherits.
func runWithEnviron(environ []string, args ...string) (int, string, string) {
	return runIn(context.Background(), Env{Getenv: func(string) string { return "" }, Environ: func() []string { return environ }}, args...)
}

// TestServeAB holds #32's serve: item end to end: `latgate ab` between
// two builds of a team's app server (testdata/appserver, forwarding the
// simulator's stream), each started by its config's serve: on a port of
// its own and measured interleaved. The same build passes; a build that
// adds 50 ms before the first token fails naming TTFT; a server that
// never becomes ready fails at ready_timeout with its output (the secret
// in it redacted) in the report; no process is left after any of them.
func TestServeAB(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs an app server")
	}
	app, upstream := appAndUpstream(t, "default?tokens=4&itl=5ms")
	dir := t.TempDir()
	const secret = "sk-Zq81vXk3Lp0Rt7WmYc4"
	environ := []string{"PATH=" + os.Getenv("PATH"), "APP_UPSTREAM_KEY=" + secret, "OTHER_SERVICE_TOKEN=sk-Other9Token7Value5"}
	n := 0
	build := func(delay, extra string) (cfg, pids string) {
		n++
		pids = filepath.Join(dir, fmt.Sprintf("pids%d", n))
		cfg = testkit.WriteFile(t, dir, fmt.Sprintf("app%d.yaml", n), appConfig(app, upstream, testkit.FreePort(t), delay, pids, extra))
		return cfg, pids
	}
	base, basePIDs := build("0s", "")
	same, samePIDs := build("0s", "")
	slow, slowPIDs := build("50ms", "")

	code, stdout, stderr := runWithEnviron(environ, "ab", "--quiet", base, same)
	if code != ExitPass {
		t.Fatalf("the same build: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "target app: its server is ready (serve: "+app+", pid ") {
		t.Errorf("stderr does not say the server was started:\n%s", stderr)
	}
	gone(t, basePIDs, samePIDs)

	junit := filepath.Join(dir, "slow.xml")
	code, stdout, stderr = runWithEnviron(environ, "ab", "--quiet", "--junit", junit, base, slow)
	if code != ExitRegression || !regexp.MustCompile(`ttft p50 .*REGRESSED`).MatchString(stdout) {
		t.Fatalf("a build 50 ms slower to the first token: exit %d, want 1 naming ttft p50\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	gone(t, basePIDs, slowPIDs)

	mute, mutePIDs := build("0s", ", -mute")
	mute = strings.Replace(testkit.ReadFile(t, mute), "stop_grace: 2s", "stop_grace: 2s\n      ready_timeout: 1s", 1)
	mutePath := testkit.WriteFile(t, dir, "mute.yaml", mute)
	junit = filepath.Join(dir, "mute.xml")
	start := time.Now()
	code, stdout, stderr = runWithEnviron(environ, "ab", "--quiet", "--junit", junit, base, mutePath)
	took := time.Since(start)
	if code != ExitMeasurement {
		t.Fatalf("a server that is never ready: exit %d, want 3\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if took < time.Second {
		t.Errorf("gave up after %s, before ready_timeout 1s", took)
	}
	report := html.UnescapeString(testkit.ReadFile(t, junit))
	for _, w := range []string{`target "app": its server (serve: ` + app, "was not ready after 1s", "waiting for a database that never comes", "raise serve.ready_timeout",
		"other token inherited: false)", "key [REDACTED]"} {
		for what, text := range map[string]string{"stderr": stderr, "the JUnit report": report} {
			if !strings.Contains(text, w) {
				t.Errorf("%s lacks %q:\n%s", what, w, text)
			}
		}
	}
	for what, text := range map[string]string{"stdout": stdout, "stderr": stderr, "the JUnit report": report} {
		if strings.Contains(text, secret) || strings.Contains(text, secret[3:11]) {
			t.Errorf("%s holds the secret the server printed:\n%s", what, text)
		}
	}
	gone(t, basePIDs, mutePIDs)
}

// gone checks that the app servers whose pid files are given, and the
// workers they started, are no longer running.
func gone(t *testing.T, pidFiles ...string) {
	t.Helper()
	for _, f := range pidFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Errorf("%s: the app server wrote no pids: %v", f, err)
			continue
		}
		var pids [2]int
		if _, err := fmt.Sscan(string(data), &pids[0], &pids[1]); err != nil {
			t.Errorf("%s: %q: %v", f, data, err)
			continue
		}
		for _, pid := range pids {
			deadline := time.Now().Add(10 * time.Second)
			for alive(pid) {
				if time.Now().After(deadline) {
					_ = syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("process %d (of %s) is still running after latgate exited", pid, f)
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		os.Remove(f)
	}
}

// alive reports whether pid runs (a zombie waiting for its parent, on
// Linux's /proc, does not).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return runtime.GOOS != "linux" // on Linux, no /proc entry: gone
	}
	_, after, ok := strings.Cut(string(data), ") ")
	return !(ok && strings.HasPrefix(after, "Z"))
}

// TestServeTrusted: with --trusted-config a serve: the trusted config does
// not run is refused (exit 2) before anything starts; the same serve: is
// started.
func TestServeTrusted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	marker := filepath.Join(dir, "started")
	body := func(command string) string {
		return "targets: [{name: app, base_url: \"http://127.0.0.1:" + testkit.FreePort(t) + "/v1\", model: m, serve: {command: " + command + ", ready_timeout: 5s}}]\n" +
			"prompts: [{id: p, messages: [{role: user, content: hi}]}]\nrun: {requests: 2, warmup: 0}\n"
	}
	touch := `[sh, -c, "touch ` + marker + `"]`
	cfg := testkit.WriteFile(t, dir, "latgate.yaml", body(touch))
	without := testkit.WriteFile(t, dir, "trusted-without.yaml", "targets: [{name: app, base_url: \"http://127.0.0.1:1/v1\", model: m}]\n")
	same := testkit.WriteFile(t, dir, "trusted-same.yaml", body(touch))
	for _, trusted := range []string{without, filepath.Join(dir, "absent.yaml")} {
		code, stdout, stderr := run(t, nil, "measure", "--quiet", "--config", cfg, "--trusted-config", trusted)
		if code != ExitUsage {
			t.Fatalf("--trusted-config %s: exit %d, want 2\n%s\n%s", filepath.Base(trusted), code, stdout, stderr)
		}
		for _, w := range []string{"refusing to run a serve: command the trusted config", "nothing was started", `latgate.yaml:1: target "app" would run sh -c touch`, "land the serve:"} {
			if !strings.Contains(stderr, w) {
				t.Errorf("stderr lacks %q:\n%s", w, stderr)
			}
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("the command ran before the refusal")
		}
	}
	// A fork's pull request has no secret: a pass_env that is empty skips
	// the run (--skip-without-key) before anything starts.
	skip := testkit.WriteFile(t, dir, "skip.yaml", strings.Replace(body(touch), "ready_timeout: 5s", "ready_timeout: 5s, pass_env: [APP_KEY]", 1))
	code, stdout, stderr := run(t, nil, "check", "--quiet", "--config", skip, "--skip-without-key", "--baseline", filepath.Join(dir, "none.json"))
	if code != ExitPass || !strings.Contains(stdout+stderr, "$APP_KEY (target app's serve.pass_env)") {
		t.Fatalf("--skip-without-key with an empty pass_env: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the command ran in a skipped run")
	}
	// Reviewed: it starts (and, as it exits at once, fails the run, exit 3).
	code, stdout, stderr = run(t, nil, "measure", "--quiet", "--config", cfg, "--trusted-config", same)
	if code != ExitMeasurement || !strings.Contains(stderr, "exited before it was ready (exit status 0)") {
		t.Fatalf("the trusted serve: exit %d, want 3 (started, exited)\n%s\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the trusted command did not run: %v", err)
	}
}

// TestAppExample: examples/app/latgate.yaml has the two builds' targets,
// each serving where its base_url points, and dry-runs on the simulator
// without starting them (--base-url replaces the endpoint).
func TestAppExample(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "..", "examples", "app", "latgate.yaml")
	cfg, err := config.Load(path, config.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Targets) != 2 || cfg.Targets[0].Name != "main" || cfg.Targets[1].Name != "pr" {
		t.Fatalf("targets %+v, want main and pr", cfg.Targets)
	}
	for _, tg := range cfg.Targets {
		if tg.Serve == nil {
			t.Fatalf("target %s has no serve:", tg.Name)
		}
		host := strings.TrimPrefix(strings.Split(tg.BaseURL, "/api/")[0], "http://")
		if !slices.Contains(tg.Serve.Command, host) || !strings.Contains(tg.Serve.Ready, host) {
			t.Errorf("target %s: base_url %s, but serve: %v ready %s", tg.Name, tg.BaseURL, tg.Serve.Command, tg.Serve.Ready)
		}
	}
	if cfg.Targets[0].Serve.Key() == cfg.Targets[1].Serve.Key() {
		t.Error("both targets start the same server")
	}
	code, stdout, stderr := run(t, nil, "measure", "--config", path, "--base-url", "sim:fast", "--requests", "2", "--warmup", "0", "--quiet")
	if code != ExitPass || strings.Contains(stderr, "its server") {
		t.Fatalf("dry run: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// TestServeEndsWithTheRun: a server that crashes while it is measured
// fails the run (exit 3) with its output's last lines, and writes no
// baseline; an interrupted run stops its server. Neither leaves a process.
func TestServeEndsWithTheRun(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs an app server")
	}
	app, upstream := appAndUpstream(t, "fast?tokens=4")
	dir := t.TempDir()

	t.Run("crash", func(t *testing.T) {
		t.Parallel()
		pids := filepath.Join(dir, "crash.pids")
		cfg := testkit.WriteFile(t, dir, "crash.yaml", appConfig(app, upstream, testkit.FreePort(t), "0s", pids, ", -exit-after, \"5\""))
		base := filepath.Join(dir, "crash.baseline.json")
		code, stdout, stderr := run(t, nil, "bless", "--quiet", "--config", cfg, "--baseline", base)
		if code != ExitMeasurement {
			t.Fatalf("a server that crashes mid-run: exit %d, want 3\n%s\n%s", code, stdout, stderr)
		}
		for _, w := range []string{`target "app": its server (serve: ` + app, "exited while latgate measured it (exit status 2, ", "  | appserver: panic: nil map in the new middleware"} {
			if !strings.Contains(stderr, w) {
				t.Errorf("stderr lacks %q:\n%s", w, stderr)
			}
		}
		if _, err := os.Stat(base); err == nil {
			t.Error("bless wrote a baseline from a run whose server crashed")
		}
		gone(t, pids)
	})
	t.Run("interrupt", func(t *testing.T) {
		t.Parallel()
		pids := filepath.Join(dir, "interrupt.pids")
		cfg := testkit.WriteFile(t, dir, "interrupt.yaml", appConfig(app, upstream, testkit.FreePort(t), "0s", pids, ""))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			for {
				if _, err := os.Stat(pids); err == nil {
					time.Sleep(300 * time.Millisecond) // measuring by now
					cancel()
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
		}()
		code, stdout, stderr := runIn(ctx, Env{Getenv: func(string) string { return "" }}, "measure", "--quiet", "--config", cfg, "--requests", "1000")
		if code == ExitPass {
			t.Fatalf("an interrupted run passed\n%s\n%s", stdout, stderr)
		}
		gone(t, pids)
	})
}
