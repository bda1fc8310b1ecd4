package diagnose

import (
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/results"
)

// Explain attributes every regression of rep (checks and aggregates) to
// what moved with it between base and cur (Attribute): it sets Why on each
// regressed check whose target and prompts both sides measured, from the
// samples of those prompts (all the target's for a check across prompts).
// It is a diagnosis, not a decision: no verdict changes. compare.Compare
// leaves Why unset; the application calls Explain on the report a run
// publishes.
func Explain(rep *compare.Report, base, cur compare.Side) {
	for _, cs := range [][]compare.Check{rep.Checks, rep.Aggregates} {
		for i := range cs {
			c := &cs[i]
			if c.Verdict != compare.Regressed {
				continue
			}
			bt, ok1 := findTarget(base, c.Target, c.Region)
			ct, ok2 := findTarget(cur, c.Target, c.Region)
			if !ok1 || !ok2 {
				continue
			}
			ids := c.Prompts
			if c.Prompt != "" {
				ids = []string{c.Prompt}
			}
			b, k := SideOf(bt, ids...), SideOf(ct, ids...)
			if len(b.Samples) == 0 || len(k.Samples) == 0 {
				continue
			}
			a := Attribute(c.Metric, b, k)
			c.Why = &a
		}
	}
}

func findTarget(s compare.Side, name, region string) (results.Target, bool) {
	for _, t := range s.Targets {
		if t.Name == name && t.Region == region {
			return t, true
		}
	}
	return results.Target{}, false
}
