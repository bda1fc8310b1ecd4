// Package serve runs the servers of targets' serve: — a team's own app,
// built from the commit under test — for the length of a run: it starts
// the command in a process group of its own, waits until the server is
// ready, keeps the last lines of its output (bounded), and stops the whole
// group (SIGTERM, then SIGKILL after a grace) however the run ends. A
// server that exits before it is ready, is not ready in time, or exits
// while it is measured is an error that carries its output's tail.
package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/latgate/latgate/internal/sanitize"
	"github.com/latgate/latgate/pkg/config"
)

// Options are what Start needs besides the serve: itself.
type Options struct {
	// Target names the target in errors.
	Target string
	// BaseURL is the target's base_url: ready's default is its host:port.
	BaseURL string
	// Environ is the environment the process inherits (serve.env is added).
	Environ []string
	// Redact removes secrets from the output's tail (nil: none known).
	Redact func(string) string
}

// Process is a running server.
type Process struct {
	opts    Options
	spec    config.Serve
	cmd     *exec.Cmd
	tail    *Tail
	done    chan struct{} // closed when the process has exited
	waitErr error         // set before done is closed
	exitAt  time.Time     // set before done is closed
	readyAt time.Time
	stop    sync.Once
	stopErr error
}

// TailLines is how many lines of a server's output an error carries.
const TailLines = 20

// Start starts the server and waits until it is ready (spec.Ready), at
// most spec.ReadyTimeout. On any error the process group has been stopped.
func Start(ctx context.Context, spec config.Serve, o Options) (*Process, error) {
	if addr := readyAddr(spec.Ready, o.BaseURL); connect(addr)(ctx) == "" {
		return nil, fmt.Errorf("target %q: serve: %s already accepts connections before %s starts: a leftover server (or another target's) would be measured in its place; stop it, or give this server a port of its own", o.Target, addr, spec.Command[0])
	}
	cmd := exec.Command(spec.Command[0], spec.Command[1:]...)
	cmd.Dir = spec.Dir
	cmd.Env = append(append([]string(nil), o.Environ...), envList(spec.Env)...)
	p := &Process{opts: o, spec: spec, cmd: cmd, tail: NewTail(TailLines, 512), done: make(chan struct{})}
	// The output goes through a pipe of our own, not exec's copying: Wait
	// then returns when the process exits, not when the last of the
	// workers it started closes its copy of stdout.
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("target %q: serve: %w", o.Target, err)
	}
	cmd.Stdout, cmd.Stderr = w, w
	ownGroup(cmd)
	err = cmd.Start()
	w.Close()
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("target %q: serve: starting %s: %w; check serve.command and serve.dir in the config", o.Target, p.shown(), err)
	}
	go func() {
		defer r.Close()
		_, _ = io.Copy(p.tail, r) // until the whole group has exited
	}()
	go func() {
		p.waitErr = cmd.Wait()
		p.exitAt = time.Now()
		close(p.done)
	}()
	if err := p.awaitReady(ctx); err != nil {
		p.Stop()
		return nil, err
	}
	p.readyAt = time.Now()
	return p, nil
}

// readyAddr is the host:port the ready condition probes: 127.0.0.1:N for
// port:N, else the ready URL's or base_url's (config.Origin's, the
// scheme's port made explicit).
func readyAddr(ready, baseURL string) string {
	if port, ok := strings.CutPrefix(ready, "port:"); ok {
		return net.JoinHostPort("127.0.0.1", port)
	}
	if ready == "" {
		ready = baseURL
	}
	_, hostPort, _ := strings.Cut(config.Origin(ready), "://")
	return hostPort
}

// Pid is the process's id (its process group's, where groups exist).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// shown is the command as errors show it: the program and at most a few
// arguments, each quoted when it holds spaces.
func (p *Process) shown() string {
	parts := p.spec.Command
	more := ""
	if len(parts) > 6 {
		parts, more = parts[:6], fmt.Sprintf(" … (%d more)", len(p.spec.Command)-6)
	}
	var b strings.Builder
	for i, a := range parts {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a == "" || strings.ContainsAny(a, " \t\"'") {
			a = fmt.Sprintf("%q", a)
		}
		b.WriteString(a)
	}
	return b.String() + more
}

// awaitReady polls the ready condition until it holds, the process
// exits, the timeout passes or ctx ends.
func (p *Process) awaitReady(ctx context.Context) error {
	probe, what := p.readiness()
	deadline := time.NewTimer(p.spec.ReadyTimeout)
	defer deadline.Stop()
	wait := 20 * time.Millisecond
	last := ""
	for {
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		last = probe(pctx)
		cancel()
		if last == "" {
			select {
			case <-p.done: // ready, but not ours: something else answers there
				return p.failure(fmt.Sprintf("exited (%s) while %s answered", exitOf(p.waitErr), what), "something else serves that port: stop it, or give this server a port of its own")
			default:
				return nil
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-p.done:
			t.Stop()
			fix := "its output below says why"
			if p.waitErr == nil {
				fix = "the command must stay in the foreground while latgate measures (no daemon mode, no trailing &)"
			}
			return p.failure(fmt.Sprintf("exited before it was ready (%s)", exitOf(p.waitErr)), fix)
		case <-deadline.C:
			t.Stop()
			return p.failure(fmt.Sprintf("was not ready after %s (waiting for %s; the last try: %s)", p.spec.ReadyTimeout, what, last),
				"check that it listens where ready: (or base_url) says, or raise serve.ready_timeout")
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("target %q: serve: waiting for %s to be ready: %w", p.opts.Target, p.shown(), ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, 250*time.Millisecond)
	}
}

// readiness returns the probe of spec.Ready, which says "" when the
// server is ready and else what it found, and what it waits for.
func (p *Process) readiness() (func(context.Context) string, string) {
	ready, addr := p.spec.Ready, readyAddr(p.spec.Ready, p.opts.BaseURL)
	if strings.HasPrefix(ready, "port:") {
		return connect(addr), "a connection to " + addr
	}
	if ready != "" {
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		return func(ctx context.Context) string {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, ready, nil)
			if err != nil {
				return err.Error()
			}
			resp, err := client.Do(req)
			if err != nil {
				return probeError(err)
			}
			resp.Body.Close()
			if resp.StatusCode >= 200 && resp.StatusCode < 300 {
				return ""
			}
			if loc := resp.Header.Get("Location"); loc != "" {
				return fmt.Sprintf("HTTP %d to %s (not followed)", resp.StatusCode, sanitize.Line(loc, 120))
			}
			return "HTTP " + sanitize.Line(resp.Status, 80) // the server's own words
		}, "a 2xx answer from " + ready
	}
	return connect(addr), "a connection to " + addr + " (base_url's host and port)"
}

// connect is a probe that connects to addr: "" when it accepts, else why
// not.
func connect(addr string) func(context.Context) string {
	return func(ctx context.Context) string {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return probeError(err)
		}
		c.Close()
		return ""
	}
}

// probeError is a failed probe's cause, without the Go call's wording.
func probeError(err error) string {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return sanitize.Line(op.Err.Error(), 160)
	}
	return sanitize.Line(err.Error(), 160)
}

// Exited returns an error when the process exited on its own since it was
// ready (it died while it was measured); nil while it runs.
func (p *Process) Exited() error {
	select {
	case <-p.done:
		return p.failure(fmt.Sprintf("exited while latgate measured it (%s, %s after it was ready)", exitOf(p.waitErr), p.exitAt.Sub(p.readyAt).Round(time.Millisecond)),
			"a run whose server died measures nothing trustworthy; its output below says why")
	default:
		return nil
	}
}

// Stop stops the process group: SIGTERM, SIGKILL after spec.StopGrace
// when the process has not exited by then, and SIGKILL to what is left of
// the group either way. It returns Exited's error when the process had
// exited on its own before Stop. Stop is idempotent.
func (p *Process) Stop() error {
	p.stop.Do(func() {
		// A process that crashed as the run ended (its requests failing
		// is what ended it) may not be reaped yet: a moment's grace, so
		// its exit is not taken for one Stop caused.
		settle := time.NewTimer(50 * time.Millisecond)
		select {
		case <-p.done:
		case <-settle.C:
		}
		settle.Stop()
		if !p.readyAt.IsZero() {
			p.stopErr = p.Exited()
		}
		select {
		case <-p.done:
		default:
			terminate(p.cmd)
			t := time.NewTimer(p.spec.StopGrace)
			select {
			case <-p.done:
			case <-t.C:
			}
			t.Stop()
		}
		kill(p.cmd) // the rest of the group, and the process when it ignored SIGTERM
		<-p.done
	})
	return p.stopErr
}

// failure is an error about the server: what happened, the fix, and the
// last lines of its output, redacted.
func (p *Process) failure(what, fix string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "target %q: its server (serve: %s) %s; %s", p.opts.Target, p.shown(), what, fix)
	time.Sleep(20 * time.Millisecond) // what it wrote as it exited is still in the pipe: an error path can wait
	lines, dropped := p.tail.Lines()
	if len(lines) == 0 {
		b.WriteString("; it wrote no output")
		return errors.New(b.String())
	}
	fmt.Fprintf(&b, "; the last %d lines of its output", len(lines))
	if dropped > 0 {
		fmt.Fprintf(&b, " (of %d)", int64(len(lines))+dropped)
	}
	b.WriteString(":")
	for _, l := range lines {
		if p.opts.Redact != nil {
			l = p.opts.Redact(l)
		}
		b.WriteString("\n  | ")
		b.WriteString(sanitize.Line(strings.TrimRight(l, "\r"), 300))
	}
	return errors.New(b.String())
}

// exitOf says how a process ended.
func exitOf(err error) string {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return "exit status 0"
	case errors.As(err, &ee):
		return ee.ProcessState.String()
	default:
		return err.Error()
	}
}

func envList(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	return out
}
