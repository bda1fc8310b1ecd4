package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/latgate/latgate/pkg/measure"
	"github.com/latgate/latgate/pkg/results"
)

func feed(p *progress, total int, failAt int) {
	for i := 1; i <= total; i++ {
		ev := measure.Progress{Target: "primary", Prompt: "greeting", Done: i, Total: total}
		if i == failAt {
			ev.Failure = &results.Failure{Class: results.ErrServer, Message: "HTTP 500: overloaded"}
		}
		p.Progress(ev)
	}
	p.finish()
}

func TestProgressPlainLinesForCI(t *testing.T) {
	var buf bytes.Buffer
	feed(newProgress(&buf, false), 40, 7)
	out := buf.String()
	if strings.Contains(out, "\r") || strings.Contains(out, "\033[") {
		t.Errorf("plain progress has terminal control characters: %q", out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	// one line at each 10% and one for the failure
	if len(lines) != 11 {
		t.Errorf("got %d lines, want 11 (10 steps + 1 failure):\n%s", len(lines), out)
	}
	for _, want := range []string{
		"latgate: primary/greeting: request failed: server: HTTP 500: overloaded",
		"latgate: primary: 40/40 requests (1 failed)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}

func TestProgressBarOnTerminal(t *testing.T) {
	var buf bytes.Buffer
	feed(newProgress(&buf, true), 5, 0)
	out := buf.String()
	if !strings.Contains(out, "\r\033[K") || !strings.Contains(out, "[##############################] 5/5") {
		t.Errorf("no redrawn, completed bar in %q", out)
	}
	if !strings.HasSuffix(out, "\n") {
		t.Errorf("the bar is not ended with a newline: %q", out)
	}
}

func TestProgressCapsFailureLines(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf, false)
	for i := 1; i <= 20; i++ {
		p.Progress(measure.Progress{Target: "t", Prompt: "p", Done: i, Total: 100, Failure: &results.Failure{Class: "timeout", Message: "slow"}})
	}
	if n := strings.Count(buf.String(), "request failed"); n != maxShownFailures {
		t.Errorf("%d failure lines, want %d", n, maxShownFailures)
	}
	if !strings.Contains(buf.String(), "further failures are counted in the report") {
		t.Errorf("no note that further failures are not shown:\n%s", buf.String())
	}
}
