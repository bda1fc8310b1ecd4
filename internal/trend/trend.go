package trend

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/latgate/latgate/internal/history"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

// Defaults of Options.
const (
	DefaultWindow     = 60
	DefaultAlpha      = 0.01
	DefaultFalseAlarm = 0.05
	DefaultMinSegment = 3
	DefaultRecent     = 5
)

// Options tune the analysis. Zero values take the defaults.
type Options struct {
	// Window is how many of the newest usable runs each series analyses.
	Window int
	// Alpha is the change-point test's level: a segment without a change
	// shows one in about Alpha of analyses. A change point is reported
	// (verdict "changed"); only a regression fails.
	Alpha float64
	// FalseAlarm is the rate of false regressions the analysis allows per
	// night across all its series (the false-discovery rate of the
	// Benjamini–Hochberg procedure over every series' regression tests:
	// when nothing changed, the chance that any series fails). Each change
	// point spends it over the nights after it (half at its first look, a
	// quarter at the next, …), so re-analysing every night does not re-roll
	// an alarm for the same change.
	FalseAlarm float64
	// MinSegment is the fewest runs on each side of a change point: a change
	// is placed only after that many runs show it.
	MinSegment int
	// Recent is how many of the newest runs (after the last change point)
	// measure the current level for the drift from the baseline.
	Recent int
	// Confidence of the intervals shown for changes not tested as
	// regressions (default 0.95).
	Confidence float64
}

func (o Options) withDefaults() Options {
	if o.Window <= 0 {
		o.Window = DefaultWindow
	}
	if !(o.Alpha > 0 && o.Alpha < 0.5) {
		o.Alpha = DefaultAlpha
	}
	if !(o.FalseAlarm > 0 && o.FalseAlarm < 0.5) {
		o.FalseAlarm = DefaultFalseAlarm
	}
	if o.MinSegment < 2 {
		o.MinSegment = DefaultMinSegment
	}
	if o.Recent <= 0 {
		o.Recent = DefaultRecent
	}
	if o.Confidence <= 0 || o.Confidence >= 1 {
		o.Confidence = 0.95
	}
	return o
}

// Spec says what to analyse: the gated series, each with its tolerance and
// the baseline's value.
type Spec struct {
	Series []SeriesSpec
	// BlessedAt is when the baseline was blessed (zero without a baseline):
	// a change point before it is already in the baseline.
	BlessedAt time.Time
}

// SeriesSpec is one target × prompt × gated check.
type SeriesSpec struct {
	Target, Region, Prompt string
	// PromptHash, when set, keeps only runs that measured this prompt text.
	PromptHash string
	Metric     string
	Stat       stats.Stat
	// Tolerance is the check's relative tolerance, FloorMS its absolute
	// floor (ms; for a rate, tokens_per_s, in tokens/s).
	Tolerance, FloorMS float64
	// Baseline is the baseline's value of the statistic, 0 when none.
	Baseline float64
}

// Limit is τ, the factor by which the series may get worse from a level ref
// before it is a regression, as the gate computes it: compare.Threshold for
// a duration (a level above ref·τ), compare.RateThreshold for a rate where
// higher is better (a level below ref/τ).
func (s SeriesSpec) Limit(ref float64) float64 {
	if s.higherIsBetter() {
		return compare.RateThreshold(s.Tolerance, s.FloorMS, ref)
	}
	return compare.Threshold(s.Tolerance, s.FloorMS, ref)
}

func (s SeriesSpec) higherIsBetter() bool { return results.HigherIsBetter(s.Metric) }

// worse maps a value to the analysis scale: the log, negated for a rate, so
// that up is worse for every series.
func (s SeriesSpec) worse(v float64) float64 {
	if s.higherIsBetter() {
		return -math.Log(v)
	}
	return math.Log(v)
}

// natural maps a level on the analysis scale back to the statistic's unit.
func (s SeriesSpec) natural(x float64) float64 {
	if s.higherIsBetter() {
		return math.Exp(-x)
	}
	return math.Exp(x)
}

// Point is one run's value of a series.
type Point struct {
	Run    int // index of the record in the history given
	At     time.Time
	Commit string
	// CommitURL is the commit's web page ("" when the record has none).
	CommitURL string
	Value     float64 // ms (tokens/s for a rate)
	// Summary is the run's summary of the metric (every statistic: the
	// charts show P50 and P95 beside the one gated).
	Summary history.Stats
	// BlessedAt is when the baseline the run was checked against was blessed
	// (zero when the record does not say).
	BlessedAt time.Time
}

// Change is one change point.
type Change struct {
	// Index is the first point (in Series.Points) after the change.
	Index  int
	At     time.Time
	Commit string
	// Before and After are the geometric means of the segments around it,
	// in the statistic's unit.
	Before, After float64
	// Ratio is how much worse After is than Before (After/Before for a
	// duration, Before/After for a rate: above 1 is slower), with its
	// interval [Lo, Hi]: for a regression test, the interval the test
	// decided with (Level); otherwise at the options' Confidence.
	Ratio, Lo, Hi float64
	// Level is the two-sided confidence of [Lo, Hi].
	Level float64
	// Z is the change's size in standard errors (the change-point test's
	// statistic: at least the critical value for its segment).
	Z float64
	// Limit is the tolerance factor τ relative to Before.
	Limit float64
	// Tested is true for the change point whose regression was tested (the
	// newest one, unless the baseline has it); P is then the p-value of
	// "worse than the tolerance", spent over the nights after it, and Look
	// the number of runs after it that decided.
	Tested bool
	P      float64
	Look   int
	// Regression is true when the test found the change beyond the
	// tolerance at the family's false-alarm rate: the interval [Lo, Hi],
	// not the point estimate, is beyond Limit.
	Regression bool
	// Blessed is true when the baseline was blessed after the change: the
	// baseline already has it, so it fails nothing.
	Blessed bool
	// Raised is set when tonight's test did not decide the change a
	// regression but an earlier night's did: the alarm stands (see Analyze).
	Raised *Raised
}

// Drift is the current level against the baseline.
type Drift struct {
	Baseline float64
	// Current is the geometric mean of the Runs newest points after the last
	// change point.
	Current float64
	Runs    int
	// Ratio is how much worse Current is than Baseline, with its interval
	// [Lo, Hi] at Level; the interval counts the run-to-run noise of both
	// sides (the baseline is one run).
	Ratio, Lo, Hi float64
	Level         float64
	Limit         float64
	// P is the p-value of "worse than the tolerance"; Beyond is true when the
	// family's test found it so (the whole interval beyond Limit).
	P      float64
	Beyond bool
}

// Since is the current level against the series' own level when the
// baseline was blessed (see sinceBless): Level from Runs runs of the
// segment that held the first run after the bless (From–To), Current from
// Recent runs, the newest.
type Since struct {
	From, To time.Time
	Runs     int
	Level    float64
	Current  float64
	Recent   int
	// Ratio is how much worse Current is than Level, with its interval
	// [Lo, Hi] at Level (the family's); Limit is the tolerance factor.
	Ratio, Lo, Hi, Limit float64
	Confidence           float64
	P                    float64
	Beyond               bool
}

// Verdict of a series or of the whole analysis.
type Verdict string

// Verdicts, worst first.
const (
	Regressed    Verdict = "regressed"    // a regression change point not in the baseline, or a drift beyond the tolerance
	Changed      Verdict = "changed"      // a change point that is not a regression beyond the tolerance
	OK           Verdict = "ok"           // no change point, no drift
	Insufficient Verdict = "insufficient" // too few runs to say
)

func (v Verdict) rank() int {
	switch v {
	case Regressed:
		return 3
	case Changed:
		return 2
	case OK:
		return 1
	}
	return 0
}

// Series is the analysis of one SeriesSpec.
type Series struct {
	SeriesSpec
	Points []Point
	// Zeros counts runs whose value was 0 (below the timing resolution: a
	// 0 ms token gap is real, when tokens arrive together), which the log
	// scale cannot hold: they are left out of the analysis, and said so.
	Zeros   int
	Changes []Change
	// Noise is the run-to-run noise of ln(value) around the segment means
	// (Sigma, with its autocorrelation Rho); Sigma is NaN with fewer than 3
	// points.
	Noise Noise
	Drift *Drift
	// Since is the current level against the level when the baseline was
	// blessed (nil when not tested).
	Since *Since
	// Relative is the newest change point of the prompt against the other
	// prompts of its target (see relative.go; nil when not tested).
	Relative *Relative
	Verdict  Verdict
	// Why says, in one line, what decided the verdict.
	Why string
}

// Report is the whole analysis.
type Report struct {
	Series []Series
	// Knees are the targets' knees from the history's sweeps (AddKnees).
	Knees   []KneeSeries
	Verdict Verdict
	// Runs is how many records the history held.
	Runs int
	// Tests is how many regression tests the family held (a series' newest
	// change point and its drift each count), Rejected how many failed.
	Tests, Rejected int
	// Standing counts the series failed by an alarm an earlier night raised
	// (see Analyze), beyond the Rejected of tonight's family.
	Standing int
	// Headline is the change the report leads with (nil: none): the clearest
	// change point that fails its series, else the clearest change point.
	// One step of the endpoint shows in many series; their placements
	// differ by a run or two, the headline's is the best placed.
	Headline *Headline
	// Warnings are problems with the input (records out of time order).
	Warnings []string
	// Blesses are the dates baselines were blessed, oldest first: the ones
	// the records were checked against and the spec's.
	Blesses []time.Time
	Options Options
}

// Headline points at one change of a Report.
type Headline struct {
	Series, Change int // indices into Report.Series and its Changes
}

// Get returns the headline's series and change.
func (h Headline) Get(r Report) (Series, Change) {
	s := r.Series[h.Series]
	return s, s.Changes[h.Change]
}

// hypothesis is one regression test of the family.
type hypothesis struct {
	series                 int
	drift, since, relative bool
	p                      float64
	// interval returns the interval [lo, hi] (analysis scale, around the
	// estimate) at a one-sided level alpha for the family.
	interval func(alpha float64) (lo, hi float64)
}

// Analyze analyses the history records for every series of spec. Records
// are put in time order first (history.Read returns them so; a warning
// says when they were not).
//
// An alarm stands: a slowdown change point that an earlier night's
// analysis (the history as it was then) found to be a regression keeps its
// series REGRESSED while the change point is still there and not blessed,
// even when tonight's analysis alone would no longer decide it (more nights
// can widen the noise estimate). Without that, a real regression could turn
// green by itself. Each night's decision still has its false-alarm control:
// the rule only carries a raised alarm forward, so the nights on which a
// history first fails are those of the night-by-night analysis.
func Analyze(records []history.Record, spec Spec, opts Options) Report {
	opts = opts.withDefaults()
	sorted, warnings := inTimeOrder(records)
	rep := analyzeNight(sorted, spec, opts)
	rep.Runs, rep.Warnings = len(records), warnings
	standing(&rep, sorted, spec, opts)
	return rep
}

// MaxReplay is how many earlier nights Analyze re-analyses to find an
// alarm that still stands (see Analyze): an alarm raised longer ago than
// that, and no longer decided tonight, is not carried.
const MaxReplay = 30

// Raised is the night an earlier analysis found a change a regression.
type Raised struct {
	// Runs is how many runs the history held that night (the change's
	// alarm was raised when run Runs was added); At is that run's time.
	Runs int
	At   time.Time
	// Ratio, Lo, Hi and Level are the change as that night's test decided
	// it.
	Ratio, Lo, Hi, Level float64
}

// Fails reports whether the change fails its series: a regression (tonight
// or standing from an earlier night) the baseline does not have.
func (c Change) Fails() bool { return (c.Regression || c.Raised != nil) && !c.Blessed }

// standing finds, for every series whose newest change point is an
// unblessed slowdown that tonight's test did not decide, the newest earlier
// night (at most MaxReplay back) whose analysis found the same change (placed
// within MinSegment runs) a regression, and marks the series REGRESSED.
func standing(rep *Report, records []history.Record, spec Spec, opts Options) {
	type want struct {
		series, run int // the change's first run (index into records)
		rel         bool
	}
	var open []want
	first := len(records)
	for i, s := range rep.Series {
		if s.Verdict == Regressed || s.Verdict == Insufficient {
			continue
		}
		if n := len(s.Changes); n > 0 {
			if c := s.Changes[n-1]; !c.Regression && !c.Blessed && c.Ratio > 1 {
				run := s.Points[c.Index].Run
				open = append(open, want{i, run, false})
				first = min(first, run)
			}
		}
		if r := s.Relative; r != nil && !r.Regression && r.Ratio > 1 {
			run := s.Points[r.Index].Run
			open = append(open, want{i, run, true})
			first = min(first, run)
		}
	}
	if len(open) == 0 {
		return
	}
	stop := max(first+opts.MinSegment, len(records)-MaxReplay)
	for k := len(records) - 1; k >= stop && len(open) > 0; k-- {
		night := analyzeNight(records[:k], spec, opts)
		open = slices.DeleteFunc(open, func(w want) bool {
			if w.run+opts.MinSegment > k {
				return true // that night did not have the change yet: nothing raised it since
			}
			ps := night.Series[w.series]
			s := &rep.Series[w.series]
			if s.Verdict == Regressed {
				return true // raised already, by its other test
			}
			var pc, c *Change
			switch n := len(ps.Changes); {
			case w.rel && ps.Relative != nil:
				pc, c = &ps.Relative.Change, &s.Relative.Change
			case !w.rel && n > 0:
				pc, c = &ps.Changes[n-1], &s.Changes[len(s.Changes)-1]
			default:
				return false
			}
			if !pc.Regression || pc.Blessed || abs(ps.Points[pc.Index].Run-w.run) > opts.MinSegment {
				return false
			}
			c.Raised = &Raised{Runs: k, At: records[k-1].At, Ratio: pc.Ratio, Lo: pc.Lo, Hi: pc.Hi, Level: pc.Level}
			what := "regression change point"
			if w.rel {
				what += " against the other prompts"
			}
			s.Verdict, s.Why = Regressed, fmt.Sprintf("%s, raised when the history had %d runs; it stands until a bless", what, k)
			rep.Standing++
			return true
		})
	}
	if rep.Standing > 0 {
		rep.Verdict = Regressed
		rep.Headline = headline(rep.Series)
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// analyzeNight is one night's analysis of records already in time order:
// no alarm is carried from earlier nights.
func analyzeNight(records []history.Record, spec Spec, opts Options) Report {
	rep := Report{Runs: len(records), Verdict: OK, Options: opts}
	if len(records) == 0 {
		rep.Verdict = Insufficient
	}
	var hyps []hypothesis
	sp := &splitter{}
	for i, ss := range spec.Series {
		s, hs := analyse(records, ss, spec.BlessedAt, opts, sp)
		for _, h := range hs {
			h.series = i
			hyps = append(hyps, h)
		}
		rep.Series = append(rep.Series, s)
	}
	hyps = append(hyps, relatives(rep.Series, spec.BlessedAt, opts, sp)...)
	rep.Tests = len(hyps)
	rep.Rejected = decide(rep.Series, hyps, opts)
	worst := Insufficient
	for i := range rep.Series {
		s := &rep.Series[i]
		s.Verdict, s.Why = verdict(*s, opts)
		if s.Verdict.rank() > worst.rank() {
			worst = s.Verdict
		}
	}
	if len(rep.Series) > 0 {
		rep.Verdict = worst
	}
	rep.Headline = headline(rep.Series)
	rep.Blesses = blesses(records, spec.BlessedAt)
	return rep
}

// blesses returns the distinct bless dates of records and of the spec.
func blesses(records []history.Record, spec time.Time) []time.Time {
	var out []time.Time
	add := func(t time.Time) {
		if !t.IsZero() && !slices.ContainsFunc(out, t.Equal) {
			out = append(out, t.UTC())
		}
	}
	for _, r := range records {
		add(r.BlessedAt)
	}
	add(spec)
	slices.SortFunc(out, time.Time.Compare)
	return out
}

// inTimeOrder returns records sorted by time (stably), and a warning when
// they were not.
func inTimeOrder(records []history.Record) ([]history.Record, []string) {
	if slices.IsSortedFunc(records, func(a, b history.Record) int { return a.At.Compare(b.At) }) {
		return records, nil
	}
	s := slices.Clone(records)
	slices.SortStableFunc(s, func(a, b history.Record) int { return a.At.Compare(b.At) })
	return s, []string{"the records were not in time order: analysed by their times"}
}

// points extracts a series' usable points: runs that measured the prompt
// text and have the statistic; zero values are counted, not kept.
func points(records []history.Record, ss SeriesSpec, window int) (pts []Point, zeros int) {
	for i, r := range records {
		_, p := r.Find(ss.Target, ss.Region, ss.Prompt)
		if p == nil || (ss.PromptHash != "" && p.Hash != "" && p.Hash != ss.PromptHash) {
			continue
		}
		st, ok := p.Metrics[ss.Metric]
		if !ok || st.N == 0 {
			continue
		}
		v, ok := st.Get(ss.Stat)
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			continue
		}
		if v == 0 {
			zeros++
			continue
		}
		pts = append(pts, Point{Run: i, At: r.At, Commit: r.Commit, CommitURL: r.CommitURL, Value: v, Summary: st, BlessedAt: r.BlessedAt})
	}
	if len(pts) > window {
		pts = pts[len(pts)-window:]
	}
	return pts, zeros
}

func analyse(records []history.Record, ss SeriesSpec, blessedAt time.Time, opts Options, sp *splitter) (Series, []hypothesis) {
	s := Series{SeriesSpec: ss, Noise: Noise{Sigma: math.NaN()}}
	s.Points, s.Zeros = points(records, ss, opts.Window)
	n := len(s.Points)
	if n < 3 {
		return s, nil
	}
	x := make([]float64, n)
	for i, p := range s.Points {
		x[i] = ss.worse(p.Value)
	}
	var cuts []cut
	if n >= 2*opts.MinSegment {
		cuts = segment(x, opts.MinSegment, opts.Alpha, sp)
	}
	bounds := boundsOf(cuts, n)
	s.Noise = estimateNoise(x, bounds)
	if n < 2*opts.MinSegment {
		return s, nil
	}
	df := s.Noise.DF
	zc := stats.TQuantile((1-opts.Confidence)/2, df)
	var hyps []hypothesis
	for k, c := range cuts {
		lo, mid, hi := bounds[k], bounds[k+1], bounds[k+2]
		before, after := stats.Mean(x[lo:mid]), stats.Mean(x[mid:hi])
		d := after - before
		se := s.Noise.seDiff(mid-lo, hi-mid, 0)
		ch := Change{
			Index: mid, At: s.Points[mid].At, Commit: s.Points[mid].Commit,
			Before: ss.natural(before), After: ss.natural(after),
			Ratio: math.Exp(d), Lo: math.Exp(d - zc*se), Hi: math.Exp(d + zc*se), Level: opts.Confidence,
			Z: c.Z,
		}
		ch.Limit = ss.Limit(ch.Before)
		ch.Blessed = !blessedAt.IsZero() && !ch.At.After(blessedAt)
		s.Changes = append(s.Changes, ch)
	}
	if k := len(s.Changes); k > 0 && !s.Changes[k-1].Blessed && !(s.Noise.Sigma == 0) {
		h := changeTest(x, bounds, &s.Changes[k-1], s.Noise, opts.MinSegment)
		hyps = append(hyps, h)
	}
	from := bounds[len(bounds)-2] // the last segment
	k := min(opts.Recent, n-from)
	cur := stats.Mean(x[n-k:])
	if ss.Baseline > 0 {
		d := cur - ss.worse(ss.Baseline)
		// The baseline is one run: its noise is one run's, independent of
		// the newest runs'.
		se := math.Sqrt(s.Noise.varMean(k) + s.Noise.Sigma*s.Noise.Sigma)
		dr := &Drift{
			Baseline: ss.Baseline, Current: ss.natural(cur), Runs: k,
			Ratio: math.Exp(d), Lo: math.Exp(d - zc*se), Hi: math.Exp(d + zc*se), Level: opts.Confidence,
			Limit: ss.Limit(ss.Baseline),
		}
		dr.P = pWorse(d, math.Log(dr.Limit), se, df)
		s.Drift = dr
		hyps = append(hyps, hypothesis{drift: true, p: dr.P, interval: func(a float64) (float64, float64) {
			t := stats.TQuantile(a, df)
			return d - t*se, d + t*se
		}})
	}
	if h, ok := sinceBless(&s, x, bounds, k, blessedAt, opts); ok {
		hyps = append(hyps, h)
	}
	return s, hyps
}

// sinceBless tests the series' current level against the level it had
// when the baseline was blessed — in the segment holding the first run after
// the bless (the first segment without a baseline): a slow drift that
// E-divisive cuts into steps, each within the tolerance, adds up here, and
// one it has not cut at all shows as the slope of the segment's line. The
// level at the bless is that segment's line at its first run after the
// bless, the current level the newest segment's line at the newest run,
// where the segment is long and its slope clear; elsewhere a mean: of the
// segment from the bless, and of the whole newest segment when a change
// point follows the bless (every run E-divisive placed after the change,
// not only the k newest: on a step's 6th to 9th night the steadier level,
// #30), else of the k newest runs. When no change point follows the bless,
// both come from the one segment's line.
// The standard error is the contrast's under the AR(1) noise. It is not
// tested when the runs are too few.
func sinceBless(s *Series, x []float64, bounds []int, k int, blessedAt time.Time, opts Options) (hypothesis, bool) {
	n := len(x)
	first := 0
	if !blessedAt.IsZero() {
		first = slices.IndexFunc(s.Points, func(p Point) bool { return p.At.After(blessedAt) })
		if first < 0 {
			return hypothesis{}, false
		}
	}
	seg := 0 // the segment holding point first
	for seg+2 < len(bounds) && bounds[seg+1] <= first {
		seg++
	}
	last := len(bounds) - 2
	lo := max(bounds[seg], first)
	var ref, cur []float64 // weights: ref·x is the level at the bless, cur·x the current one
	var refRuns, curRuns int
	// trended is the weights of the segment [a, b)'s line at e when the
	// segment is long and its slope clear (the line there differs from the
	// segment's mean by more than twice that difference's standard error):
	// a drifting segment's mean lags, a flat one's line is only noisier.
	trended := func(a, b, e int) []float64 {
		if b-a < lineSteadier {
			return nil
		}
		line, avg := fittedAt(n, a, b, e), meanOf(n, a, b)
		diff := make([]float64, n)
		for i := range diff {
			diff[i] = line[i] - avg[i]
		}
		if v := s.Noise.contrastVar(diff); v > 0 && math.Abs(dot(diff, x)) > 2*math.Sqrt(v) {
			return line
		}
		return nil
	}
	if seg == last {
		if ref, cur = trended(lo, n, lo), trended(lo, n, n-1); ref != nil {
			refRuns, curRuns = n-lo, n-lo
		}
	} else {
		ref, refRuns = trended(lo, bounds[seg+1], lo), bounds[seg+1]-lo
		from := bounds[last]
		cur, curRuns = trended(from, n, n-1), n-from
	}
	if ref == nil {
		hi := min(bounds[seg+1], n-k)
		if hi-lo < opts.MinSegment {
			return hypothesis{}, false
		}
		ref, refRuns = meanOf(n, lo, hi), hi-lo
	}
	if cur == nil && seg != last {
		from := bounds[last]
		cur, curRuns = meanOf(n, from, n), n-from
	}
	if cur == nil {
		cur, curRuns = meanOf(n, n-k, n), k
	}
	w := make([]float64, n)
	for i := range w {
		w[i] = cur[i] - ref[i]
	}
	lr, lc := dot(ref, x), dot(cur, x)
	d := lc - lr
	se := math.Sqrt(s.Noise.contrastVar(w))
	lim := math.Log(s.Limit(s.natural(lr)))
	df := s.Noise.DF
	p := pWorse(d, lim, se, df)
	refLast := lo + refRuns - 1
	s.Since = &Since{
		From: s.Points[lo].At, To: s.Points[refLast].At, Runs: refRuns, Level: s.natural(lr), Current: s.natural(lc), Recent: curRuns,
		Ratio: math.Exp(d), Limit: math.Exp(lim), P: p,
	}
	return hypothesis{since: true, p: p, interval: func(a float64) (float64, float64) {
		t := stats.TQuantile(a, df)
		return d - t*se, d + t*se
	}}, true
}

// lineSteadier is the fewest runs of a segment whose line at its newest run
// is a steadier current level than the mean of the newest Recent runs (the
// line's end has variance ≈ 4σ²/m; a mean of 5, σ²/5) and does not lag a
// drift.
const lineSteadier = 10

// meanOf returns weights (over n points) that take the mean of [lo, hi).
func meanOf(n, lo, hi int) []float64 {
	w := make([]float64, n)
	for i := lo; i < hi; i++ {
		w[i] = 1 / float64(hi-lo)
	}
	return w
}

// fittedAt returns weights (over n points) that give the least-squares line
// of [lo, hi) at point e.
func fittedAt(n, lo, hi, e int) []float64 {
	w := make([]float64, n)
	var basis [2][]float64
	for _, q := range fitBasis(hi-lo, fitLine, &basis) {
		qe := q[e-lo]
		for i := range q {
			w[lo+i] += qe * q[i]
		}
	}
	return w
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// changeTest is the regression test of change c (the newest, not blessed):
// is its after-level worse than the tolerance from its before-level? It
// looks at the change on a schedule fixed when the change is placed — with
// minSeg runs after it, then about √2 times as many each look (lookRuns: 3,
// 5, 6, 9, 12, 17, 24, 34, 48 runs for minSeg 3), two looks per doubling —
// and spends the test's level over those looks, half on the first, a
// quarter on the second, and so on (a Bonferroni split that sums to the
// level however many nights follow): the p-value is min over looks of
// p(look)·2^look. A look on every night spent the level on tests that
// nearly repeat each other (the 7th night's mean shares 6 of its 7 runs
// with the 6th's), so the evidence of later nights came at 1/32 of it and
// less; on the schedule the 7th night is read at 1/8 (#30). A change that
// crossed stays crossed on later nights, and one that did not cannot be
// re-rolled into an alarm by a night's noise.
func changeTest(x []float64, bounds []int, c *Change, nz Noise, minSeg int) hypothesis {
	j := c.Index
	i := slices.Index(bounds, j)
	lo, hi := bounds[i-1], bounds[i+1]
	before := stats.Mean(x[lo:j])
	lim := math.Log(c.Limit)
	best, bestRuns, bestLook := math.Inf(1), 0, 0
	var bestD, bestSE float64
	k := 0
	for look := 1; ; look++ {
		k = nextLook(k, minSeg, look)
		if j+k > hi || look > 50 {
			break // no such night yet; or 2^-50 of the level: nothing left to spend
		}
		d := stats.Mean(x[j:j+k]) - before
		se := nz.seDiff(j-lo, k, 0)
		p := pWorse(d, lim, se, nz.DF) * math.Ldexp(1, look)
		if p < best {
			best, bestRuns, bestD, bestSE, bestLook = p, k, d, se, look
		}
	}
	c.Tested, c.P, c.Look = true, min(1, best), bestRuns
	look := bestLook
	d, se, df := bestD, bestSE, nz.DF
	return hypothesis{p: c.P, interval: func(a float64) (float64, float64) {
		t := stats.TQuantile(a*math.Ldexp(1, -look), df)
		return d - t*se, d + t*se
	}}
}

// lookRuns is how many runs after a change its look number look (from 1)
// reads: minSeg·√2^(look−1), rounded up, and at least one run more than
// the look before it (for a small minSeg the rounding would repeat a look
// and spend level on a test already made).
func lookRuns(minSeg, look int) int {
	k := 0
	for l := 1; l <= look; l++ {
		k = nextLook(k, minSeg, l)
	}
	return k
}

// nextLook is lookRuns(minSeg, look) from prev, lookRuns(minSeg, look−1).
func nextLook(prev, minSeg, look int) int {
	return max(prev+1, int(math.Ceil(float64(minSeg)*math.Pow(math.Sqrt2, float64(look-1))-1e-9)))
}

// pWorse is the one-sided p-value of "the change d (analysis scale) is
// worse than lim", for an estimate with standard error se (Student's t
// with df degrees of freedom: the noise is estimated).
func pWorse(d, lim, se float64, df int) float64 {
	switch {
	case se == 0 && d > lim:
		return 0
	case se == 0 || math.IsNaN(se):
		return 1
	}
	return stats.TSF((d-lim)/se, df)
}

// decide runs the Benjamini–Hochberg procedure at opts.FalseAlarm over the
// family's tests, marks the rejected ones (a regression change point, a
// drift beyond the tolerance) and sets the intervals of the tested changes
// and drifts to the level the procedure used. It returns how many it
// rejected.
func decide(series []Series, hyps []hypothesis, opts Options) int {
	m := len(hyps)
	if m == 0 {
		return 0
	}
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmpFloat(hyps[a].p, hyps[b].p) })
	rejected := 0
	for r := m; r >= 1; r-- {
		if hyps[order[r-1]].p <= opts.FalseAlarm*float64(r)/float64(m) {
			rejected = r
			break
		}
	}
	// The one-sided level each test was judged at: the procedure's final
	// threshold (for the first test when nothing was rejected).
	level := opts.FalseAlarm * float64(max(rejected, 1)) / float64(m)
	for rank, hi := range order {
		h := hyps[hi]
		s := &series[h.series]
		lo, up := h.interval(level)
		reject := rank < rejected
		switch {
		case h.drift:
			d := s.Drift
			d.Lo, d.Hi, d.Level, d.Beyond = math.Exp(lo), math.Exp(up), 1-2*level, reject
			continue
		case h.since:
			d := s.Since
			d.Lo, d.Hi, d.Confidence, d.Beyond = math.Exp(lo), math.Exp(up), 1-2*level, reject
			continue
		}
		var c *Change // the change tested: the series' newest, or against the other prompts
		if h.relative {
			c = &s.Relative.Change
		} else {
			c = &s.Changes[len(s.Changes)-1]
		}
		c.Lo, c.Hi, c.Level, c.Regression = math.Exp(lo), math.Exp(up), 1-2*level, reject
	}
	return rejected
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// verdict decides a series: regressed when its newest change point is a
// regression the baseline does not have, or when the current level is
// beyond the tolerance from the baseline.
func verdict(s Series, opts Options) (Verdict, string) {
	n := len(s.Points)
	var last *Change
	if len(s.Changes) > 0 {
		last = &s.Changes[len(s.Changes)-1]
	}
	switch {
	case n < 2*opts.MinSegment:
		// Neither a change point nor the noise of the series (which the
		// drift's interval needs) can be told from fewer runs.
		why := fmt.Sprintf("%d runs: a verdict needs %d", n, 2*opts.MinSegment)
		if s.Zeros > 0 {
			why += fmt.Sprintf(" (%d more at 0, below the timing resolution, are not analysed)", s.Zeros)
		}
		return Insufficient, why
	case last != nil && last.Regression && !last.Blessed:
		return Regressed, "regression change point"
	case s.Drift != nil && s.Drift.Beyond:
		return Regressed, "drift beyond the tolerance"
	case s.Since != nil && s.Since.Beyond:
		return Regressed, "drift since the bless beyond the tolerance"
	case s.Relative != nil && s.Relative.Regression:
		return Regressed, "regression change point against the other prompts"
	case last != nil:
		return Changed, "change point"
	}
	return OK, "no change"
}

func headline(series []Series) *Headline {
	var best *Headline
	bestRank, bestZ := 0, 0.0
	for i, s := range series {
		for j, c := range s.Changes {
			rank := 1
			if j == len(s.Changes)-1 && c.Fails() && s.Verdict == Regressed {
				rank = 2 // the change that fails its series
			}
			if rank > bestRank || rank == bestRank && c.Z > bestZ {
				best, bestRank, bestZ = &Headline{i, j}, rank, c.Z
			}
		}
	}
	return best
}
