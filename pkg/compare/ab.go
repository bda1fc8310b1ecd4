package compare

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

// # A/B: two configs measured interleaved
//
// `latgate ab` measures a base and a candidate now, in the same job,
// interleaved in blocks (measure.RunAB): a block is one base and one
// candidate request of a target pair and prompt sent together, and both
// carry the block's seq. Whatever the endpoint's level does during the run
// then hits both sides of a block alike, and the comparison keeps that
// pairing instead of treating the sides as independent:
//
//   - the estimate of a check is the ratio candidate/base of the statistic
//     (p50, p90, …, mean) over all blocks, as for a baseline: interleaving
//     makes both sides sample the same mixture of the endpoint's levels, so
//     the ratio is free of the drift;
//   - its interval is check's distribution-free interval on each side
//     (Woodruff's for a quantile, the cluster variance for the mean, with
//     blocks as the clusters), combined by the MOVER for correlated
//     estimates (pairedInterval): the level a block's two requests shared
//     is counted once, as it cancels in the ratio (combining the sides as
//     independent would count it twice);
//   - the decision is the gate's (Decide), with nothing for day-to-day noise:
//     both sides were measured on the same day, in the same minutes;
//   - sequential rounds use the gate's Design, both sides growing together:
//     the information of a look is proportional to its requests, the
//     design's levels for an unbounded baseline (oneSample);
//   - per target × check, the prompts are pooled into one check (weighted
//     by the inverse of each prompt's variance), and the run's verdict is
//     Overall's.
//
// Target i of the base is paired with target i of the candidate; the
// checks carry the candidate's target name, and Baseline/Current are the
// base's and the candidate's statistics.

// CompareAB gates the candidate of an interleaved A/B run against its base:
// targets paired by position, prompts by id, requests by seq (the block).
// The gate's limits (max) apply to the candidate alone. The same inputs and
// gate give the same Report.
func CompareAB(base, cand Side, gate config.Gate, d Design) Report {
	// Both ends at the gate's confidence (no ok_confidence): both sides are
	// measured together, so undecided checks are rare, and "faster" (the
	// whole interval on the candidate's side of no change) must stay as
	// sure as "regressed".
	rep := Report{Seed: gate.Seed, Resamples: gate.Resamples, Confidence: gate.Confidence}
	if rep.Confidence <= 0 || rep.Confidence >= 1 {
		rep.Confidence = DefaultConfidence
	}
	if rep.Resamples <= 0 {
		rep.Resamples = DefaultResamples
	}
	conf := rep.Confidence
	checks, warnings := abChecks(gate)
	rep.Found = append(rep.Found, warnings...)

	var targets [][]abGroup // per target pair, one group per gate check
	for i := range min(len(base.Targets), len(cand.Targets)) {
		bt, ct := base.Targets[i], cand.Targets[i]
		bp := make(map[string]results.Prompt, len(bt.Prompts))
		for _, p := range bt.Prompts {
			bp[p.ID] = p
		}
		groups := make([]abGroup, len(checks))
		for _, cp := range ct.Prompts {
			b, ok := bp[cp.ID]
			if !ok {
				continue
			}
			data := map[string]*blockData{}
			for ci, pc := range checks {
				if pc.c.MaxOnly {
					continue // a limit only
				}
				if !results.Applies(pc.c.Metric, b) && !results.Applies(pc.c.Metric, cp) {
					continue // a chain metric, and no side is a chain
				}
				bd, ok := data[pc.c.Metric]
				if !ok {
					bd = newBlockData(b.Samples, cp.Samples, pc.c.Metric)
					data[pc.c.Metric] = bd
				}
				c := Check{
					Target: ct.Name, Region: ct.Region, Prompt: cp.ID,
					Metric: pc.c.Metric, Stat: pc.c.Stat, Confidence: conf,
					Tolerance: Resolvable(pc.c.Metric, gate.ToleranceFor(cp.ID, pc.c)),
				}
				part, ok := abCheck(&c, bd, pc.spec, d)
				groups[ci].tol = Resolvable(pc.c.Metric, pc.c.Tolerance)
				groups[ci].all = append(groups[ci].all, len(rep.Checks))
				if ok {
					part.at = len(rep.Checks)
					groups[ci].parts = append(groups[ci].parts, part)
				}
				rep.Checks = append(rep.Checks, c)
			}
		}
		targets = append(targets, groups)
	}
	for _, groups := range targets {
		rep.Aggregates = append(rep.Aggregates, abDecideTarget(rep.Checks, groups, gate.Aggregate, conf, d)...)
	}
	if hasMax(checks) {
		// The limits gate the candidate alone: the gate's own one-sample
		// rule, on the candidate as a run without a baseline.
		lim := CompareSequential(Side{}, cand, limitsOnly(gate), d)
		for _, c := range lim.Checks {
			if c.Rule() == RuleLimit {
				rep.Checks = append(rep.Checks, c)
			}
		}
	}
	// The shares a gate asks for (slo_attainment: the goodput, at a rate
	// the load's), the candidate's proportion against the base's, each
	// side's requests independent: the implicit ones (stream_integrity)
	// are check's, not ab's.
	_, asked := shareSpecs(gate)
	shares, shareWarns := shareChecks(abRenamed(base, cand), cand, gate, d, conf)
	for _, c := range shares {
		if asked[c.Metric] {
			rep.Checks = append(rep.Checks, c)
		}
	}
	for _, w := range shareWarns {
		if w.Kind == WarnNoSLO || asked[w.Metric] {
			rep.Found = append(rep.Found, w)
		}
	}
	rep.Found = append(rep.Found, sampleWarnings(rep.Checks, len(cand.Targets) > 1)...)
	for k, s := range []Side{base, cand} {
		for _, w := range runWarnings(s.Targets) {
			w.Side = abSideNames[k]
			rep.Found = append(rep.Found, w)
		}
	}
	abSchedule(&rep, base, cand)
	renamed := abRenamed(base, cand)
	plan := Pair(renamed, cand)
	plan.Changes = append(abNameChanges(base, cand), plan.Changes...)
	plan.label(&rep, cand, checks)
	rep.New = nil // an A/B run measures only the prompts both sides have
	sortChecks(rep.Checks)
	sortChecks(rep.Aggregates)
	rep.Verdict = Overall(rep.Checks, rep.Aggregates)
	if len(rep.Checks) == 0 {
		rep.Found = append(rep.Found, Warning{Kind: WarnNothingCompared, Side: "both"})
	}
	return rep
}

var abSideNames = [2]string{"base", "candidate"}

// abSchedule applies missedSchedule to an A/B run at a rate: a target pair
// is undecided when either side's sends fell behind the one arrival stream
// they shared (the checks carry the candidate's name).
func abSchedule(rep *Report, base, cand Side) {
	pairs := Side{Run: cand.Run}
	for i, ct := range cand.Targets {
		if i < len(base.Targets) {
			if bs := base.Targets[i].Sends; !bs.Held() {
				ct.Sends = bs
			}
		}
		pairs.Targets = append(pairs.Targets, ct)
	}
	missedSchedule(rep, pairs)
}

// abChecks parses the gate's checks, with a warning for each it skips.
func abChecks(gate config.Gate) ([]parsedCheck, []Warning) {
	var out []parsedCheck
	var warnings []Warning
	for _, c := range gate.Checks {
		s, err := stats.ParseStat(c.Stat)
		switch {
		case results.IsShare(c.Metric):
			// decided apart, as check decides them (shareChecks)
		case !slices.Contains(gatedMetrics, c.Metric):
			warnings = append(warnings, Warning{Kind: WarnMetric, Metric: c.Metric, Stat: c.Stat})
		case err != nil:
			warnings = append(warnings, Warning{Kind: WarnStat, Metric: c.Metric, Stat: c.Stat})
		default:
			out = append(out, parsedCheck{c, s})
		}
	}
	return out, warnings
}

func hasMax(checks []parsedCheck) bool {
	return slices.ContainsFunc(checks, func(pc parsedCheck) bool { return pc.c.Max > 0 })
}

// limitsOnly is the gate with its limit checks alone.
func limitsOnly(g config.Gate) config.Gate {
	g.Checks = slices.DeleteFunc(slices.Clone(g.Checks), func(c config.Check) bool { return c.Max <= 0 })
	for i := range g.Checks {
		g.Checks[i].MaxOnly = true
	}
	g.Aggregate = false
	return g
}

// abCheck estimates and decides one prompt check of an A/B run from its
// blocks, and returns the part it gives its target's pooled check (ok false
// when it has no finite interval to pool).
func abCheck(c *Check, bd *blockData, spec stats.Stat, d Design) (abPart, bool) {
	b, k := bd.side[0], bd.side[1]
	c.NBase, c.NCur = b.blocks, k.blocks
	if c.Metric == results.ITL {
		c.GapsBase, c.GapsCur = len(b.vals), len(k.vals)
	}
	if d.Sequential() {
		// Both sides grow together: a look's information is proportional
		// to its requests, as for an unbounded baseline.
		c.Look, c.Looks = d.Look(c.NCur)+1, len(d.Looks)
		c.Level = d.Confidence(c.Confidence, oneSample, c.Look-1)
	}
	if c.NBase > 0 {
		c.Baseline = b.stat(spec)
	}
	if c.NCur > 0 {
		c.Current = k.stat(spec)
	}
	ok := false
	if c.NBase > 0 && c.NCur > 0 && c.Baseline > 0 {
		c.Ratio = c.Current / c.Baseline
		var lo, hi float64
		zl, zh := c.ends()
		if abPairedP50(c.Metric, spec) {
			var shift float64
			if shift, lo, hi, ok = stats.SignedRankHL(bd.logRatios(), zl, zh); ok {
				c.Ratio, lo, hi = math.Exp(shift), math.Exp(lo), math.Exp(hi)
			}
		} else {
			lo, hi, ok = pairedInterval(bd, spec, zl, zh)
		}
		c.Lo, c.Hi = math.NaN(), math.NaN()
		if ok {
			c.Lo, c.Hi = lo, hi
		}
	}
	Decide(c)
	c.More = abMore(*c, 1)
	if !ok || !(c.Ratio > 0) {
		return abPart{}, false
	}
	zl, zh := c.ends()
	theta := math.Log(c.Ratio)
	return abPart{c: *c, theta: theta, below: (theta - math.Log(c.Lo)) / zl, above: (math.Log(c.Hi) - theta) / zh}, true
}

// abMore estimates, for an inconclusive A/B check, how many more blocks
// per prompt (requests per side) would decide it: too few for the
// statistic, the shortfall; else, both sides growing together, the
// interval's width in log space scales as 1/√n, so the blocks at which the
// half-width on the side of the estimate shrinks to its distance from the
// threshold, assuming the estimate stays put. -1 when none would (an
// estimate at the threshold). prompts is the number of prompts a pooled
// check combines (its counts are their sums).
func abMore(c Check, prompts int) int {
	if c.Verdict != Inconclusive || c.NBase == 0 || c.NCur == 0 {
		return 0
	}
	n := float64(min(c.NBase, c.NCur)) / float64(max(prompts, 1))
	if !c.Resolved() {
		have, need, unit := c.Unresolved()
		if unit == "gaps" {
			per := float64(max(min(c.GapsBase, c.GapsCur), 1)) / float64(min(c.NBase, c.NCur))
			return max(1, int(math.Ceil(float64(need-have)/per)))
		}
		return max(1, need-have)
	}
	if !(c.Lo > 0 && c.Hi > 0 && c.Ratio > 0 && c.Threshold > 0) {
		return 0
	}
	ratio, lo, hi, tau := c.Slowdown() // larger is worse
	lr, lt := math.Log(ratio), math.Log(tau)
	h := math.Log(hi) - lr // must shrink to lt − lr for ok
	if lr > lt {
		h = lr - math.Log(lo) // must shrink to lr − lt for regressed
	}
	d := math.Abs(lt - lr)
	if d == 0 || h <= 0 {
		return -1
	}
	more := math.Ceil(n*(h/d)*(h/d) - n)
	if more > 1e7 {
		return -1
	}
	return max(1, int(more))
}

// abPairedP50 reports whether a check is decided on the blocks' own log
// ratios: the p50 of a per-request metric (not itl, whose many gaps per
// request the ratio over all blocks already resolves).
func abPairedP50(metric string, spec stats.Stat) bool {
	return !spec.Mean && spec.P == 0.5 && metric != results.ITL
}

// abPart is one prompt of a pooled A/B check: its check (at index at of
// the report's checks), its log change and the lower and upper half-widths
// of its interval in standard errors.
type abPart struct {
	c                   Check
	at                  int
	theta, below, above float64
}

// abGroup is one target × check of an A/B run across prompts: the indices
// of its prompt checks in the report, and those that can be pooled.
type abGroup struct {
	tol   config.Tolerance
	all   []int
	parts []abPart
}

// abDecideTarget settles one target's verdicts as the gate does (see
// targetJobs.decide): each check's prompts are pooled into the check that
// decides (when aggregate is set and two can be pooled), whose prompt checks
// become Diagnostic, and every prompt check stays a test for a regression,
// adjusted for the target's prompt tests of that check by Holm's procedure
// at the looks' boundaries. It updates checks in place and returns the pooled checks.
func abDecideTarget(checks []Check, groups []abGroup, aggregate bool, conf float64, d Design) []Check {
	var pooled []Check
	for _, g := range groups {
		if !aggregate {
			continue
		}
		a, w, ok := g.pool(conf, d)
		if !ok {
			continue
		}
		pooled = append(pooled, a)
		for i, p := range g.parts {
			checks[p.at].Diagnostic, checks[p.at].Weight = true, w[i]
		}
	}
	// Holm over each check's testable prompt checks (one family per
	// target × check, as check's). The design's boundaries are read for
	// both sides growing together (oneSample).
	for _, g := range groups {
		var tests []*job
		var at []int
		for _, k := range g.all {
			c := checks[k]
			c.NBase = oneSample
			j := &job{check: c}
			if c := checks[k]; j.testable() && c.NBase > 0 {
				tests = append(tests, j)
				at = append(at, k)
			}
		}
		rejected, _ := holm(tests, (1-conf)/2, d, false)
		for i, j := range tests {
			c := &checks[at[i]]
			c.Family = len(tests)
			switch {
			case rejected[j]:
				c.Verdict, c.More = Regressed, 0
			case c.Verdict == Regressed:
				c.Verdict = Inconclusive // beyond its tolerance alone, not after the family
				c.More = abMore(*c, 1)
			}
		}
	}
	return pooled
}

// pool combines the group's prompts into one check, as the gate pools a
// target's prompts: the log changes weighted by the inverse of each
// prompt's variance (read off its interval), the half-widths combined as
// √(Σ wⱼ² aⱼ²) at the pooled look's critical value, and no day-to-day term
// (both sides were measured together). ok is false with fewer than two
// prompts.
func (g abGroup) pool(conf float64, d Design) (Check, []float64, bool) {
	if len(g.parts) < 2 {
		return Check{}, nil, false
	}
	t := g.parts[0].c
	a := Check{Target: t.Target, Region: t.Region, Metric: t.Metric, Stat: t.Stat, Confidence: conf, Tolerance: g.tol}
	w := make([]float64, len(g.parts))
	var wsum float64
	for i, p := range g.parts {
		sd := (p.below + p.above) / 2
		w[i] = 1 / max(sd*sd, 1e-12) // a prompt without spread: as precise as any
		wsum += w[i]
	}
	var theta, lb, lw, vb, va float64
	for i, p := range g.parts {
		w[i] /= wsum
		lw += w[i] * math.Log(p.c.Baseline)
		a.Prompts = append(a.Prompts, p.c.Prompt)
		a.NBase += p.c.NBase
		a.NCur += p.c.NCur
		a.GapsBase += p.c.GapsBase
		a.GapsCur += p.c.GapsCur
		a.Look = max(a.Look, p.c.Look)
		theta += w[i] * p.theta
		vb += w[i] * w[i] * p.below * p.below
		va += w[i] * w[i] * p.above * p.above
		lb += math.Log(p.c.Baseline) / float64(len(g.parts))
	}
	if d.Sequential() {
		a.Looks = len(d.Looks)
		a.Level = d.Confidence(conf, oneSample, a.Look-1)
	}
	zl, zh := a.ends()
	// The threshold (a floor over which level?) is decided at the level
	// the change is weighted by, as always; the row then shows, as the
	// gate's pooled row does, the base's level as its prompts' geometric
	// mean and the candidate's as that times the pooled change.
	a.Baseline, a.Ratio = math.Exp(lw), math.Exp(theta)
	a.Lo, a.Hi = math.Exp(theta-zl*math.Sqrt(vb)), math.Exp(theta+zh*math.Sqrt(va))
	Decide(&a)
	if a.Rule() == RuleRatio || a.Rule() == RuleDifference {
		a.Baseline = math.Exp(lb)
		a.Current = a.Baseline * a.Ratio
	}
	a.More = abMore(a, len(g.parts))
	return a, w, true
}

// abRenamed is base with each target named as the candidate target it is
// paired with, so that Pair compares target i with target i; abNameChanges
// lists the names that differ.
func abRenamed(base, cand Side) Side {
	out := Side{Run: base.Run}
	for i, t := range base.Targets {
		if i < len(cand.Targets) {
			t.Name, t.Region = cand.Targets[i].Name, cand.Targets[i].Region
		}
		out.Targets = append(out.Targets, t)
	}
	return out
}

func abNameChanges(base, cand Side) []Change {
	var out []Change
	for i := range min(len(base.Targets), len(cand.Targets)) {
		b, c := base.Targets[i], cand.Targets[i]
		if b.Label() != c.Label() {
			out = append(out, Change{Kind: ChangeSetting, Target: c.Name, Region: c.Region, Field: "target", Baseline: b.Label(), Current: c.Label()})
		}
	}
	return out
}

// Faster names the side an A/B check found faster: "candidate" when the
// whole interval lies on the candidate's faster side of no change (below 1
// for a duration, above 1 for tokens_per_s), "base" when it lies on the
// base's, "" when the interval includes no change or there is none. It
// says nothing of the tolerance: a check can be ok and faster.
func (c Check) Faster() string {
	if c.Rule() == RuleLimit || c.Lo <= 0 || c.Hi <= 0 || math.IsNaN(c.Lo) || math.IsNaN(c.Hi) {
		return ""
	}
	_, lo, hi, _ := c.Slowdown() // larger is slower
	switch {
	case hi < 1:
		return "candidate"
	case lo > 1:
		return "base"
	}
	return ""
}

// RecordedAB is what `latgate ab --out` writes: both sides' results with
// their raw samples (a block's two requests share a seq) and the
// comparison.
type RecordedAB struct {
	Schema     string        `json:"schema"`
	Base       *results.File `json:"base"`
	Candidate  *results.File `json:"candidate"`
	Comparison *Report       `json:"comparison,omitempty"`
}

// SchemaAB is the schema of RecordedAB.
const SchemaAB = "latgate.ab/v1"

// DecodeRecordedAB decodes an A/B results file; name is the file name used
// in errors. Each side is checked as a results file (results.Decode).
func DecodeRecordedAB(data []byte, name string) (*RecordedAB, error) {
	var raw struct {
		Schema     string          `json:"schema"`
		Base       json.RawMessage `json:"base"`
		Candidate  json.RawMessage `json:"candidate"`
		Comparison *Report         `json:"comparison"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: not an A/B results file: %w", name, err)
	}
	if raw.Schema != SchemaAB {
		return nil, fmt.Errorf("%s: schema %q, want %q (written by latgate ab --out)", name, raw.Schema, SchemaAB)
	}
	out := &RecordedAB{Schema: raw.Schema, Comparison: raw.Comparison}
	for _, s := range []struct {
		raw  json.RawMessage
		dst  **results.File
		side string
	}{{raw.Base, &out.Base, "base"}, {raw.Candidate, &out.Candidate, "candidate"}} {
		f, err := results.Decode(s.raw, name+" ("+s.side+")")
		if err != nil {
			return nil, err
		}
		*s.dst = f
	}
	return out, nil
}
