package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/latgate/latgate/pkg/measure"
)

// progress renders measure.Progress on stderr: a redrawn bar on a terminal,
// plain lines at every 10% (and for the first failures) in CI logs.
type progress struct {
	w        io.Writer
	tty      bool
	last     time.Time
	lastTen  int
	target   string
	failures int
	shown    int
	drawn    bool
}

func newProgress(w io.Writer, tty bool) *progress { return &progress{w: w, tty: tty} }

const maxShownFailures = 5

func (p *progress) Progress(ev measure.Progress) {
	if ev.Target != p.target {
		p.finish()
		p.target, p.lastTen, p.failures = ev.Target, 0, 0
	}
	if ev.Failure != nil {
		p.failures++
		if p.shown < maxShownFailures {
			p.shown++
			p.clear()
			kind := "request"
			if ev.Warmup {
				kind = "warmup request"
			}
			fmt.Fprintf(p.w, "latgate: %s/%s: %s failed: %s: %s\n", ev.Target, ev.Prompt, kind, ev.Failure.Class, ev.Failure.Message)
			if p.shown == maxShownFailures {
				fmt.Fprintln(p.w, "latgate: (further failures are counted in the report, not shown here)")
			}
		}
	}
	if p.tty {
		if now := time.Now(); now.Sub(p.last) >= 100*time.Millisecond || ev.Done == ev.Total {
			p.last = now
			const width = 30
			fill := width * ev.Done / max(ev.Total, 1)
			fmt.Fprintf(p.w, "\r\033[K%s [%s%s] %d/%d%s", ev.Target, strings.Repeat("#", fill), strings.Repeat(".", width-fill), ev.Done, ev.Total, p.failed())
			p.drawn = true
		}
		return
	}
	if ten := 10 * ev.Done / max(ev.Total, 1); ten > p.lastTen {
		p.lastTen = ten
		fmt.Fprintf(p.w, "latgate: %s: %d/%d requests%s\n", ev.Target, ev.Done, ev.Total, p.failed())
	}
}

func (p *progress) failed() string {
	if p.failures == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d failed)", p.failures)
}

func (p *progress) clear() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// finish ends a drawn bar with a newline.
func (p *progress) finish() {
	if p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}
