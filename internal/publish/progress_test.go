package publish

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/measure"
	"github.com/latgate/latgate/pkg/results"
)

// fakeClock advances by step at every reading.
func fakeClock(step time.Duration) func() time.Time {
	t := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	return func() time.Time {
		t = t.Add(step)
		return t
	}
}

// feed sends total events, one a second; request i has TTFT 10·i ms and
// request failAt fails.
func feed(p *Progress, target string, total int, failAt int) {
	for i := 1; i <= total; i++ {
		ev := measure.Progress{Target: target, Prompt: "greeting", Done: i, Total: total, TTFTMS: float64(10 * i)}
		if i == failAt {
			ev.Failure = &results.Failure{Class: results.ErrServer, Message: "HTTP 500: overloaded"}
			ev.TTFTMS = 0
		}
		p.Progress(ev)
	}
	p.Finish()
}

func TestProgressPlainLinesForCI(t *testing.T) {
	var buf bytes.Buffer
	feed(newProgress(&buf, false, fakeClock(time.Second)), "primary", 40, 7)
	out := buf.String()
	if strings.Contains(out, "\r") || strings.Contains(out, "\033[") {
		t.Errorf("plain progress has terminal control characters: %q", out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	// One line at each 10% and one for the failure. The clock reads 1 s
	// later at every event, so request i ends i s after progress was made;
	// the P50 is of the TTFTs so far (10·i ms), without the failed request.
	want := []string{
		"latgate: primary: 4/40 requests, 4s elapsed, ETA 36s, TTFT P50 25.0 ms",
		"latgate: primary/greeting: request failed: server: HTTP 500: overloaded",
		"latgate: primary: 8/40 requests, 8s elapsed, ETA 32s, TTFT P50 40.0 ms (1 failed)",
		"latgate: primary: 12/40 requests, 12s elapsed, ETA 28s, TTFT P50 60.0 ms (1 failed)",
	}
	if diff := cmp.Diff(want, lines[:4]); diff != "" {
		t.Errorf("first lines (-want +got):\n%s", diff)
	}
	if len(lines) != 11 {
		t.Errorf("got %d lines, want 11 (10 steps + 1 failure):\n%s", len(lines), out)
	}
	if last := lines[len(lines)-1]; last != "latgate: primary: 40/40 requests, 40s elapsed, TTFT P50 210 ms (1 failed)" {
		t.Errorf("last line %q: want no ETA once done", last)
	}
}

func TestProgressNextTargetRestartsTheClock(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf, false, fakeClock(time.Second))
	feed(p, "a", 10, 0)
	feed(p, "b", 10, 0)
	if !strings.Contains(buf.String(), "latgate: b: 1/10 requests, 1s elapsed, ETA 9s, TTFT P50 10.0 ms\n") {
		t.Errorf("target b does not start from its own clock and median:\n%s", buf.String())
	}
}

func TestProgressBarOnTerminal(t *testing.T) {
	var buf bytes.Buffer
	feed(newProgress(&buf, true, fakeClock(time.Second)), "primary", 5, 0)
	out := buf.String()
	if !strings.Contains(out, "\r\033[K") || !strings.Contains(out, "[##############################] 5/5  5s elapsed, TTFT P50 30.0 ms") {
		t.Errorf("no redrawn, completed bar in %q", out)
	}
	if !strings.Contains(out, "] 2/5  2s elapsed, ETA 3s, TTFT P50 15.0 ms") {
		t.Errorf("the bar has no elapsed time, ETA and TTFT P50: %q", out)
	}
	if !strings.HasSuffix(out, "\n") {
		t.Errorf("the bar is not ended with a newline: %q", out)
	}
}

func TestProgressCapsFailureLines(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf, false, fakeClock(time.Millisecond))
	for i := 1; i <= 20; i++ {
		p.Progress(measure.Progress{Target: "t", Prompt: "p", Done: i, Total: 100, Failure: &results.Failure{Class: "timeout", Message: fmt.Sprintf("slow %d", i)}})
	}
	if n := strings.Count(buf.String(), "request failed"); n != maxShownFailures {
		t.Errorf("%d failure lines, want %d", n, maxShownFailures)
	}
	if !strings.Contains(buf.String(), "further failures are counted in the report") {
		t.Errorf("no note that further failures are not shown:\n%s", buf.String())
	}
}

// TestProgressSaysAFailureOnce: the same failure again (every warmup
// request of an endpoint that is down) is shown once, not once per request
// (#23: one give-up message); another message is shown.
func TestProgressSaysAFailureOnce(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf, false, fakeClock(time.Millisecond))
	refused := &results.Failure{Class: results.ErrConnect, Message: "dial tcp 127.0.0.1:1: connect: connection refused"}
	for i, prompt := range []string{"greeting", "summarize", "greeting", "summarize"} {
		p.Progress(measure.Progress{Target: "t", Prompt: prompt, Warmup: true, Done: i + 1, Total: 124, Failure: refused})
	}
	p.Progress(measure.Progress{Target: "t", Prompt: "greeting", Done: 5, Total: 124, Failure: &results.Failure{Class: results.ErrServer, Message: "HTTP 503"}})
	out := buf.String()
	if n := strings.Count(out, "connection refused"); n != 1 {
		t.Errorf("the same failure shown %d times, want once:\n%s", n, out)
	}
	if !strings.Contains(out, "request failed: server: HTTP 503") {
		t.Errorf("another failure not shown:\n%s", out)
	}
}

func TestPlainProgress(t *testing.T) {
	tests := []struct {
		name string
		tty  bool
		env  map[string]string
		want bool
	}{
		{"terminal", true, nil, false},
		{"not a terminal", false, nil, true},
		{"terminal in CI", true, map[string]string{"CI": "true"}, true},
		{"terminal in CI=1", true, map[string]string{"CI": "1"}, true},
		{"terminal in GitHub Actions", true, map[string]string{"GITHUB_ACTIONS": "true"}, true},
		{"terminal, CI=false", true, map[string]string{"CI": "false"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(Options{Stdout: io.Discard, Stderr: io.Discard, StderrIsTerminal: tt.tty, Getenv: func(k string) string { return tt.env[k] }})
			if got := !s.bar; got != tt.want {
				t.Errorf("plain progress = %t, want %t", got, tt.want)
			}
		})
	}
}
