package compare

import (
	"cmp"
	"math"
	"slices"

	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

// A cold start (#29): the first requests of a run slower than the rest (a
// cold process, a cold connection pool, weights paged in) measure the
// start, not the endpoint's steady latency, and per-prompt warmup leaves
// some of them measured. The gate leaves such a head out of the
// comparison, on either side, and says so.
const (
	// coldBlock is the least number of requests a block of the head holds:
	// the head is tested a block at a time.
	coldBlock = 8
	// coldAlpha is the one-sided level of each block's test: a run without
	// a cold start loses its first block in at most 0.5% of runs.
	coldAlpha = 0.005
	// coldMinRequests is the least a target must have measured for its
	// head to be tested (a block, and enough after it to be the steady part).
	coldMinRequests = 40
)

// coldHead returns how many of t's first requests (in arrival order, Seq,
// across its prompts) ran slower than its steady part, and the median
// ratio of their TTFT to it: blocks of max(coldBlock, n/20) requests,
// each tested against the run's second half (TTFT relative to its
// prompt's median, Hodges–Lehmann shift, one-sided at coldAlpha) in turn
// while they are slower, the head being every block up to the first that
// is not, and at most a third of the run (a slowdown longer than that is
// a drift, not a start). 0 when the first block is not slower.
func coldHead(t results.Target) (n int, ratio float64) {
	type req struct {
		seq int
		rel float64
	}
	var reqs []req
	for _, p := range t.Prompts {
		relLog(p, results.TTFT, func(s results.Sample, rel float64) { reqs = append(reqs, req{s.Seq, rel}) })
	}
	if len(reqs) < coldMinRequests {
		return 0, 0
	}
	slices.SortStableFunc(reqs, func(a, b req) int { return cmp.Compare(a.seq, b.seq) })
	rels := func(rs []req) []float64 {
		out := make([]float64, len(rs))
		for i, r := range rs {
			out[i] = r.rel
		}
		slices.Sort(out)
		return out
	}
	steady := rels(reqs[len(reqs)/2:])
	block := max(coldBlock, len(reqs)/20)
	z := stats.NormalQuantile(1 - coldAlpha)
	head := 0
	for head+block <= len(reqs)/3 {
		_, lo, _, ok := stats.HodgesLehmann(rels(reqs[head:head+block]), steady, z, z)
		if !ok || lo <= 0 {
			break
		}
		head += block
	}
	if head == 0 {
		return 0, 0
	}
	shift, _, _, _ := stats.HodgesLehmann(rels(reqs[:head]), steady, z, z)
	return reqs[head-1].seq, math.Exp(shift)
}

// withoutColdHeads returns base and cur with each target's cold head
// (coldHead) left out of its prompts' samples, and a warning per side and
// target that lost one. A target one side found cold whose other side has
// too few requests to test (coldMinRequests) loses as many of its first
// requests there too, at most a third: the same endpoint starts cold in
// every run, and a start left in on one side only reads as a regression
// (or hides one). That matched cut stops before it would leave a prompt
// of n requests fewer than keep(n) (nil keeps none): a start assumed, not
// measured, never leaves a check its measured requests resolve without
// data. (It did: a 12-request run lost 8 of its 24 to a baseline's start,
// every itl check was left short of its 10 requests, and a 40× slower
// stream passed undecided.) base and cur are not modified.
func withoutColdHeads(base, cur Side, keep func(n int) int) (Side, Side, []Warning) {
	base.Targets, cur.Targets = slices.Clone(base.Targets), slices.Clone(cur.Targets)
	type head struct {
		last, n  int
		ratio    float64
		testable bool
	}
	heads := func(s Side) map[string]head {
		m := make(map[string]head, len(s.Targets))
		for _, t := range s.Targets {
			last, ratio := coldHead(t)
			m[targetKey(t)] = head{last: last, n: seqsUpTo(t, last), ratio: ratio, testable: requestCount(t) >= coldMinRequests}
		}
		return m
	}
	bh, ch := heads(base), heads(cur)
	var warns []Warning
	cut := func(s *Side, side string, own, other map[string]head) {
		for i, t := range s.Targets {
			h, o := own[targetKey(t)], other[targetKey(t)]
			w := Warning{Kind: WarnColdStart, Side: side, Target: t.Name, Region: t.Region, NameTarget: len(s.Targets) > 1, Ratio: h.ratio}
			if h.last == 0 && !h.testable && o.n > 0 {
				// Matched: the other side's start, as many requests here.
				h.last, w.Matched, w.Requests = lastOfFirst(t, min(o.n, requestCount(t)/3, cuttable(t, keep))), true, o.n
			}
			if h.last == 0 {
				continue
			}
			s.Targets[i], w.Count = leaveOutHead(t, h.last)
			warns = append(warns, w)
		}
	}
	cut(&base, "baseline", bh, ch)
	cut(&cur, "", ch, bh)
	return base, cur, warns
}

// cuttable is how many of t's first requests, in arrival order, can be
// left out before one of its prompts would keep fewer than keep(n) of its
// n samples (all of them when keep is nil).
func cuttable(t results.Target, keep func(n int) int) int {
	if keep == nil {
		return requestCount(t)
	}
	type req struct{ seq, prompt int }
	var reqs []req
	spare := make([]int, len(t.Prompts))
	for j, p := range t.Prompts {
		spare[j] = len(p.Samples) - keep(len(p.Samples))
		for _, x := range p.Samples {
			reqs = append(reqs, req{x.Seq, j})
		}
	}
	slices.SortStableFunc(reqs, func(a, b req) int { return cmp.Compare(a.seq, b.seq) })
	for k, r := range reqs {
		if spare[r.prompt]--; spare[r.prompt] < 0 {
			return k
		}
	}
	return len(reqs)
}

// keepFor returns, for a prompt of n requests, the most requests any of
// checks needs that n meets (0 when it meets none): what a matched cold
// cut must leave it. The need is taken at the design's strictest look,
// for a baseline as long as the prompt, so no look's check is left short.
func keepFor(checks []parsedCheck, conf float64, d Design) func(n int) int {
	return func(n int) int {
		level := conf
		if d.Sequential() {
			level = max(level, slices.Max(d.Levels(conf, n)))
		}
		keep := 0
		for _, c := range checks {
			values, requests := need(c.c.Stat, c.c.Metric, level)
			if c.c.Metric != results.ITL {
				requests = values
			}
			if requests <= n {
				keep = max(keep, requests)
			}
		}
		return keep
	}
}

// requestCount is how many samples t's prompts hold.
func requestCount(t results.Target) int {
	n := 0
	for _, p := range t.Prompts {
		n += len(p.Samples)
	}
	return n
}

// seqsUpTo is how many of t's samples have Seq ≤ last.
func seqsUpTo(t results.Target, last int) int {
	n := 0
	for _, p := range t.Prompts {
		for _, x := range p.Samples {
			if x.Seq <= last {
				n++
			}
		}
	}
	return n
}

// lastOfFirst is the Seq of t's k-th request in arrival order (0 when k
// is 0).
func lastOfFirst(t results.Target, k int) int {
	if k <= 0 {
		return 0
	}
	seqs := make([]int, 0, requestCount(t))
	for _, p := range t.Prompts {
		for _, x := range p.Samples {
			seqs = append(seqs, x.Seq)
		}
	}
	slices.Sort(seqs)
	return seqs[min(k, len(seqs))-1]
}

// leaveOutHead returns t without its samples of Seq ≤ last and how many
// it left out; t's prompts are not modified.
func leaveOutHead(t results.Target, last int) (results.Target, int) {
	n := 0
	t.Prompts = slices.Clone(t.Prompts)
	for j, p := range t.Prompts {
		kept := make([]results.Sample, 0, len(p.Samples))
		for _, x := range p.Samples {
			if x.Seq > last {
				kept = append(kept, x)
			}
		}
		n += len(p.Samples) - len(kept)
		t.Prompts[j].Samples = kept
	}
	return t, n
}

// relLog calls f with each sample of p that has a positive value of metric
// (requestLevel: for itl, its mean gap) and its log value less the
// prompt's median log value: prompts of different lengths on one scale,
// for tests across a target's requests in arrival order.
func relLog(p results.Prompt, metric string, f func(s results.Sample, rel float64)) {
	logs := make([]float64, 0, len(p.Samples))
	for i := range p.Samples {
		if v, ok := requestLevel(&p.Samples[i], metric); ok {
			logs = append(logs, v)
		}
	}
	if len(logs) == 0 {
		return
	}
	slices.Sort(logs)
	mid := stats.Median(logs)
	for i := range p.Samples {
		if v, ok := requestLevel(&p.Samples[i], metric); ok {
			f(p.Samples[i], v-mid)
		}
	}
}
