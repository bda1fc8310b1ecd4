package advise

import (
	"slices"

	"github.com/latgate/latgate/pkg/compare"
)

// Improvement is a run that improved on its baseline so much, and so
// consistently, that the baseline no longer describes the endpoint: its
// width is then slack, and a regression as large as the improvement would
// pass the gate. Check suggests blessing again.
type Improvement struct {
	// Improved counts the relative checks (per prompt, not aggregates nor
	// limits) that improved, of Checks decided against the baseline.
	Improved, Checks int
	// Changes are the improved checks' ratios, current/baseline, sorted.
	Changes []float64
}

// Rebless reports rep's Improvement when at least half of its relative
// per-prompt checks improved and none regressed: a lasting change of the
// endpoint, not one check's luck. Checks of what the baseline lacks
// (Unbaselined), absolute limits and rules beyond the five (whose Ratio
// is not a change of latency) do not count.
func Rebless(rep compare.Report) (Improvement, bool) {
	var im Improvement
	for _, c := range rep.Checks {
		if c.Rule() == compare.RuleLimit || !c.Rule().Builtin() || c.Verdict == compare.Unbaselined {
			continue
		}
		im.Checks++
		switch c.Verdict {
		case compare.Regressed:
			return Improvement{}, false
		case compare.Improved:
			im.Improved++
			im.Changes = append(im.Changes, c.Ratio)
		}
	}
	if im.Improved == 0 || 2*im.Improved < im.Checks {
		return Improvement{}, false
	}
	slices.Sort(im.Changes)
	return im, true
}
