package measure

import (
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/latgate/latgate/pkg/results"
)

// A run that cannot succeed should not burn its whole schedule: a hung
// endpoint at the default 60 s timeout would otherwise take about an hour to
// fail, past a CI job's limit, and leave no report. A target is given up (its
// requests in flight cancelled, the run marked partial, a *GiveUpError
// returned, exit 3) as soon as one of these holds:
//
//   - every warmup request failed (with at least one warmup request), none
//     of them stopped at a Limit (results.ErrSlow: a cold start may be);
//   - ConsecutiveFailures requests in a row failed with the same class
//     (warmup included; a success or another class starts the count anew);
//     every HTTP 429 answer counts, retried or not, so a 429 storm stops
//     after as many answers instead of waiting out every Retry-After;
//   - the error budget can no longer be met: more measured requests failed
//     than max_error_rate allows of the planned number.
//
// A rule met by the last planned request stops nothing: the run is over,
// and CheckBudget reports it. An auth failure (401/403) stops at the first
// one (AuthError).

// ConsecutiveFailures is how many failures of one class in a row give a
// target up.
const ConsecutiveFailures = 5

// GiveUpError reports a target stopped early because its run could not
// succeed. Failures holds the first distinct failure of each class seen, for
// the endpoint's own words in the report.
type GiveUpError struct {
	Target string
	// Reason says which rule stopped it, e.g. "5 requests in a row failed
	// with timeout".
	Reason string
	// Done and Planned count the requests made (warmup included) and planned.
	Done, Planned int
	ByClass       map[string]int
	Failures      []results.Failure
}

func (e *GiveUpError) Error() string {
	msg := fmt.Sprintf("target %q: gave up after %d of %d requests: %s (%s)", e.Target, e.Done, e.Planned, e.Reason, results.Classes(e.ByClass))
	if len(e.Failures) > 0 {
		var first []string
		for _, f := range e.Failures {
			first = append(first, fmt.Sprintf("%s: %s", f.Class, f.Message))
		}
		msg += results.SaidSep + strings.Join(first, "; ")
	}
	return msg
}

// giveUp tracks one target's failures and decides when to stop. Safe for
// concurrent use by the target's workers.
type giveUp struct {
	mu                 sync.Mutex
	warmPlanned        int
	warmDone, warmFail int
	warmSlow           int // warmup requests stopped at a Limit
	allowed            int // measured failures the budget allows
	priorReq, priorErr int // of earlier rounds (spent)
	measFail           int
	done, planned      int
	streakClass        string
	streak             int
	byClass            map[string]int
	first              []results.Failure
	reason             string
}

func newGiveUp(warmup, measured int, maxErrorRate float64) *giveUp {
	allowed := math.MaxInt
	if maxErrorRate < 1 {
		allowed = int(math.Floor(maxErrorRate*float64(measured) + 1e-9))
	}
	return &giveUp{warmPlanned: warmup, allowed: allowed, planned: warmup + measured, byClass: map[string]int{}}
}

// spent accounts for requests and failures measured before this run (an
// earlier round): the budget is the rate of all of them together.
func (g *giveUp) spent(requests, errors int, maxErrorRate float64) {
	if maxErrorRate >= 1 {
		return
	}
	measured := g.planned - g.warmPlanned
	g.allowed = int(math.Floor(maxErrorRate*float64(requests+measured)+1e-9)) - errors
	g.priorReq, g.priorErr = requests, errors
}

// finished records a finished request (fl nil for a success) and reports
// whether the target is given up, now or before.
func (g *giveUp) finished(fl *results.Failure, warmup bool) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.done++
	if warmup {
		g.warmDone++
	}
	if fl == nil {
		g.streak = 0
		return g.reason != ""
	}
	g.byClass[fl.Class]++
	g.remember(*fl)
	switch {
	case warmup && fl.Class == results.ErrSlow:
		// Slower than the baseline allows is not a dead endpoint: a cold
		// start may pass the limit. A streak of them gives up below.
		g.warmSlow++
	case warmup:
		g.warmFail++
	default:
		g.measFail++
	}
	// a final 429 was already counted by rateLimited, attempt by attempt
	if fl.Class != results.ErrRateLimit {
		g.failedInARow(fl.Class)
	}
	switch {
	case g.reason != "" || g.done >= g.planned: // nothing left to spare: the budget check reports it
	case warmup && g.warmDone == g.warmPlanned && g.warmFail == g.warmPlanned:
		g.reason = fmt.Sprintf("every warmup request failed (%d of %d)", g.warmFail, g.warmPlanned)
	case g.measFail > g.allowed:
		g.reason = fmt.Sprintf("the error budget can no longer be met: %d measured requests failed, max_error_rate allows %d of the %d planned",
			g.measFail, g.allowed, g.planned-g.warmPlanned)
		if g.priorReq > 0 {
			g.reason = fmt.Sprintf("the error budget can no longer be met: %d measured requests failed in this round, max_error_rate allows %d more (%d of %d failed in earlier rounds, %d planned in this one)",
				g.measFail, g.allowed, g.priorErr, g.priorReq, g.planned-g.warmPlanned)
		}
	}
	return g.reason != ""
}

// warmupFailed reports whether every warmup request so far failed (with at
// least one done).
func (g *giveUp) warmupFailed() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.warmDone > 0 && g.warmFail+g.warmSlow == g.warmDone
}

// rateLimited records one HTTP 429 answer (before its retry, or the final
// one) and reports whether the target is given up.
func (g *giveUp) rateLimited(fl results.Failure) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.remember(fl)
	g.failedInARow(results.ErrRateLimit)
	return g.reason != ""
}

func (g *giveUp) failedInARow(class string) {
	if class != g.streakClass {
		g.streakClass, g.streak = class, 0
	}
	g.streak++
	if g.streak >= ConsecutiveFailures && g.reason == "" && g.done < g.planned {
		what := fmt.Sprintf("%d requests in a row failed with %s", g.streak, class)
		if class == results.ErrRateLimit {
			what = fmt.Sprintf("%d answers in a row were HTTP 429 (rate limited)", g.streak)
		}
		g.reason = what
	}
}

// remember keeps the first distinct messages of each class, as many as the
// reports quote (results.MaxSaidPerClass).
func (g *giveUp) remember(fl results.Failure) {
	n := 0
	for _, f := range g.first {
		if f.Class == fl.Class {
			if f.Message == fl.Message {
				return
			}
			n++
		}
	}
	if n < results.MaxSaidPerClass {
		g.first = append(g.first, fl)
	}
}

// err returns the *GiveUpError when the target was given up, else nil.
func (g *giveUp) err(target string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.reason == "" {
		return nil
	}
	return &GiveUpError{Target: target, Reason: g.reason, Done: g.done, Planned: g.planned, ByClass: g.byClass, Failures: g.first}
}
