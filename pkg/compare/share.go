package compare

import (
	"math"
	"slices"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

// # Share checks
//
// A share metric (results.ShareMetrics) is the mean over requests of a
// share in [0, 1], higher is better: the share of prompt tokens served
// from the cache (cache_hit_rate), whether a request met its SLO
// (slo_attainment), whether it arrived as a stream (stream_integrity). A
// ratio of shares means little (98% → 0% is no "-100%" of a latency), so
// a share check is decided on points, with a score interval on a
// proportion (Wilson; Newcombe's hybrid for a difference) at the level a
// latency check of the same look uses. A share in (0, 1) per request is
// treated as a proportion, which bounds its variance from above: the
// interval is conservative for it. The rule mirrors the others:
//
//	against the baseline (tolerance: points)
//	  regressed     the whole interval of current − baseline is below −tolerance
//	  improved      the whole interval is above +tolerance
//	  ok            the interval rules out a drop beyond the tolerance
//	  inconclusive  it straddles −tolerance, or a side has under ShareNeed requests
//	against a minimum (min:)
//	  regressed     the whole interval of the current share is below min
//	  ok            the whole interval is at or above it
//	  inconclusive  otherwise
//
// Unasked, latgate checks stream_integrity on every prompt the baseline
// has and cache_hit_rate on every prompt whose cache is warm, both against
// the baseline with DefaultShareTolerance; a check of that metric in
// gate.checks replaces the unasked one (off: true turns it off). An
// unasked check is reported only when it regressed: one row per prompt
// saying a stream still streams would drown the table, and an undecided
// one would send check's rounds after what nobody asked (its evidence
// still reaches the attribution lines).
// cache_hit_rate is never checked on a cold prompt (it must miss), and
// slo_attainment only on prompts with an SLO.

// DefaultShareTolerance is the tolerance of the share checks latgate
// makes unasked: a drop of 25 points of the share.
const DefaultShareTolerance = 0.25

// ShareNeed is the fewest requests a side of a share check needs.
const ShareNeed = 10

// implicitShare is the share check latgate makes of metric when the gate
// lists none.
func implicitShare(metric string) (config.Check, bool) {
	switch metric {
	case results.StreamIntegrity, results.CacheHitRate:
		return config.Check{Metric: metric, Stat: "share", Tolerance: config.Tolerance{Rel: DefaultShareTolerance}}, true
	}
	return config.Check{}, false
}

// shareSpecs returns the share checks of gate: those it lists, and the
// unasked ones it does not replace, with whether each was asked for.
func shareSpecs(gate config.Gate) (specs []config.Check, asked map[string]bool) {
	asked = map[string]bool{}
	for _, c := range gate.Checks {
		if results.IsShare(c.Metric) {
			asked[c.Metric] = true
			if !c.Off {
				specs = append(specs, c)
			}
		}
	}
	for _, m := range results.ShareMetrics() {
		if c, ok := implicitShare(m); ok && !asked[m] {
			specs = append(specs, c)
		}
	}
	return specs, asked
}

// shareChecks decides the share checks of every target × prompt of cur at
// look d, and returns them with the warnings of checks that had nothing to
// check.
func shareChecks(base, cur Side, gate config.Gate, d Design, conf float64) ([]Check, []Warning) {
	specs, asked := shareSpecs(gate)
	var out []Check
	var warns []Warning
	sloSeen := false
	for _, ct := range cur.Targets {
		bt, haveBase := findTarget(base, ct.Name, ct.Region)
		for _, cp := range ct.Prompts {
			var bp *results.Prompt
			if haveBase {
				if i := slices.IndexFunc(bt.Prompts, func(p results.Prompt) bool { return p.ID == cp.ID }); i >= 0 {
					bp = &bt.Prompts[i]
				}
			}
			for _, spec := range specs {
				if !shareApplies(spec.Metric, cp, asked[spec.Metric]) {
					continue
				}
				sloSeen = sloSeen || spec.Metric == results.SLOAttainment
				vc := shareValues(spec.Metric, cp.Samples, cp.SLO)
				var vb []float64
				if bp != nil {
					vb = shareValues(spec.Metric, bp.Samples, cp.SLO)
				}
				if !asked[spec.Metric] && (len(vb) < ShareNeed || len(vc) < ShareNeed) {
					if spec.Metric == results.CacheHitRate && len(cp.Samples) >= ShareNeed && len(vc) == 0 {
						warns = append(warns, Warning{Kind: WarnNoCacheUsage, Target: ct.Name, Region: ct.Region, Prompts: []string{cp.ID}})
					}
					continue // unasked: only where both sides can decide it
				}
				who := Check{Target: ct.Name, Region: ct.Region, Prompt: cp.ID, Metric: spec.Metric, Stat: "share", Confidence: conf}
				if !spec.MinOnly && bp != nil {
					c := who
					c.Tolerance = config.Tolerance{Rel: spec.Tolerance.Rel}
					c.setShares(vb, vc)
					c.atLook(d, conf, c.NBase)
					c.shareInterval()
					DecideShare(&c)
					if asked[spec.Metric] || c.Verdict == Regressed {
						out = append(out, c) // an unasked check is news only when it fails
					}
				}
				if spec.Min > 0 {
					c := who
					c.Min = spec.Min
					c.setShares(nil, vc)
					c.atLook(d, conf, oneSample)
					c.shareInterval()
					DecideShare(&c)
					out = append(out, c)
				}
			}
		}
	}
	if asked[results.SLOAttainment] && !sloSeen && !slices.ContainsFunc(gate.Checks, func(c config.Check) bool { return c.Metric == results.SLOAttainment && c.Off }) {
		warns = append(warns, Warning{Kind: WarnNoSLO})
	}
	return out, warns
}

// shareApplies reports whether a share check of metric applies to prompt
// p: cache_hit_rate never to a cold prompt and unasked only to a warm one;
// slo_attainment only with an SLO.
func shareApplies(metric string, p results.Prompt, asked bool) bool {
	switch metric {
	case results.CacheHitRate:
		return p.Cache != results.CacheCold && (asked || p.Cache == results.CacheWarm)
	case results.SLOAttainment:
		return p.SLO != nil && !p.SLO.Empty()
	}
	return true
}

// shareValues returns each request's share of metric: the cached share of
// its prompt tokens (requests whose usage reported them), 1 or 0 for
// meeting slo, 1 or 0 for having streamed.
func shareValues(metric string, ss []results.Sample, slo *results.SLO) []float64 {
	out := make([]float64, 0, len(ss))
	for i := range ss {
		if v, ok := shareValue(metric, &ss[i], slo); ok {
			out = append(out, v)
		}
	}
	return out
}

// shareValue is sample s's value of a share metric, and whether it has one
// (a cache hit rate needs the usage's cached tokens).
func shareValue(metric string, s *results.Sample, slo *results.SLO) (float64, bool) {
	switch metric {
	case results.CacheHitRate:
		return results.CacheShare(s)
	case results.SLOAttainment:
		return b2f(slo != nil && slo.Met(s)), true
	case results.StreamIntegrity:
		return b2f(results.Streamed(s)), true
	}
	return 0, false
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// setShares sets the sides' request counts and mean shares.
func (c *Check) setShares(base, cur []float64) {
	c.NBase, c.NCur = len(base), len(cur)
	c.Baseline, c.Current = meanOf(base), meanOf(cur)
}

func meanOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// shareInterval sets Lo and Hi at the check's level: of the current share
// (Wilson) for a minimum, of current − baseline (Newcombe) otherwise.
func (c *Check) shareInterval() {
	c.Lo, c.Hi = 0, 0
	if c.NCur == 0 || c.Min <= 0 && c.NBase == 0 {
		return
	}
	z := zOf(c.level())
	lc, uc := wilson(c.Current, c.NCur, z)
	if c.Min > 0 {
		c.Lo, c.Hi = lc, uc
		return
	}
	lb, ub := wilson(c.Baseline, c.NBase, z)
	d := c.Current - c.Baseline
	c.Lo = d - math.Hypot(c.Current-lc, ub-c.Baseline)
	c.Hi = d + math.Hypot(uc-c.Current, c.Baseline-lb)
}

// zOf is the two-sided normal quantile of level: 1.96 at 95%.
func zOf(level float64) float64 { return math.Sqrt2 * math.Erfcinv(1-level) }

// wilson is the Wilson score interval of a proportion p of n at z.
func wilson(p float64, n int, z float64) (lo, hi float64) { return stats.Wilson(p, n, z) }

// IsShare reports whether c is a share check (results.IsShare).
func (c Check) IsShare() bool { return results.IsShare(c.Metric) }

// DecideShare is Decide for a share check: from Baseline, Current, Lo, Hi
// (of current − baseline, or of Current for a minimum), NBase, NCur,
// Tolerance.Rel (points) and Min it sets Need, Verdict, More and Reason.
// Threshold is −Tolerance.Rel for a check against the baseline.
func DecideShare(c *Check) {
	c.Need, c.NeedRequests, c.Ratio = ShareNeed, 0, 0
	c.Threshold = 0
	if c.Min <= 0 {
		c.Threshold = -c.Tolerance.Rel
	}
	tol := c.Tolerance.Rel
	switch {
	case c.NCur < ShareNeed || c.Min <= 0 && c.NBase < ShareNeed || !c.finiteInterval():
		c.Verdict = Inconclusive
	case c.Min > 0 && c.Hi < c.Min, c.Min <= 0 && c.Hi < -tol:
		c.Verdict = Regressed
	case c.Min > 0 && c.Lo >= c.Min:
		c.Verdict = OK
	case c.Min <= 0 && c.Lo > tol:
		c.Verdict = Improved
	case c.Min <= 0 && c.Lo >= -tol:
		c.Verdict = OK
	default:
		c.Verdict = Inconclusive
	}
	c.More = 0
	if c.Verdict == Inconclusive {
		c.More = c.moreShare()
	}
}

// moreShare estimates how many more current requests an inconclusive
// share check needs for its interval to clear its bound, the shares
// staying put: -1 when none would (the baseline's own width, or a share
// on the bound).
func (c Check) moreShare() int {
	if c.NCur == 0 {
		return 0
	}
	if c.NCur < ShareNeed {
		return ShareNeed - c.NCur
	}
	if c.Min <= 0 && c.NBase < ShareNeed {
		return -1
	}
	z := zOf(c.level())
	varOf := func(p float64, n int) float64 { return z * z * max(p*(1-p), 1/float64(n)) }
	bound, est := c.Min, c.Current
	var fixed float64
	if c.Min <= 0 {
		bound, est = -c.Tolerance.Rel, c.Current-c.Baseline
		fixed = varOf(c.Baseline, c.NBase) / float64(c.NBase)
	}
	room := (est-bound)*(est-bound) - fixed
	if room <= 0 {
		return -1
	}
	n := math.Ceil(varOf(c.Current, c.NCur)/room) - float64(c.NCur)
	if n > 1e7 {
		return -1
	}
	return max(1, int(n))
}
