package trend

import (
	"fmt"
	"time"

	"github.com/latgate/latgate/internal/history"
	"github.com/latgate/latgate/pkg/baseline"
	"github.com/latgate/latgate/pkg/results"
)

// IssueKey names the regression a report holds, stably from night to
// night, for a workflow that keeps one issue per regression: the failing
// target (the headline's, else the first regressed series') and when the
// baseline (nil: none) was blessed. A change point's own run can move by a
// run or two as nights accrue, so it is not part of the key; a new baseline
// starts a new key. Target names and regions are [A-Za-z0-9._-]. ok is
// false when the report holds no regression.
func IssueKey(rep Report, base *baseline.File) (key, title string, ok bool) {
	if rep.Verdict != Regressed {
		return "", "", false
	}
	var lead *Series
	for i := range rep.Series {
		if rep.Series[i].Verdict == Regressed {
			lead = &rep.Series[i]
			break
		}
	}
	if h := rep.Headline; h != nil {
		if s, _ := h.Get(rep); s.Verdict == Regressed {
			lead = &s
		}
	}
	blessed := "no-baseline"
	if base != nil {
		blessed = base.BlessedAt.UTC().Format(time.RFC3339)
	}
	if lead == nil { // a knee fell, no latency series
		for _, k := range rep.Knees {
			if k.Regressed {
				label := results.Label(k.Target, k.Region)
				return label + "/knee/" + blessed, history.Clean(fmt.Sprintf("latgate: capacity regression on %s (the knee fell %+.0f%%)", label, 100*k.Change)), true
			}
		}
		return "", "", false
	}
	label := results.Label(lead.Target, lead.Region)
	return label + "/" + blessed, history.Clean(fmt.Sprintf("latgate: latency regression on %s (%s %s %s)", label, lead.Prompt, lead.Metric, lead.Stat)), true
}
