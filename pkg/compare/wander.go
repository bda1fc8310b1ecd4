package compare

import (
	"cmp"
	"math"
	"slices"

	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

// # Requests that are not independent (#29)
//
// The intervals take a side's requests as independent draws. A server whose
// state drifts within a run — a level that wanders from request to request
// (a neighbour's load, a filling KV cache, throttling) — makes consecutive
// requests alike, and the run's average then carries that wander: its
// variance is larger than independent requests give, and an interval from
// the independent rate is too narrow (#29 measured 5.5% false regressions
// at 2 prompts). The gate measures it on each side, per target × metric,
// from the target's requests in arrival order (Seq, across its prompts):
// each request's log value less its prompt's median, in wanderBatches
// consecutive batches. Independent requests give batch means whose
// variance is the requests' over the batch size; when it is above that at
// one-sided level wanderAlpha (a χ² test on the batches), the excess
// (batch-means variance of the run's mean less the independent rate) is a
// run-level noise, shared by every prompt of the target as the day's level
// is, and joins every relative interval of that metric: prompt checks and
// the pooled check alike. It shrinks as the run grows (more requests
// average more of the wander), so more requests still decide. A pooled
// check does not cancel it, and a prompt's distance from its pool does not
// see it (shared by the pool).

const (
	// wanderBatches is the number of consecutive batches a side's requests
	// are cut into.
	wanderBatches = 8
	// wanderAlpha is the one-sided level of the test that the batches vary
	// more than independent requests would: a side of independent requests
	// gets a run-level noise in about 1% of runs per metric (and then a
	// small one).
	wanderAlpha = 0.01
	// wanderMinRequests is the fewest requests (of a target, with the
	// metric) the test is made on: five a batch.
	wanderMinRequests = 5 * wanderBatches
	// wanderClip bounds a request's residual at this many robust standard
	// deviations (1.4826 × MAD) from the median, so that a rare spike
	// (a cold cache, a retry) weighs as one large value, not as a batch's
	// level.
	wanderClip = 3.0
)

// Wander is the run-level noise of one side's target and metric: the
// variance (log units²) of the run's mean level beyond independent
// requests (0: none found), and its ratio to that rate (Inflation: how many
// times the independent variance of the run's mean it is).
type Wander struct {
	Excess    float64
	Inflation float64
}

// wandersOf measures t's run-level noise for each of metrics (see the
// section comment). The target's requests are tested once, over its
// metrics (each metric's batch test at wanderAlpha / len(metrics), the
// target found when one is beyond it: a wandering server moves all of its
// latencies, and a metric whose own requests are noisier, as TTFT, shows
// it less clearly than another); a target found gets each metric's excess
// as measured (none where its batches vary less than independent ones),
// a target not found none. Fewer than wanderMinRequests requests with a
// metric give that metric nothing.
func wandersOf(t results.Target, metrics []string) map[string]Wander {
	out := map[string]Wander{}
	found := false
	crit := batchCritical(wanderBatches, wanderAlpha/float64(max(len(metrics), 1)))
	for _, m := range metrics {
		w := batchExcess(relLevels(t, m), wanderBatches)
		out[m] = w
		found = found || w.Inflation > crit
	}
	for m, w := range out {
		if !found || w.Excess <= 0 {
			out[m] = Wander{}
		}
	}
	return out
}

// relLevels is t's requests' log value of metric less their prompt's
// median (relLog), in arrival order (Seq) across its prompts, winsorised
// (wanderClip); nil with fewer than wanderMinRequests.
func relLevels(t results.Target, metric string) []float64 {
	type req struct {
		seq int
		rel float64
	}
	var reqs []req
	for _, p := range t.Prompts {
		relLog(p, metric, func(s results.Sample, rel float64) { reqs = append(reqs, req{s.Seq, rel}) })
	}
	if len(reqs) < wanderMinRequests {
		return nil
	}
	slices.SortStableFunc(reqs, func(a, b req) int { return cmp.Compare(a.seq, b.seq) })
	rel := make([]float64, len(reqs))
	for i, r := range reqs {
		rel[i] = r.rel
	}
	clip(rel, wanderClip)
	return rel
}

// requestLevel is a request's log value of metric: the per-request value,
// or for itl the log of its mean gap; ok is false when it has none (or it
// is not positive).
func requestLevel(s *results.Sample, metric string) (float64, bool) {
	var v float64
	switch {
	case metric == results.ITL:
		if len(s.ITL) == 0 {
			return 0, false
		}
		for _, g := range s.ITL {
			v += g
		}
		v /= float64(len(s.ITL))
	case results.Has(s, metric):
		v = results.Value(s, metric)
	default:
		return 0, false
	}
	if !(v > 0) || math.IsInf(v, 0) {
		return 0, false
	}
	return math.Log(v), true
}

// clip winsorises xs in place at k robust standard deviations (1.4826 ×
// the median absolute deviation) from their median.
func clip(xs []float64, k float64) {
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	mid := stats.Median(sorted)
	for i, x := range sorted {
		sorted[i] = math.Abs(x - mid)
	}
	slices.Sort(sorted)
	s := 1.4826 * stats.Median(sorted)
	if !(s > 0) {
		return
	}
	lo, hi := mid-k*s, mid+k*s
	for i, x := range xs {
		xs[i] = min(max(x, lo), hi)
	}
}

// batchExcess cuts xs (in order) into b consecutive batches of equal size
// (the first len(xs) mod b values left out) and compares the variance of
// their means with what independent values give: Inflation is L·S²_means /
// s² (about 1 for independent values; (b − 1)·Inflation is then χ²_{b−1}),
// Excess the batch-means variance of the mean of xs less the independent
// rate s²/n, 0 when not above. A pure function of xs.
func batchExcess(xs []float64, b int) Wander {
	l := len(xs) / max(b, 1)
	if b < 2 || l < 2 {
		return Wander{}
	}
	xs = xs[len(xs)-b*l:]
	n := float64(len(xs))
	var mean float64
	for _, x := range xs {
		mean += x
	}
	mean /= n
	var ss, sb float64 // the values' sum of squares, the batch means'
	for j := range b {
		var m float64
		for _, x := range xs[j*l : (j+1)*l] {
			m += x
			ss += (x - mean) * (x - mean)
		}
		m /= float64(l)
		sb += (m - mean) * (m - mean)
	}
	s2 := ss / (n - 1)
	if !(s2 > 0) {
		return Wander{}
	}
	varMeans := sb / float64(b-1) // of one batch's mean
	vbm, viid := varMeans/float64(b), s2/n
	return Wander{Excess: max(vbm-viid, 0), Inflation: vbm / viid}
}

// batchCritical is the Inflation beyond which b batches vary more than
// independent values at one-sided level alpha: χ²_{b−1}(1 − α)/(b − 1).
func batchCritical(b int, alpha float64) float64 {
	return stats.Chi2Quantile(1-alpha, float64(b-1)) / float64(b-1)
}

// wanderWarnings is the warning of a side's run-level noise on target t:
// one, naming the metric whose run mean it inflates most, when it has any;
// side is "baseline" or "" for the run.
func wanderWarnings(t results.Target, metrics []string, side string, ws map[string]Wander, nameTarget bool) []Warning {
	worst := ""
	for _, m := range metrics {
		if ws[m].Excess > 0 && (worst == "" || ws[m].Inflation > ws[worst].Inflation) {
			worst = m
		}
	}
	if worst == "" {
		return nil
	}
	return []Warning{{Kind: WarnCorrelated, Side: side, Target: t.Name, Region: t.Region, NameTarget: nameTarget,
		Metric: worst, Ratio: ws[worst].Inflation}}
}

// relativeMetrics is the metrics of checks decided on the relative scale
// (not limits alone), each once, in order.
func relativeMetrics(checks []parsedCheck) []string {
	var out []string
	for _, pc := range checks {
		if !pc.c.MaxOnly && !slices.Contains(out, pc.c.Metric) {
			out = append(out, pc.c.Metric)
		}
	}
	return out
}
