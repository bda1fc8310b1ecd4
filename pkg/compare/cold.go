package compare

import (
	"cmp"
	"math"
	"slices"

	"github.com/latgate/latgate/pkg/config"
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
// short of a need (needs; nil: none) its samples meet: a start assumed,
// not measured, never leaves a check its measured requests resolve
// without data; when it cannot cut at all, the warning (Count 0) says the
// start was kept. (It did: a 12-request run lost 8 of its 24 to a baseline's start,
// every itl check was left short of its 10 requests, and a 40× slower
// stream passed undecided.) base and cur are not modified.
func withoutColdHeads(base, cur Side, needs func(p results.Prompt, nBase int) []dataNeed) (Side, Side, []Warning) {
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
			h := head{last: last, ratio: ratio, testable: requestCount(t) >= coldMinRequests}
			if last > 0 { // an old file's samples all have Seq 0: none is a head
				h.n = seqsUpTo(t, last)
			}
			m[targetKey(t)] = h
		}
		return m
	}
	bh, ch := heads(base), heads(cur)
	var warns []Warning
	// baseCount is the baseline's requests of a prompt, after its own cut:
	// the count the gate's level is taken at (a baseline prompt's own).
	baseCount := func(t results.Target, p results.Prompt, side string) int {
		if side == "baseline" {
			return len(p.Samples)
		}
		for _, bt := range base.Targets {
			if targetKey(bt) == targetKey(t) {
				for _, bp := range bt.Prompts {
					if bp.ID == p.ID {
						return len(bp.Samples)
					}
				}
			}
		}
		return len(p.Samples)
	}
	cut := func(s *Side, side string, own, other map[string]head) {
		for i, t := range s.Targets {
			h, o := own[targetKey(t)], other[targetKey(t)]
			var tneeds func(results.Prompt) []dataNeed
			if needs != nil {
				tneeds = func(p results.Prompt) []dataNeed { return needs(p, baseCount(t, p, side)) }
			}
			w := Warning{Kind: WarnColdStart, Side: side, Target: t.Name, Region: t.Region, NameTarget: len(s.Targets) > 1, Ratio: h.ratio}
			if h.last == 0 && !h.testable && o.n > 0 {
				// Matched: the other side's start, as many requests here.
				h.last, w.Matched, w.Requests = lastOfFirst(t, min(o.n, requestCount(t)/3, cuttable(t, tneeds))), true, o.n
				if h.last == 0 {
					// None to spare: the start stays in, and the warning
					// says so (it may read as a regression of this run).
					warns = append(warns, w)
					continue
				}
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

// dataNeed is what one gated check needs of a prompt's samples: values
// of metric (a share's, when share), and for itl requests with gaps too.
type dataNeed struct {
	metric           string
	share            bool
	values, requests int
}

// count is what sample s of a prompt (whose SLO is slo) gives n: its
// values (for itl, its gaps) and whether it is a request with one.
func (n dataNeed) count(s *results.Sample, slo *results.SLO) (values, request int) {
	switch {
	case n.share:
		if _, ok := shareValue(n.metric, s, slo); ok {
			values = 1
		}
	case n.metric == results.ITL:
		values = len(s.ITL)
	case results.Has(s, n.metric):
		values = 1
	}
	return values, min(values, 1)
}

// cuttable is how many of t's first requests, in arrival order, can be
// left out before one of its prompts would fall short of a need (needs)
// its samples meet: values of the check's metric, not samples, since a
// request without a gap gives itl nothing (all of them when needs is nil).
func cuttable(t results.Target, needs func(p results.Prompt) []dataNeed) int {
	if needs == nil {
		return requestCount(t)
	}
	type req struct{ seq, prompt, sample int }
	type left struct {
		need             dataNeed
		values, requests int
	}
	var reqs []req
	guards := make([][]left, len(t.Prompts))
	for j, p := range t.Prompts {
		for _, n := range needs(p) {
			l := left{need: n}
			for k := range p.Samples {
				v, r := n.count(&p.Samples[k], p.SLO)
				l.values, l.requests = l.values+v, l.requests+r
			}
			if l.values >= n.values && l.requests >= n.requests {
				guards[j] = append(guards[j], l) // met now: keep it met
			}
		}
		for k, x := range p.Samples {
			reqs = append(reqs, req{x.Seq, j, k})
		}
	}
	slices.SortStableFunc(reqs, func(a, b req) int { return cmp.Compare(a.seq, b.seq) })
	for k, r := range reqs {
		p := t.Prompts[r.prompt]
		for g := range guards[r.prompt] {
			l := &guards[r.prompt][g]
			v, n := l.need.count(&p.Samples[r.sample], p.SLO)
			if l.values-v < l.need.values || l.requests-n < l.need.requests {
				return k
			}
			l.values, l.requests = l.values-v, l.requests-n
		}
	}
	return len(reqs)
}

// needsOf returns what each of gate's checks (checks parsed, and its
// share checks) needs of a prompt whose baseline has nBase requests: what
// a matched cold cut must leave it. The need is taken at the design's
// strictest look for that baseline, so no look's check is left short.
func needsOf(gate config.Gate, checks []parsedCheck, conf float64, d Design) func(p results.Prompt, nBase int) []dataNeed {
	return func(p results.Prompt, nBase int) []dataNeed {
		level := conf
		if d.Sequential() && nBase > 0 {
			level = max(level, slices.Max(d.Levels(conf, nBase)))
		}
		var out []dataNeed
		for _, c := range checks {
			values, requests := need(c.c.Stat, c.c.Metric, level)
			out = append(out, dataNeed{metric: c.c.Metric, values: values, requests: requests})
		}
		for _, c := range gate.Checks {
			if results.IsShare(c.Metric) {
				out = append(out, dataNeed{metric: c.Metric, share: true, values: ShareNeed})
			}
		}
		return out
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
