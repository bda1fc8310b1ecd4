package trend

import (
	"cmp"
	"math"
	"slices"

	"github.com/latgate/latgate/pkg/history"
	"github.com/latgate/latgate/pkg/stats"
)

// TuneOptions tune Tune. Zero values take the defaults.
type TuneOptions struct {
	// Window is how many of the newest runs of each series to learn from
	// (default 60).
	Window int
	// FalseAlarm is the false-alarm rate per check and run to propose
	// tolerances for (default 0.01).
	FalseAlarm float64
}

// MinTolerance is the smallest tolerance Tune proposes.
const MinTolerance = 0.01

// MinTuneRuns is the fewest runs a series needs for a proposal.
const MinTuneRuns = 8

// Proposal is one series' run-to-run variation and the tolerance it implies.
type Proposal struct {
	SeriesSpec
	Runs int
	// Noise is σ of ln(value) from run to run (robust: the median of
	// consecutive differences), and Level the geometric mean of the newest
	// runs after the last change point (ms).
	Noise, Level float64
	// NowRate is the false-alarm rate per run of the configured tolerance:
	// the chance that a run of an unchanged endpoint lands beyond it against
	// a baseline run that was itself one draw of the same variation.
	NowRate float64
	// Tolerance and FloorMS are the proposal: the relative change that an
	// unchanged endpoint exceeds at the target rate, and the same margin in
	// milliseconds at today's level (so a faster endpoint later does not make
	// the gate twitchy).
	Tolerance, FloorMS float64
	// Rate is the false-alarm rate of the proposal (the target, unless the
	// proposal was rounded up).
	Rate float64
}

// TuneReport is Tune's result.
type TuneReport struct {
	Proposals []Proposal
	// Skipped are the series with fewer than MinTuneRuns runs.
	Skipped []SeriesSpec
	Options TuneOptions
}

// Tune estimates each series' run-to-run variation from the history and
// proposes a tolerance and floor that an unchanged endpoint crosses with the
// target false-alarm rate. A gate run compares one run with one baseline
// run; with run-to-run variation σ (of ln) on both sides, ln(current/
// baseline) has standard deviation σ·√2, so the tolerance is
// exp(z·σ·√2) − 1 with z the one-sided normal quantile of the rate. The
// gate also needs its bootstrap interval to clear the tolerance, so real
// false alarms are rarer than these rates: they are upper bounds.
func Tune(records []history.Record, spec Spec, opts TuneOptions) TuneReport {
	if opts.Window <= 0 {
		opts.Window = DefaultWindow
	}
	if opts.FalseAlarm <= 0 || opts.FalseAlarm >= 0.5 {
		opts.FalseAlarm = 0.01
	}
	rep := TuneReport{Options: opts}
	z := math.Sqrt2 * math.Erfinv(1-2*opts.FalseAlarm) // one-sided
	for _, ss := range spec.Series {
		s := analyse(records, ss, spec.BlessedAt, Options{Window: opts.Window}.withDefaults())
		n := len(s.Points)
		if n < MinTuneRuns || math.IsNaN(s.Noise) {
			rep.Skipped = append(rep.Skipped, ss)
			continue
		}
		from := 0
		if k := len(s.Changes); k > 0 {
			from = s.Changes[k-1].Index
		}
		logs := make([]float64, 0, n-from)
		for _, p := range s.Points[from:] {
			logs = append(logs, math.Log(p.Value))
		}
		p := Proposal{SeriesSpec: ss, Runs: n, Noise: s.Noise, Level: math.Exp(mean(logs))}
		sd := s.Noise * math.Sqrt2
		p.NowRate = exceed(math.Log(ss.Limit(p.Level)), sd)
		// Round the tolerance up to a whole percent, the floor up to a
		// readable number of ms; report the rate the rounded values give.
		// At least 1%: an endpoint that repeated itself exactly in the history
		// would otherwise get a tolerance of 0.
		p.Tolerance = max(MinTolerance, math.Ceil(100*(math.Exp(z*sd)-1))/100)
		p.FloorMS = niceUp(p.Level * p.Tolerance)
		lim := SeriesSpec{Tolerance: p.Tolerance, FloorMS: p.FloorMS}.Limit(p.Level)
		p.Rate = exceed(math.Log(lim), sd)
		rep.Proposals = append(rep.Proposals, p)
	}
	return rep
}

// exceed is P(N(0, sd) > x).
func exceed(x, sd float64) float64 {
	if sd <= 0 {
		if x > 0 {
			return 0
		}
		return 1
	}
	return 0.5 * math.Erfc(x/(sd*math.Sqrt2))
}

// niceUp rounds ms up to 2 significant digits (1.25 → 1.3, 23.1 → 24).
func niceUp(ms float64) float64 {
	if ms <= 0 {
		return 0
	}
	p := math.Pow(10, math.Floor(math.Log10(ms))-1)
	return math.Ceil(ms/p-1e-9) * p
}

// CheckProposal is the proposal for one gated check across its prompts:
// the check's tolerance and floor, and the prompts that need more (overrides).
type CheckProposal struct {
	Metric    string
	Stat      stats.Stat
	Proposal  Proposal // the typical prompt's (median noise)
	Overrides []Proposal
	All       []Proposal
}

// ByCheck groups proposals by check, in first-seen order: the check takes
// the proposal of its median-noise series, and each series that needs a
// larger tolerance or floor becomes an override.
func (r TuneReport) ByCheck() []CheckProposal {
	var out []CheckProposal
	type key struct {
		metric string
		stat   stats.Stat
	}
	idx := map[key]int{}
	for _, p := range r.Proposals {
		k := key{p.Metric, p.Stat}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, CheckProposal{Metric: p.Metric, Stat: p.Stat})
		}
		out[i].All = append(out[i].All, p)
	}
	for i := range out {
		all := slices.Clone(out[i].All)
		slices.SortStableFunc(all, func(a, b Proposal) int { return cmp.Compare(a.Noise, b.Noise) })
		typical := all[(len(all)-1)/2]
		out[i].Proposal = typical
		for _, p := range out[i].All {
			if p.Tolerance > typical.Tolerance || p.FloorMS > typical.FloorMS {
				out[i].Overrides = append(out[i].Overrides, p)
			}
		}
	}
	return out
}
