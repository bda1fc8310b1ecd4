package advise

import (
	"math"
	"slices"
	"time"

	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

// Slowness is a regression. A server starved of CPU, swapping, or serving
// another model can be a hundred times slower than its baseline; at the
// default run.timeout of 60 s each request then times out, and the run
// fails as a measurement failure after warmups × 60 s, read by a reviewer
// as a flaky runner. With a baseline, check knows how long a request
// should take: it stops one that takes SlowFactor × the baseline's total
// P99 (at least SlowFloor, at most run.timeout), and such requests are
// evidence of a regression (Slowed), not of a broken endpoint.

const (
	// SlowFactor is how many times the baseline's total P99 a request may
	// take. A request past it is slower than all but one in a hundred of the
	// baseline's by a factor of twenty: no runner's noise (the gate's own
	// calibrations model slow periods of 1.5× and spikes of 4×).
	SlowFactor = 20
	// SlowFloor is the least limit: a baseline of 10 ms answers does not
	// make a 200 ms hiccup of the runner a slow request.
	SlowFloor = time.Second
)

// SlowLimit is the limit of one prompt's requests.
type SlowLimit struct {
	After time.Duration
	// P99 is the baseline's total P99 of the prompt, in milliseconds.
	P99 float64
}

// SlowLimits returns, for each target and prompt of base with samples, the
// limit of a request: SlowFactor × its total P99, at least SlowFloor.
// A limit at or above timeout (run.timeout) is left out: the timeout
// applies, as without a baseline.
func SlowLimits(base compare.Side, timeout time.Duration) map[compare.TargetID]map[string]SlowLimit {
	out := map[compare.TargetID]map[string]SlowLimit{}
	for _, t := range base.Targets {
		for _, p := range t.Prompts {
			v := results.Values(p.Samples, results.Total)
			if len(v) == 0 {
				continue
			}
			slices.Sort(v)
			p99 := stats.Quantile(v, 0.99)
			after := max(time.Duration(math.Ceil(SlowFactor*p99))*time.Millisecond, SlowFloor)
			if timeout > 0 && after >= timeout {
				continue
			}
			id := compare.TargetID{Name: t.Name, Region: t.Region}
			if out[id] == nil {
				out[id] = map[string]SlowLimit{}
			}
			out[id][p.ID] = SlowLimit{After: after, P99: p99}
		}
	}
	return out
}

// Slowed reports whether a run that failed failed of slowness: at least
// half of its failed requests, by class (byClass, warmup included when the
// run gave up in it), were stopped at their SlowLimit (results.ErrSlow).
// Such a run is a regression (exit 1), not a measurement failure.
func Slowed(byClass map[string]int) bool {
	slow, all := byClass[results.ErrSlow], 0
	for _, n := range byClass {
		all += n
	}
	return slow > 0 && 2*slow >= all
}
