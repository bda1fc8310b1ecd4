package publish

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/latgate/latgate/internal/numfmt"
	"github.com/latgate/latgate/pkg/measure"
	"github.com/latgate/latgate/pkg/stats"
)

// Progress returns the progress observer of a measurement, on stderr.
// Call Finish when the measurement ends.
func (s *Streams) Progress(now func() time.Time) *Progress {
	return newProgress(s.Stderr, s.bar, now)
}

// Progress renders measure.Progress on stderr: a redrawn bar on a terminal,
// plain lines at every 10% (and for the first failures) in CI logs. Both say
// how far the target is, the time elapsed, an estimate of the time left and
// the running TTFT P50 of its measured requests.
type Progress struct {
	w   io.Writer
	tty bool
	now func() time.Time

	target   string
	start    time.Time // when the current target started
	prev     time.Time // of the last event, or when progress was made
	last     time.Time // of the last redraw
	lastTen  int
	failures int
	shown    int
	said     map[string]bool // class and message of each failure shown
	drawn    bool
	ttft     []float64 // measured (non-warmup) TTFTs of the current target
}

func newProgress(w io.Writer, tty bool, now func() time.Time) *Progress {
	return &Progress{w: w, tty: tty, now: now, prev: now()}
}

const maxShownFailures = 5

func (p *Progress) Progress(ev measure.Progress) {
	now := p.now()
	if ev.Target != p.target {
		p.Finish()
		p.target, p.lastTen, p.failures, p.ttft = ev.Target, 0, 0, p.ttft[:0]
		// Targets are measured in turn: this one started when the
		// previous one ended (or when the run started).
		p.start = p.prev
	}
	p.prev = now
	if ev.Failure == nil && !ev.Warmup && ev.TTFTMS > 0 {
		p.ttft = append(p.ttft, ev.TTFTMS)
	}
	if ev.Failure != nil {
		p.failures++
		// The same failure again (every warmup request refused, a run of
		// one timeout) is counted, not shown again: the command's last
		// line quotes it once more with the count.
		key := ev.Failure.Class + "\x00" + ev.Failure.Message
		if p.shown < maxShownFailures && !p.said[key] {
			if p.said == nil {
				p.said = map[string]bool{}
			}
			p.said[key] = true
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
		if now.Sub(p.last) >= 100*time.Millisecond || ev.Done == ev.Total {
			p.last = now
			const width = 30
			fill := width * ev.Done / max(ev.Total, 1)
			fmt.Fprintf(p.w, "\r\033[K%s [%s%s] %d/%d  %s%s", ev.Target, strings.Repeat("#", fill), strings.Repeat(".", width-fill),
				ev.Done, ev.Total, p.status(ev, now), p.failed())
			p.drawn = true
		}
		return
	}
	if ten := 10 * ev.Done / max(ev.Total, 1); ten > p.lastTen {
		p.lastTen = ten
		fmt.Fprintf(p.w, "latgate: %s: %d/%d requests, %s%s\n", ev.Target, ev.Done, ev.Total, p.status(ev, now), p.failed())
	}
}

// status is "12s elapsed, ETA 8s, TTFT P50 123 ms": the estimate assumes the
// remaining requests take as long as the ones so far did on average.
func (p *Progress) status(ev measure.Progress, now time.Time) string {
	elapsed := now.Sub(p.start)
	parts := []string{clock(elapsed) + " elapsed"}
	if ev.Done < ev.Total && ev.Done > 0 {
		left := time.Duration(float64(elapsed) / float64(ev.Done) * float64(ev.Total-ev.Done))
		parts = append(parts, "ETA "+clock(left))
	}
	if len(p.ttft) > 0 {
		sorted := slices.Clone(p.ttft)
		slices.Sort(sorted)
		parts = append(parts, "TTFT P50 "+numfmt.Millis(stats.Quantile(sorted, 0.5)))
	}
	return strings.Join(parts, ", ")
}

// clock formats a duration for people: 850ms, 12s, 3m05s, 1h02m.
func clock(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

func (p *Progress) failed() string {
	if p.failures == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d failed)", p.failures)
}

func (p *Progress) clear() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// Finish ends a drawn bar with a newline.
func (p *Progress) Finish() {
	if p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}
