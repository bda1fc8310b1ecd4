package compare

import (
	"math"

	"github.com/latgate/latgate/pkg/results"
)

// # Absolute limits
//
// A gate check may carry max (`{metric: ttft, stat: p95, max: 800ms}`), the
// k6-style `p(95)<800`. Beside the relative check it adds a limit check per
// target × prompt: the current run's statistic alone, no baseline needed,
// with a one-sample interval (Woodruff's, requests as clusters; see
// Intervals), at the same level a relative check of that look would use; in
// sequential rounds the level of a one-sample design, whose information
// grows with the current requests alone. The decision mirrors the relative one:
//
//	regressed     the whole interval is above max
//	ok            the whole interval is at or below max (max is ruled in)
//	inconclusive  the interval straddles max, or the current side has too few
//	              requests for the statistic
//
// An inconclusive limit check is undecided like any other and takes part in
// check's rounds.

// oneSample is the baseline size that makes a design's information that of
// the current side alone: 1/(1/n_b + 1/n) ≈ n.
const oneSample = 1 << 40

// limitJobs returns a limit job for every target × prompt of cur and every
// check with a max, whether or not the baseline has the prompt.
func limitJobs(cur Side, checks []parsedCheck) []*job {
	var jobs []*job
	for _, t := range cur.Targets {
		for _, p := range t.Prompts {
			data := map[string]*dataset{}
			for _, pc := range checks {
				if pc.c.Max <= 0 || !results.Applies(pc.c.Metric, p) {
					continue
				}
				d, ok := data[pc.c.Metric]
				if !ok {
					d = newDataset(p.Samples, pc.c.Metric)
					data[pc.c.Metric] = d
				}
				jobs = append(jobs, &job{
					check: Check{
						Target: t.Name, Region: t.Region, Prompt: p.ID,
						Metric: pc.c.Metric, Stat: pc.c.Stat,
						Max: float64(pc.c.Max) / 1e6,
					},
					spec: pc.spec, cur: d,
				})
			}
		}
	}
	return jobs
}

// runLimit estimates the current statistic of a limit job with its
// interval and decides it.
func (j *job) runLimit(conf float64, d Design) {
	c := &j.check
	c.Confidence = conf
	c.NCur = j.cur.requests()
	if c.Metric == results.ITL {
		c.GapsCur = len(j.cur.vals)
	}
	c.atLook(d, conf, oneSample)
	if c.NCur > 0 {
		sp := spreadOf(j.cur, j.spec)
		c.Current = sp.est
		c.Lo, c.Hi = sp.bounds(j.cur, critical(c.level()))
	}
	DecideLimit(c)
}

// DecideLimit is Decide for a limit check (Max > 0): from Current, its
// interval Lo–Hi (milliseconds), Confidence and NCur (GapsCur for itl) it
// sets Need, NeedRequests, Verdict, More and Reason. It is pure, so that the
// decision is tested apart from the bootstrap.
func DecideLimit(c *Check) {
	c.Need, c.NeedRequests = need(c.Stat, c.Metric, c.level())
	c.Baseline, c.Ratio, c.Threshold = 0, 0, 0
	finite := c.finiteInterval()
	switch {
	case c.NCur == 0 || !finite || !c.Resolved():
		c.Verdict = Inconclusive
	case c.Lo > c.Max:
		c.Verdict = Regressed
	case c.Hi <= c.Max:
		c.Verdict = OK
	default:
		c.Verdict = Inconclusive
	}
	c.More = 0
	if c.Verdict == Inconclusive {
		c.More = c.moreLimit()
	}
}

// moreLimit estimates how many more current requests an inconclusive limit
// check needs for its interval to clear max on the side its statistic is
// on, assuming the statistic stays put and the interval's width in log
// space shrinks as 1/√n. -1: the statistic sits on the limit.
func (c Check) moreLimit() int {
	if c.NCur == 0 {
		return 0
	}
	if !c.Resolved() {
		have, need, unit := c.Unresolved()
		if unit == "gaps" { // have is GapsCur
			return c.moreForGaps(need)
		}
		return need - have
	}
	if c.Lo <= 0 || c.Hi <= 0 || c.Current <= 0 {
		return 0
	}
	lc, lm := math.Log(c.Current), math.Log(c.Max)
	h := math.Log(c.Hi) - lc
	if lc > lm {
		h = lc - math.Log(c.Lo)
	}
	dist := math.Abs(lm - lc)
	if dist == 0 || h <= 0 {
		return -1
	}
	n := float64(c.NCur)
	more := math.Ceil(n*(h/dist)*(h/dist) - n)
	if more > results.MaxPromptRequests { // more than any run may measure
		return -1
	}
	return max(1, int(more))
}
