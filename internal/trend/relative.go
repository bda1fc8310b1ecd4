package trend

import (
	"math"
	"slices"
	"time"

	"github.com/latgate/latgate/pkg/stats"
)

// The relative test (#30): a change on one prompt of a target, against the
// night's level of the target's other prompts.
//
// Night-to-night noise is mostly the endpoint's, shared by every prompt of
// a target: a slow night is slow for all of them. A prompt's own series
// carries that noise, so a step on one prompt (a prefill regression that
// hits only the long prompts) hides in it for weeks. Its contrast — its
// log value minus the mean of the other prompts' on the same night — does
// not: the shared part cancels, and what is left is the prompt's own
// measurement noise. The contrast's newest change point is tested as a
// regression like a series' own (changeTest: spent over the looks after
// it, in the same Benjamini–Hochberg family), against the prompt's
// tolerance from its level before the change.
//
// A contrast measures the prompt's change minus the others': it is the
// prompt's own change only while the others held steady. So the test is
// made only when the others' mean, over the same nights, has no change
// point inside the two segments tested (segment, at the options' α): when
// they moved, the prompt's own series decides alone. (Should the others
// have got faster by less than a change point shows, the contrast reads
// the prompt that much slower: the price of the test, bounded by what
// E-divisive misses.)

// Relative is a prompt's change point against the other prompts of its
// target: Change's fields on the contrast (Ratio: how much slower than the
// others it became, Before and After: the prompt's own levels around it),
// and how many prompts the others were.
type Relative struct {
	Change
	Others int
}

// group is the series of one target × check, one per prompt.
type group struct {
	target, region, metric string
	stat                   stats.Stat
}

// relatives adds to each prompt series with at least one other prompt in
// its target × check its relative test, and returns the hypotheses.
func relatives(series []Series, blessedAt time.Time, opts Options, sp *splitter) []hypothesis {
	groups := map[group][]int{}
	var order []group
	for i, s := range series {
		if s.Prompt == "" || len(s.Points) < 2*opts.MinSegment {
			continue
		}
		g := group{s.Target, s.Region, s.Metric, s.Stat}
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], i)
	}
	var hyps []hypothesis
	for _, g := range order {
		members := groups[g]
		if len(members) < 2 {
			continue
		}
		// The runs every member has a point in, oldest first, and each
		// member's log value at them.
		runs := commonRuns(series, members)
		n := len(runs)
		if n < 2*opts.MinSegment {
			continue
		}
		x := make([][]float64, len(members))
		for k, i := range members {
			s := series[i]
			x[k] = make([]float64, 0, n)
			for _, p := range s.Points {
				if _, ok := slices.BinarySearch(runs, p.Run); ok {
					x[k] = append(x[k], s.worse(p.Value))
				}
			}
		}
		for k, i := range members {
			others := make([]float64, n)
			contrast := make([]float64, n)
			for t := range n {
				sum := 0.0
				for q := range members {
					if q != k {
						sum += x[q][t]
					}
				}
				others[t] = sum / float64(len(members)-1)
				contrast[t] = x[k][t] - others[t]
			}
			if h, ok := relativeTest(&series[i], x[k], contrast, others, runs, len(members)-1, blessedAt, opts, sp); ok {
				h.series = i
				hyps = append(hyps, h)
			}
		}
	}
	return hyps
}

// commonRuns are the runs (record indices) in which every member series
// has a point, ascending.
func commonRuns(series []Series, members []int) []int {
	count := map[int]int{}
	for _, i := range members {
		for _, p := range series[i].Points {
			count[p.Run]++
		}
	}
	var runs []int
	for r, c := range count {
		if c == len(members) {
			runs = append(runs, r)
		}
	}
	slices.Sort(runs)
	return runs
}

// relativeTest tests the newest change point of s's contrast (own: s's
// log values at runs; others: the other prompts' mean) as a regression.
func relativeTest(s *Series, own, contrast, others []float64, runs []int, nOthers int, blessedAt time.Time, opts Options, sp *splitter) (hypothesis, bool) {
	n := len(contrast)
	cuts := segment(contrast, opts.MinSegment, opts.Alpha, sp)
	if len(cuts) == 0 {
		return hypothesis{}, false
	}
	bounds := boundsOf(cuts, n)
	k := len(cuts) - 1
	lo, mid, hi := bounds[k], bounds[k+1], bounds[k+2]
	at := slices.IndexFunc(s.Points, func(p Point) bool { return p.Run == runs[mid] })
	if at < 0 {
		return hypothesis{}, false
	}
	pt := s.Points[at]
	if !blessedAt.IsZero() && !pt.At.After(blessedAt) {
		return hypothesis{}, false // the baseline has it
	}
	// The others held steady over the two segments tested.
	if len(segment(others[lo:hi], opts.MinSegment, opts.Alpha, sp)) > 0 {
		return hypothesis{}, false
	}
	nz := estimateNoise(contrast, bounds)
	if !(nz.Sigma > 0) || nz.DF < 1 {
		return hypothesis{}, false
	}
	before, after := stats.Mean(contrast[lo:mid]), stats.Mean(contrast[mid:hi])
	d := after - before
	se := nz.seDiff(mid-lo, hi-mid, 0)
	zc := stats.TQuantile((1-opts.Confidence)/2, nz.DF)
	r := &Relative{Others: nOthers, Change: Change{
		Index: mid, // changeTest reads the contrast's index; Points' below
		At:    pt.At, Commit: pt.Commit,
		Before: s.natural(stats.Mean(own[lo:mid])), After: s.natural(stats.Mean(own[mid:hi])),
		Ratio: math.Exp(d), Lo: math.Exp(d - zc*se), Hi: math.Exp(d + zc*se), Level: opts.Confidence,
		Z: cuts[k].Z,
	}}
	r.Limit = s.Limit(r.Before)
	h := changeTest(contrast, bounds, &r.Change, nz, opts.MinSegment)
	r.Index = at
	h.relative = true
	s.Relative = r
	return h, true
}
