package measure

import (
	"fmt"
	"time"

	"github.com/latgate/latgate/pkg/results"
)

// Limit stops a request sooner than run.timeout: after After, a request
// still unfinished (before its headers, its first token or its last) fails
// with class results.ErrSlow instead of results.ErrTimeout, and Why says
// what the limit is, e.g. "20× the baseline's total P99 (312 ms)". check
// sets one per prompt from its baseline, so that a starved server fails in
// seconds, not in warmups × run.timeout, and the failures say they are
// slowness, not a broken endpoint. A Limit at or above run.timeout is none.
type Limit struct {
	After time.Duration
	Why   string
}

// limit returns the time limit of prompt i's requests on c's endpoint and
// the Limit that set it (nil: run.timeout).
func (c *client) limit(opts Options, i int) (time.Duration, *Limit) {
	if i < 0 || i >= len(opts.Prompts) {
		return opts.Run.Timeout, nil
	}
	l, ok := c.ep.Limits[opts.Prompts[i].ID]
	if !ok || l.After <= 0 || opts.Run.Timeout > 0 && l.After >= opts.Run.Timeout {
		return opts.Run.Timeout, nil
	}
	return l.After, &l
}

// budget names the limit in a message: the Limit's reason, or run.timeout.
func (l *Limit) budget() string {
	if l == nil {
		return "run.timeout"
	}
	return l.Why
}

// mark reclassifies a request that timed out at the Limit as ErrSlow.
func (l *Limit) mark(o *outcome) {
	if l == nil || o.failure == nil || o.failure.Class != results.ErrTimeout {
		return
	}
	o.failure.Class = results.ErrSlow
	o.failure.Message = fmt.Sprintf("%s: still unfinished at %s, %s", o.failure.Message, l.After, l.Why)
}
