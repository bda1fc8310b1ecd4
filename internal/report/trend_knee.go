package report

import (
	"fmt"
	"strconv"

	"github.com/latgate/latgate/internal/trend"
	"github.com/latgate/latgate/pkg/results"
)

// KneeTrendLine says where a target's knee is tonight against its
// reference, and the verdict.
func KneeTrendLine(k trend.KneeSeries) string {
	last := k.Latest()
	r := func(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }
	tonight := fmt.Sprintf("%s requests/s [%s, %s]", r(last.Rate), r(last.Lo), r(last.Hi))
	switch {
	case last.Above:
		tonight = "above " + r(last.Rate) + " requests/s (beyond the rates swept)"
	case last.Below:
		tonight = "below the lowest rate swept"
	case last.HiOpen:
		tonight = fmt.Sprintf("%s requests/s [%s, above %s]", r(last.Rate), r(last.Lo), r(last.Hi))
	}
	head := fmt.Sprintf("knee of target %s: %s tonight", results.Label(k.Target, k.Region), tonight)
	if k.RefN < trend.MinKneeRefRuns {
		return fmt.Sprintf("%s; no reference yet (%d of the %d earlier sweeps since the bless it needs): not decided", head, k.RefN, trend.MinKneeRefRuns)
	}
	ref := fmt.Sprintf("%s; the reference %s requests/s (the median of %d earlier sweeps since the bless): %s", head, r(k.Ref), k.RefN, pct(1+k.Change))
	if k.Regressed {
		return fmt.Sprintf("%s, more than %s%% below it on %d sweeps in a row, each surely below it: REGRESSED (the capacity fell)", ref, pctOf(k.Tolerance), trend.KneeConfirm)
	}
	return fmt.Sprintf("%s, within the %s%% tolerance or not yet on %d sweeps in a row: ok", ref, pctOf(k.Tolerance), trend.KneeConfirm)
}
