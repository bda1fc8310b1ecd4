package trend

import (
	"slices"
	"time"

	"github.com/latgate/latgate/internal/history"
	"github.com/latgate/latgate/pkg/stats"
)

// # The knee in the nightly
//
// `latgate sweep --history` records each target's knee, the highest
// arrival rate at which its SLO's goal held (see pkg/stats.KneeOf). A
// capacity that falls is what a serving change ships most often and what a
// lone request never shows, so the nightly holds the knee to its reference:
// the median knee of the first sweeps since the baseline was blessed (of the
// whole history without a baseline), a level that stays put until the next
// bless, as the latency series' does. Tonight's knee fails when it and the
// night before's are both more than the tolerance below the reference, each
// with its interval's upper end below the reference too: the drop is
// beyond what one sweep's own uncertainty (the rates swept around the knee)
// explains, and it stayed.

// KneeRefRuns is how many sweeps since the bless make the knee's
// reference (their median); MinKneeRefRuns the fewest that do.
// A knee below the reference beyond the tolerance on one sweep is noise as
// often as not; on two in a row (KneeConfirm) it is a capacity that fell.
const (
	KneeRefRuns    = 7
	MinKneeRefRuns = 3
	KneeConfirm    = 2
)

// KneePoint is one sweep's knee of a target.
type KneePoint struct {
	At                   time.Time
	Rate, Lo, Hi         float64
	Below, Above, HiOpen bool
	// Load is the sweep's rates (the latency-versus-load chart).
	Load []history.LoadStep
}

// KneeSeries is a target's knees over the history's sweeps, and tonight's
// verdict on the latest.
type KneeSeries struct {
	Target, Region string
	// Points are the sweeps' knees, oldest first.
	Points []KneePoint
	// Ref is the median of the RefN knees of the reference (0 when RefN <
	// MinKneeRefRuns: no reference yet, nothing decided): see decide.
	Ref  float64
	RefN int
	// Change is the latest knee over the reference, less one.
	Change    float64
	Tolerance float64
	Regressed bool
}

// Latest is the series' newest knee.
func (k KneeSeries) Latest() KneePoint { return k.Points[len(k.Points)-1] }

// Knees follows every target's knee through sweeps (oldest first), each
// held to its reference since blessedAt (zero: the whole history) within
// tolerance (0.15: 15%).
func Knees(sweeps []history.Record, blessedAt time.Time, tolerance float64) []KneeSeries {
	var out []KneeSeries
	index := map[string]int{}
	for _, r := range sweeps {
		for _, t := range r.Targets {
			if t.Knee == nil {
				continue
			}
			key := t.Name + "\x00" + t.Region
			i, ok := index[key]
			if !ok {
				i = len(out)
				index[key] = i
				out = append(out, KneeSeries{Target: t.Name, Region: t.Region, Tolerance: tolerance})
			}
			k := t.Knee
			out[i].Points = append(out[i].Points, KneePoint{At: r.At, Rate: k.Rate, Lo: k.Lo, Hi: k.Hi, Below: k.Below, Above: k.Above, HiOpen: k.HiOpen, Load: t.Load})
		}
	}
	for i := range out {
		out[i].decide(blessedAt)
	}
	return out
}

// decide sets the reference and tonight's verdict. The reference takes
// the sweeps since the bless in order, up to KneeRefRuns, before tonight's
// KneeConfirm; once it has MinKneeRefRuns, a sweep already below it does not
// join it, so a fall after the first few sweeps is never absorbed into the
// level it fell from: it stays failed until a bless.
func (k *KneeSeries) decide(blessedAt time.Time) {
	n := len(k.Points)
	var ref []float64
	median := func() float64 {
		xs := slices.Sorted(slices.Values(ref))
		return stats.Quantile(xs, 0.5)
	}
	for _, p := range k.Points[:max(n-KneeConfirm, 0)] {
		if p.At.Before(blessedAt) || len(ref) >= KneeRefRuns {
			continue
		}
		if len(ref) >= MinKneeRefRuns {
			k.Ref = median()
			if k.below(p) {
				continue
			}
		}
		ref = append(ref, p.Rate)
	}
	k.RefN, k.Ref = len(ref), 0
	if k.RefN < MinKneeRefRuns {
		return
	}
	k.Ref = median()
	if k.Ref <= 0 {
		return
	}
	k.Change = k.Latest().Rate/k.Ref - 1
	k.Regressed = n >= k.RefN+KneeConfirm
	for _, p := range k.Points[max(n-KneeConfirm, 0):] {
		k.Regressed = k.Regressed && k.below(p)
	}
}

// below reports whether sweep p's knee is beyond the tolerance below the
// reference, and surely below the reference: its interval's upper end is
// (a knee above the rates swept, or an interval reaching beyond them, is
// not).
func (k *KneeSeries) below(p KneePoint) bool {
	return !p.Above && !p.HiOpen && p.Rate < k.Ref*(1-k.Tolerance) && p.Hi < k.Ref
}

// AddKnees puts the knees in the report: a regressed knee makes the whole
// report regressed, as a regressed series does.
func (r *Report) AddKnees(ks []KneeSeries) {
	r.Knees = ks
	for _, k := range ks {
		if k.Regressed {
			r.Verdict = Regressed
		}
	}
}
