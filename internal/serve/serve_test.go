//go:build unix

package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/latgate/latgate/internal/testkit"
	"github.com/latgate/latgate/pkg/config"
)

// The test binary is its own server: with LATGATE_SERVE_HELPER set it
// runs helper instead of the tests.
func TestMain(m *testing.M) {
	if mode := os.Getenv("LATGATE_SERVE_HELPER"); mode != "" {
		helper(mode)
		return
	}
	os.Exit(m.Run())
}

// helper is a server whose behaviour the mode picks: listen (on
// $HELPER_PORT, answering /healthz with $HELPER_STATUS), exit (at once,
// status 3), mute (never listens), die (listens, then exits after
// 200 ms), stubborn (listens and ignores SIGTERM). Each starts a child in
// its group that sleeps, writes both pids to $HELPER_PIDS and prints a
// few lines, one holding $HELPER_SECRET.
func helper(mode string) {
	child := spawn("sleep", "300")
	_ = os.WriteFile(os.Getenv("HELPER_PIDS"), fmt.Appendf(nil, "%d %d", os.Getpid(), child), 0o600)
	for i := range 30 {
		fmt.Printf("line %d\n", i)
	}
	fmt.Fprintf(os.Stderr, "loaded key %s\n", os.Getenv("HELPER_SECRET"))
	fmt.Fprint(os.Stderr, "last words")
	if mode == "exit" {
		os.Exit(3)
	}
	if mode == "stubborn" {
		signal.Ignore(syscall.SIGTERM)
	}
	if mode != "mute" {
		l, err := net.Listen("tcp", "127.0.0.1:"+os.Getenv("HELPER_PORT"))
		if err != nil {
			os.Exit(4)
		}
		status, _ := strconv.Atoi(os.Getenv("HELPER_STATUS"))
		go http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(max(status, 200))
		}))
	}
	if mode == "die" {
		time.Sleep(200 * time.Millisecond)
		os.Exit(2)
	}
	select {}
}

// spawn starts a process and returns its pid (the helper's child).
func spawn(name string, args ...string) int {
	p, err := os.StartProcess("/bin/"+name, append([]string{name}, args...), &os.ProcAttr{})
	if err != nil {
		return 0
	}
	return p.Pid
}

type run struct {
	port, pids string
	spec       config.Serve
	opts       Options
}

func newRun(t *testing.T, mode string) *run {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r := &run{port: testkit.FreePort(t), pids: filepath.Join(t.TempDir(), "pids")}
	r.spec = config.Serve{Command: []string{self, "-test.run=^$"}, Dir: t.TempDir(),
		Env:          map[string]string{"LATGATE_SERVE_HELPER": mode, "HELPER_PIDS": r.pids, "HELPER_SECRET": "sk-serve-secret-1234"},
		ReadyTimeout: 20 * time.Second, StopGrace: 2 * time.Second}
	r.spec.Env["HELPER_PORT"] = r.port
	r.opts = Options{Target: "app", BaseURL: "http://127.0.0.1:" + r.port + "/v1", Environ: []string{"PATH=" + os.Getenv("PATH")},
		Redact: func(s string) string { return strings.ReplaceAll(s, "sk-serve-secret-1234", "[redacted]") }}
	return r
}

// gone waits until the helper and its child no longer exist.
func (r *run) gone(t *testing.T) {
	t.Helper()
	data, err := os.ReadFile(r.pids)
	if err != nil {
		t.Fatalf("the helper wrote no pids: %v", err)
	}
	var pids [2]int
	if _, err := fmt.Sscan(string(data), &pids[0], &pids[1]); err != nil || pids[1] == 0 {
		t.Fatalf("pids %q: %v", data, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil) // the child is reparented, not ours: this only helps when it is
			if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) || zombie(pid) {
				break
			}
			if time.Now().After(deadline) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("process %d is still running after the server was stopped", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// zombie reports whether pid has exited and waits to be reaped by its
// parent (Linux's /proc; elsewhere false).
func zombie(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, after, ok := strings.Cut(string(data), ") ")
	return ok && strings.HasPrefix(after, "Z")
}

func TestStartStop(t *testing.T) {
	t.Parallel()
	for _, ready := range []string{"", "port:", "http://127.0.0.1:PORT/healthz"} {
		t.Run(ready, func(t *testing.T) {
			t.Parallel()
			r := newRun(t, "listen")
			r.spec.Ready = strings.ReplaceAll(ready, "PORT", r.port)
			if ready == "port:" {
				r.spec.Ready += r.port
			}
			p, err := Start(context.Background(), r.spec, r.opts)
			if err != nil {
				t.Fatalf("Start: %v", err)
			}
			if c, err := net.Dial("tcp", "127.0.0.1:"+r.port); err != nil {
				t.Errorf("Start returned before the server listened: %v", err)
			} else {
				c.Close()
			}
			if err := p.Exited(); err != nil {
				t.Errorf("Exited of a running server: %v", err)
			}
			if err := p.Stop(); err != nil {
				t.Errorf("Stop of a running server: %v", err)
			}
			if err := p.Stop(); err != nil {
				t.Errorf("second Stop: %v", err)
			}
			r.gone(t)
		})
	}
}

func TestFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mode, ready string
		timeout     time.Duration
		want        []string
	}{
		{"exit", "", 20 * time.Second, []string{`target "app": its server (serve: `, "exited before it was ready (exit status 3)", "its output below says why"}},
		{"mute", "", 400 * time.Millisecond, []string{"was not ready after 400ms (waiting for a connection to 127.0.0.1:", "(base_url's host and port); the last try: connect: connection refused)", "raise serve.ready_timeout"}},
		{"listen", "http://127.0.0.1:PORT/healthz", 400 * time.Millisecond, []string{"was not ready after 400ms (waiting for a 2xx answer from http://127.0.0.1:", "/healthz; the last try: HTTP 503 Service Unavailable)"}},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			r := newRun(t, tt.mode)
			r.spec.Ready, r.spec.ReadyTimeout = strings.ReplaceAll(tt.ready, "PORT", r.port), tt.timeout
			r.spec.Env["HELPER_STATUS"] = "503"
			start := time.Now()
			p, err := Start(context.Background(), r.spec, r.opts)
			if err == nil {
				p.Stop()
				t.Fatal("Start succeeded")
			}
			if took := time.Since(start); tt.mode != "exit" && took < tt.timeout {
				t.Errorf("gave up after %s, before ready_timeout %s", took, tt.timeout)
			}
			msg := err.Error()
			for _, w := range append(tt.want, "the last 20 lines of its output (of 32):", "  | line 12\n", "  | loaded key [redacted]\n  | last words") {
				if !strings.Contains(msg, w) {
					t.Errorf("error lacks %q:\n%s", w, msg)
				}
			}
			if strings.Contains(msg, "sk-serve-secret") {
				t.Errorf("the secret is in the error:\n%s", msg)
			}
			r.gone(t)
		})
	}
}

// TestDiesMidRun: a server that exits after it was ready is Exited's and
// Stop's error, with its output; its child is stopped with it.
func TestDiesMidRun(t *testing.T) {
	t.Parallel()
	r := newRun(t, "die")
	r.spec.Ready = "port:" + r.port
	p, err := Start(context.Background(), r.spec, r.opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for p.Exited() == nil && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	err = p.Stop()
	if err == nil {
		t.Fatal("Stop of a server that died: no error")
	}
	for _, w := range []string{"exited while latgate measured it (exit status 2, ", "after it was ready)", "  | last words"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q:\n%v", w, err)
		}
	}
	r.gone(t)
}

// TestStubborn: a server that ignores SIGTERM is killed after stop_grace.
func TestStubborn(t *testing.T) {
	t.Parallel()
	r := newRun(t, "stubborn")
	r.spec.StopGrace = 300 * time.Millisecond
	p, err := Start(context.Background(), r.spec, r.opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	start := time.Now()
	if err := p.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}
	if took := time.Since(start); took < r.spec.StopGrace {
		t.Errorf("stopped in %s: SIGTERM was not ignored, the test tests nothing", took)
	}
	r.gone(t)
}

// TestCancelledWhileWaiting: an interrupt while the server starts stops it.
func TestCancelledWhileWaiting(t *testing.T) {
	t.Parallel()
	r := newRun(t, "mute")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for {
			if _, err := os.Stat(r.pids); err == nil {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	_, err := Start(ctx, r.spec, r.opts)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Start: %v, want context.Canceled", err)
	}
	r.gone(t)
}

// TestPortTaken: a port that answers before the server starts is refused,
// and the command never runs: a leftover server would be measured.
func TestPortTaken(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	r := newRun(t, "listen")
	r.opts.BaseURL = "http://" + l.Addr().String() + "/v1"
	_, err = Start(context.Background(), r.spec, r.opts)
	if err == nil || !strings.Contains(err.Error(), l.Addr().String()+" already accepts connections before ") {
		t.Fatalf("error %v", err)
	}
	if _, err := os.Stat(r.pids); err == nil {
		t.Error("the command ran")
	}
}

func TestStartMissingProgram(t *testing.T) {
	t.Parallel()
	_, err := Start(context.Background(), config.Serve{Command: []string{"./no-such-app", "--port", "1"}, Dir: t.TempDir(), ReadyTimeout: time.Second, StopGrace: time.Second},
		Options{Target: "app", BaseURL: "http://127.0.0.1:1/v1"})
	if err == nil || !strings.Contains(err.Error(), `target "app": serve: starting ./no-such-app --port 1: `) {
		t.Fatalf("error %v", err)
	}
}

func TestTail(t *testing.T) {
	t.Parallel()
	tests := []struct {
		writes  []string
		want    []string
		dropped int64
	}{
		{nil, nil, 0},
		{[]string{"a\nb"}, []string{"a", "b"}, 0},
		{[]string{"a\n", "b\n", "c\n"}, []string{"a", "b", "c"}, 0},
		{[]string{"a\nb\nc\nd\n"}, []string{"b", "c", "d"}, 1},
		{[]string{"a\nb\nc\nd"}, []string{"b", "c", "d"}, 1},
		{[]string{"a\nb\nc\nd\ne"}, []string{"c", "d", "e"}, 2},
		{[]string{"abcdefgh", "ij\nk\n"}, []string{"abcde", "k"}, 0},
		{[]string{"a\r\nb\r", "\nc"}, []string{"a", "b", "c"}, 0},
		{[]string{"10%\r50%\r", "90%\rdone\n"}, []string{"done"}, 0},
		{[]string{"10%\r50%"}, []string{"50%"}, 0},
	}
	for i, tt := range tests {
		tail := NewTail(3, 5)
		for _, w := range tt.writes {
			tail.Write([]byte(w))
		}
		got, dropped := tail.Lines()
		if diff := cmp.Diff(tt.want, got); diff != "" || dropped != tt.dropped {
			t.Errorf("%d: lines (-want +got):\n%s dropped %d, want %d", i, diff, dropped, tt.dropped)
		}
	}
}
