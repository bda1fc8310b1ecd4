package measure

import (
	"math"
	"time"

	"github.com/latgate/latgate/pkg/results"
)

// probeEvery is how often the lateness probe wakes: often enough to see a
// runner that holds latgate off the CPU for a few milliseconds, seldom
// enough to cost nothing (200 wake-ups a second).
const probeEvery = 5 * time.Millisecond

// Lateness histogram: 10 µs buckets up to 50 ms, the rest in the last
// one (and the maximum kept exactly). Fixed size: memory is bounded however
// long the run, and a probe allocates nothing.
const (
	lateBucket  = 10 * time.Microsecond
	lateBuckets = 5000
)

// probe measures latgate's own scheduling delay while requests are in
// flight: a goroutine sets a timer every probeEvery and records how late
// after its deadline it ran. A stream's socket reads wait for the same
// scheduler (see results.Lateness).
type probe struct {
	hist [lateBuckets + 1]uint32
	n    int
	max  time.Duration
	quit chan struct{}
	done chan struct{}
}

// startProbe starts a probe; stop ends it and returns what it measured.
func startProbe() *probe {
	p := &probe{quit: make(chan struct{}), done: make(chan struct{})}
	go p.loop()
	return p
}

func (p *probe) loop() {
	defer close(p.done)
	next := time.Now().Add(probeEvery)
	t := time.NewTimer(probeEvery)
	defer t.Stop()
	for {
		select {
		case <-p.quit:
			return
		case <-t.C:
		}
		now := time.Now() // monotonic: the reading after the wake-up, as a socket read's stamp is
		late := max(now.Sub(next), 0)
		p.n++
		p.max = max(p.max, late)
		p.hist[min(int(late/lateBucket), lateBuckets)]++
		next = next.Add(probeEvery)
		if wait := next.Sub(now); wait > 0 {
			t.Reset(wait)
		} else { // woke later than the next deadline: start afresh, not a burst of catch-ups
			next = now.Add(probeEvery)
			t.Reset(probeEvery)
		}
	}
}

// stop ends the probe and returns its lateness, nil when it never woke (a
// phase shorter than probeEvery).
func (p *probe) stop() *results.Lateness {
	close(p.quit)
	<-p.done
	if p.n == 0 {
		return nil
	}
	q := func(f float64) float64 {
		rank := uint32(f*float64(p.n-1)) + 1 // the rank-th smallest, 1-based
		var seen uint32
		for i, c := range p.hist {
			if seen += c; seen >= rank {
				if i == lateBuckets {
					return ms(p.max)
				}
				return min(ms(time.Duration(i+1)*lateBucket), ms(p.max)) // the bucket's upper edge
			}
		}
		return ms(p.max)
	}
	r3 := func(v float64) float64 { return math.Round(v*1000) / 1000 }
	return &results.Lateness{Probes: p.n, P50MS: r3(q(0.50)), P95MS: r3(q(0.95)), P99MS: r3(q(0.99)), MaxMS: r3(ms(p.max))}
}
