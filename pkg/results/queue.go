package results

import (
	"fmt"
	"slices"

	"github.com/latgate/latgate/internal/numfmt"
	"github.com/latgate/latgate/pkg/stats"
)

// The queueing rule. A server that serves fewer requests at once than
// run.concurrency sends makes each measured request wait for the others,
// and every measured request waited alike: the baseline and the check agree
// with each other, and both describe the queue, not the model (on Ollama
// serving one request at a time, concurrency 2 gave a TTFT P50 of 121 ms
// where the model's own was 3.8 ms). The solo probe (Prompt.Solo: the
// last warmup request of each prompt, sent alone) is the latency with
// nothing else in flight; a target queues when its measured requests are
// slower than that even at their fastest.

const (
	// QueueRatio is how much slower than the solo request the fastest tenth
	// of a prompt's measured TTFTs must be for the prompt to count as
	// queued. A server that serves requests in parallel puts the solo TTFT
	// inside the measured distribution (it is one more draw from it), so
	// only a solo draw below half the measured P10 warns. By the seeded
	// calibration (TestQueueingCalibration: 5,000 runs per case, 60
	// samples per prompt): a parallel server is warned of in 0.7% of runs
	// with one prompt of lognormal σ 0.5 (0.1% with two; none in σ 0.25),
	// and a server that serves one request at a time at concurrency 2 is
	// caught in ≥ 99.8% of runs when its answers take ≥ 10× its TTFT
	// (Ollama's: 30×), 91–100% at 4×, 64–91% at 2×.
	QueueRatio = 2.0
	// QueueMinMS is the smallest growth of the TTFT P50 worth a warning:
	// latgate's timing resolution, 1 ms.
	QueueMinMS = 1.0
	// queueMinSamples is the fewest measured samples a prompt needs for its
	// P10 to be compared.
	queueMinSamples = 10
)

// Queue is a target whose TTFT grows with the requests in flight.
type Queue struct {
	Target string // the target's Label
	// InFlight is run.concurrency, the requests in flight while measuring.
	InFlight int
	// Solo is the median over the target's prompts of the TTFT with one
	// request in flight, Loaded the median of their measured TTFT P50s, and
	// Fastest the median of their measured TTFT P10s, in milliseconds.
	Solo, Loaded, Fastest float64
	// Prompts counts the prompts compared.
	Prompts int
}

// String is the warning, with both figures and the fix:
//
//	target "ollama": the server queues: TTFT 3.80 ms at 1 in flight, 121 ms at 2 (P50): every measured request waited for another; set run.concurrency: 1, or measure the queue on purpose
func (q Queue) String() string {
	return fmt.Sprintf("target %q: the server queues: TTFT %s at 1 in flight, %s at %d (P50): "+
		"every measured request waited for another; set run.concurrency: 1, or measure the queue on purpose",
		q.Target, numfmt.Millis(q.Solo), numfmt.Millis(q.Loaded), q.InFlight)
}

// Queueing returns the targets of a run measured at run.Concurrency > 1
// whose measured TTFT is well above their solo probe: the median over
// prompts of P10(measured TTFT) / solo TTFT is at least QueueRatio, and the
// TTFT P50 grew by at least QueueMinMS. Prompts without a solo probe or
// with fewer than 10 samples are left out; a target with none is not
// judged. It reads only the values given, so a saved results file is
// judged as a fresh run is.
func Queueing(run Run, targets []Target) []Queue {
	if run.Concurrency <= 1 {
		return nil
	}
	var out []Queue
	for _, t := range targets {
		var ratios, solos, loaded, fastest []float64
		for _, p := range t.Prompts {
			if p.Solo == nil || p.Solo.TTFT <= 0 || len(p.Samples) < queueMinSamples {
				continue
			}
			v := Values(p.Samples, TTFT)
			slices.Sort(v)
			p10, p50 := stats.Quantile(v, 0.10), stats.Quantile(v, 0.50)
			ratios = append(ratios, p10/p.Solo.TTFT)
			solos, loaded, fastest = append(solos, p.Solo.TTFT), append(loaded, p50), append(fastest, p10)
		}
		if len(ratios) == 0 {
			continue
		}
		q := Queue{Target: t.Label(), InFlight: run.Concurrency, Solo: stats.Median(solos), Loaded: stats.Median(loaded), Fastest: stats.Median(fastest), Prompts: len(ratios)}
		if stats.Median(ratios) >= QueueRatio && q.Loaded-q.Solo >= QueueMinMS {
			out = append(out, q)
		}
	}
	return out
}
