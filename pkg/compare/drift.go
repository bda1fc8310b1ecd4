package compare

import (
	"cmp"
	"slices"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// A baseline worth keeping describes one steady endpoint. A run that
// drifted while it was measured (a cold start that took minutes, a noisy
// neighbour arriving halfway, a deploy) makes a baseline whose spread is the
// drift: its P95 far above its P50, every later check "improved", and a real
// tail regression hidden inside its width. SelfDrift holds a run to its own
// gate: the first half of each prompt's requests as the baseline, the second
// half as the run. A change the gate would call a regression or an
// improvement between two runs is one within this run.

// SelfDrift compares, for each target × prompt of s, the first half of its
// samples (in request order, Seq) with the second half, by Compare and the
// relative checks of gate (absolute limits judge a run, not a change), and
// returns the checks and aggregates that regressed or improved between the
// halves, the largest change first. Baseline is then the first half's
// statistic, Current the second's. Prompts with fewer than two samples are
// left out.
func SelfDrift(s Side, gate config.Gate) []Check {
	first, second := halves(s)
	g := gate
	g.DayToDay = 0     // the halves are one run: no day between them
	g.OkConfidence = 0 // an improvement between the halves is as sure as a regression
	g.Checks = nil
	for _, c := range gate.Checks {
		if c.MaxOnly {
			continue
		}
		c.Max = 0
		g.Checks = append(g.Checks, c)
	}
	if len(g.Checks) == 0 {
		return nil
	}
	rep := Compare(first, second, g)
	var out []Check
	for _, c := range append(rep.Checks, rep.Aggregates...) {
		if c.Rule() != RuleLimit && (c.Verdict == Regressed || c.Verdict == Improved) {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b Check) int { return cmp.Compare(distance(b.Ratio), distance(a.Ratio)) })
	return out
}

// DriftRefusal is how large a drift within one run makes it no baseline at
// all: the whole interval of a check's ratio between the halves beyond ×3
// (or below ×⅓). A smaller drift that the gate still calls a change is
// worth a warning, not a refusal: a busy machine moves a TTFT by a third,
// and this suite's own blesses of the in-process simulator, on a 2-core
// machine shared by six test runs, saw it double. A tripling within
// minutes is not noise but another endpoint (the cold start was
// 47× its P50 at the P95).
const DriftRefusal = 3.0

// Severe returns the drift of SelfDrift that is DriftRefusal or larger,
// beyond doubt: the interval's nearer bound past ×3 or ×⅓. A check decided
// on the difference (a half's statistic reaches 0 ms: tokens that share a
// socket read, as on a busy machine) has no ratio to be ×3 of, and its
// bounds are milliseconds: it is drift to warn about, never a refusal.
func Severe(drift []Check) []Check {
	var out []Check
	for _, c := range drift {
		if c.Scale == ScaleDifference {
			continue
		}
		if c.Lo >= DriftRefusal || c.Hi > 0 && c.Hi <= 1/DriftRefusal {
			out = append(out, c)
		}
	}
	return out
}

// distance is how far a ratio is from no change, either way: 2× and ½× alike.
func distance(r float64) float64 {
	if r <= 0 {
		return 0
	}
	return max(r, 1/r)
}

// halves splits every prompt's samples of s, in request order, into its
// first and second half (the middle sample of an odd count goes to the
// second).
func halves(s Side) (first, second Side) {
	first.Run, second.Run = s.Run, s.Run
	for _, t := range s.Targets {
		a, b := t, t
		a.Prompts, b.Prompts = nil, nil
		for _, p := range t.Prompts {
			if len(p.Samples) < 2 {
				continue
			}
			ordered := slices.SortedStableFunc(slices.Values(p.Samples), func(x, y results.Sample) int { return cmp.Compare(x.Seq, y.Seq) })
			n := len(ordered) / 2
			pa, pb := p, p
			pa.Samples, pb.Samples = ordered[:n], ordered[n:]
			pa.Requests, pb.Requests = n, len(ordered)-n
			pa.Errors, pb.Errors, pa.Failures, pb.Failures = 0, 0, nil, nil
			pa.Metrics, pb.Metrics = results.MetricsOf(pa.Samples), results.MetricsOf(pb.Samples)
			a.Prompts, b.Prompts = append(a.Prompts, pa), append(b.Prompts, pb)
		}
		first.Targets, second.Targets = append(first.Targets, a), append(second.Targets, b)
	}
	return first, second
}
