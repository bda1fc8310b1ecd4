package measure

import (
	"testing"
	"time"
)

// TestProbe: the probe wakes while it runs, its quantiles are ordered and
// within its maximum, and a probe stopped before its first wake-up records
// nothing (nil, not zeros that would read as a quiet runner). No timing
// figure is asserted: a loaded machine makes any value honest.
func TestProbe(t *testing.T) {
	p := startProbe()
	time.Sleep(20 * probeEvery)
	l := p.stop()
	if l == nil || l.Probes == 0 {
		t.Fatalf("a probe running %v recorded %+v", 20*probeEvery, l)
	}
	if !(0 <= l.P50MS && l.P50MS <= l.P95MS && l.P95MS <= l.P99MS && l.P99MS <= l.MaxMS) {
		t.Errorf("quantiles out of order: %+v", l)
	}
	if l.Probes > 21 {
		t.Errorf("%d probes in %v: it woke more often than every %v", l.Probes, 20*probeEvery, probeEvery)
	}
	if l := startProbe().stop(); l != nil {
		t.Errorf("a probe stopped at once recorded %+v, want nil", l)
	}
}

// TestProbeQuantiles: the histogram's quantiles are the bucket edges of
// the recorded wake-ups, the maximum exact, beyond the last bucket too.
func TestProbeQuantiles(t *testing.T) {
	p := &probe{quit: make(chan struct{}), done: make(chan struct{})}
	close(p.done) // no loop: the test records by hand
	for i := range 100 {
		late := time.Duration(i) * 100 * time.Microsecond // 0 … 9.9 ms
		p.n++
		p.max = max(p.max, late)
		p.hist[min(int(late/lateBucket), lateBuckets)]++
	}
	p.n++
	p.max = time.Minute
	p.hist[lateBuckets]++
	l := p.stop()
	if l.P50MS != 5.01 || l.P95MS != 9.51 || l.MaxMS != 60000 || l.P99MS != 9.91 {
		t.Errorf("quantiles %+v, want p50 5.01, p95 9.51, p99 9.91 (bucket edges), max 60000", l)
	}
}

// BenchmarkProbe is the cost of one probe wake-up's bookkeeping (no
// allocation), and how late a probe wakes on this machine, in a run of b.N
// wake-ups (reported as late-p99-ms).
func BenchmarkProbe(b *testing.B) {
	p := startProbe()
	time.Sleep(time.Duration(b.N) * probeEvery)
	l := p.stop()
	if l != nil {
		b.ReportMetric(l.P99MS, "late-p99-ms")
		b.ReportMetric(l.P50MS, "late-p50-ms")
	}
}
