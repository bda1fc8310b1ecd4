package trend

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/history"
	"github.com/latgate/latgate/pkg/stats"
)

// Defaults of Options.
const (
	DefaultWindow       = 60
	DefaultPermutations = 199
	DefaultAlpha        = 0.01
	DefaultMinSegment   = 3
	DefaultRecent       = 5
)

// Options tune the analysis. Zero values take the defaults.
type Options struct {
	// Window is how many of the newest usable runs each series analyses.
	Window int
	// Permutations and Alpha make the change-point test: a split is a change
	// point when at most Alpha of the shuffled series split as well.
	Permutations int
	Alpha        float64
	// MinSegment is the fewest runs on each side of a change point: a change
	// is placed only after that many runs show it.
	MinSegment int
	// Recent is how many of the newest runs (after the last change point)
	// measure the current level for the drift from the baseline.
	Recent int
	// Confidence of the intervals (default 0.95).
	Confidence float64
	Seed       uint64
}

func (o Options) withDefaults() Options {
	if o.Window <= 0 {
		o.Window = DefaultWindow
	}
	if o.Permutations <= 0 {
		o.Permutations = DefaultPermutations
	}
	if o.Alpha <= 0 {
		o.Alpha = DefaultAlpha
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
	// Tolerance is the check's relative tolerance, Floor its absolute floor (ms).
	Tolerance, FloorMS float64
	// Baseline is the baseline's value of the statistic (ms), 0 when none.
	Baseline float64
}

// Limit is τ, the ratio beyond which a level above ref is a regression:
// compare.Threshold, the gate's own rule.
func (s SeriesSpec) Limit(ref float64) float64 {
	return compare.Threshold(s.Tolerance, s.FloorMS, ref)
}

// Point is one run's value of a series.
type Point struct {
	Run    int // index of the record in the history given
	At     time.Time
	Commit string
	Value  float64 // ms
}

// Change is one change point.
type Change struct {
	// Index is the first point (in Series.Points) after the change.
	Index  int
	At     time.Time
	Commit string
	// Before and After are the geometric means of the segments around it (ms).
	Before, After float64
	// Ratio is After/Before with its interval [Lo, Hi] at the confidence.
	Ratio, Lo, Hi float64
	P             float64 // permutation p-value
	// Z is |ln Ratio| in standard errors: how clearly the series shows it.
	Z float64
	// Limit is the tolerance ratio τ relative to Before.
	Limit float64
	// Regression is a slowdown beyond the tolerance (Ratio > Limit).
	Regression bool
	// Blessed is true when the baseline was blessed after the change: the
	// baseline already has it, so it fails nothing.
	Blessed bool
}

// Drift is the current level against the baseline.
type Drift struct {
	Baseline float64 // ms
	// Current is the geometric mean of the Runs newest points after the last
	// change point (ms).
	Current float64
	Runs    int
	// Ratio is Current/Baseline with its interval [Lo, Hi]; the interval
	// counts the night-to-night noise of both sides (the baseline is one run).
	Ratio, Lo, Hi float64
	Limit         float64
	// Beyond is true when the whole interval is above Limit.
	Beyond bool
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
	Points  []Point
	Changes []Change
	// Noise is the night-to-night standard deviation of ln(value), from the
	// median absolute difference of consecutive runs (robust to steps and
	// slow drift); NaN with fewer than 3 points.
	Noise   float64
	Drift   *Drift
	Verdict Verdict
	// Why says, in one line, what decided the verdict.
	Why string
}

// Report is the whole analysis.
type Report struct {
	Series  []Series
	Verdict Verdict
	// Runs is how many records the history held, Used how many were analysed.
	Runs int
	// Headline is the change the report leads with (nil: none): the clearest
	// change point that fails its series (the newest of the series, a
	// regression the baseline does not have), else the clearest change point. One step of the endpoint shows in many series; their
	// placements differ by a run or two, the headline's is the best placed.
	Headline *Headline
	Warnings []string
	Options  Options
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

// Analyze analyses the history records (oldest first) for every series of spec.
func Analyze(records []history.Record, spec Spec, opts Options) Report {
	opts = opts.withDefaults()
	rep := Report{Runs: len(records), Verdict: OK, Options: opts}
	if len(records) == 0 {
		rep.Verdict = Insufficient
	}
	worst := Insufficient
	for _, ss := range spec.Series {
		s := analyse(records, ss, spec.BlessedAt, opts)
		if s.Verdict.rank() > worst.rank() {
			worst = s.Verdict
		}
		rep.Series = append(rep.Series, s)
	}
	if len(rep.Series) > 0 {
		rep.Verdict = worst
	}
	rep.Headline = headline(rep.Series)
	return rep
}

func analyse(records []history.Record, ss SeriesSpec, blessedAt time.Time, opts Options) Series {
	s := Series{SeriesSpec: ss, Noise: math.NaN()}
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
		if !ok || !(v > 0) || math.IsInf(v, 0) {
			continue
		}
		s.Points = append(s.Points, Point{Run: i, At: r.At, Commit: r.Commit, Value: v})
	}
	if len(s.Points) > opts.Window {
		s.Points = s.Points[len(s.Points)-opts.Window:]
	}
	n := len(s.Points)
	if n < 3 {
		s.Verdict, s.Why = Insufficient, fmt.Sprintf("%d runs: a verdict needs %d", n, 2*opts.MinSegment)
		return s
	}
	x := make([]float64, n)
	for i, p := range s.Points {
		x[i] = math.Log(p.Value)
	}
	s.Noise = noise(x)
	z := zQuantile(opts.Confidence)
	rng := rand.New(rand.NewPCG(opts.Seed, keyHash(ss)))
	splits := eDivisive(x, opts.MinSegment, opts.Permutations, opts.Alpha, rng)
	bounds := append([]int{0}, indices(splits)...)
	bounds = append(bounds, n)
	for k, sp := range splits {
		lo, mid, hi := bounds[k], bounds[k+1], bounds[k+2]
		before, after := mean(x[lo:mid]), mean(x[mid:hi])
		se := s.Noise * math.Sqrt(1/float64(mid-lo)+1/float64(hi-mid))
		c := Change{
			Index: mid, At: s.Points[mid].At, Commit: s.Points[mid].Commit,
			Before: math.Exp(before), After: math.Exp(after),
			Ratio: math.Exp(after - before), Lo: math.Exp(after - before - z*se), Hi: math.Exp(after - before + z*se),
			P: sp.P, Z: math.Abs(after-before) / se,
		}
		c.Limit = ss.Limit(c.Before)
		c.Regression = c.Ratio > c.Limit
		c.Blessed = !blessedAt.IsZero() && !c.At.After(blessedAt)
		s.Changes = append(s.Changes, c)
	}
	if ss.Baseline > 0 {
		from := bounds[len(bounds)-2] // the last segment
		k := min(opts.Recent, n-from)
		cur := mean(x[n-k:])
		d := cur - math.Log(ss.Baseline)
		se := s.Noise * math.Sqrt(1/float64(k)+1)
		s.Drift = &Drift{
			Baseline: ss.Baseline, Current: math.Exp(cur), Runs: k,
			Ratio: math.Exp(d), Lo: math.Exp(d - z*se), Hi: math.Exp(d + z*se),
			Limit: ss.Limit(ss.Baseline),
		}
		s.Drift.Beyond = s.Drift.Lo > s.Drift.Limit
	}
	s.Verdict, s.Why = verdict(s, n, opts)
	return s
}

// verdict decides a series: regressed when its newest change point is a
// regression the baseline does not have, or when the current level is
// beyond the tolerance from the baseline.
func verdict(s Series, n int, opts Options) (Verdict, string) {
	var last *Change
	if len(s.Changes) > 0 {
		last = &s.Changes[len(s.Changes)-1]
	}
	switch {
	case n < 2*opts.MinSegment:
		// Neither a change point nor the noise of the series (which the
		// drift's interval needs) can be told from fewer runs.
		return Insufficient, fmt.Sprintf("%d runs: a verdict needs %d", n, 2*opts.MinSegment)
	case last != nil && last.Regression && !last.Blessed:
		return Regressed, "regression change point"
	case s.Drift != nil && s.Drift.Beyond:
		return Regressed, "drift beyond the tolerance"
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
			if j == len(s.Changes)-1 && c.Regression && !c.Blessed && s.Verdict == Regressed {
				rank = 2 // the change that fails its series
			}
			if rank > bestRank || rank == bestRank && c.Z > bestZ {
				best, bestRank, bestZ = &Headline{i, j}, rank, c.Z
			}
		}
	}
	return best
}

func indices(ss []Split) []int {
	out := make([]int, len(ss))
	for i, s := range ss {
		out[i] = s.Index
	}
	return out
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// noise estimates σ of a series from its consecutive differences: for
// independent noise, |x[i+1]−x[i]| has median 0.6745·√2·σ; a step or a slow
// drift moves few differences, so it barely moves the median.
func noise(x []float64) float64 {
	if len(x) < 3 {
		return math.NaN()
	}
	d := make([]float64, len(x)-1)
	for i := range d {
		d[i] = math.Abs(x[i+1] - x[i])
	}
	return median(d) / (0.6744897501960817 * math.Sqrt2)
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// zQuantile is the two-sided normal quantile of a confidence level: 1.96 at 95%.
func zQuantile(conf float64) float64 { return math.Sqrt2 * math.Erfinv(conf) }

func keyHash(s SeriesSpec) uint64 {
	h := fnv.New64a()
	for _, part := range []string{s.Target, s.Region, s.Prompt, s.Metric, s.Stat.String()} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return h.Sum64()
}
