package compare

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

var ttftP50 = config.Check{Metric: results.TTFT, Stat: "p50", Tolerance: config.Tolerance{Rel: 0.15, Floor: 20 * time.Millisecond}}

func gateWith(checks ...config.Check) config.Gate {
	return config.Gate{Confidence: 0.95, Resamples: 2000, Seed: 1, Checks: checks}
}

// only returns the one check of the report for prompt id.
func only(t *testing.T, r Report, id string) Check {
	t.Helper()
	var found []Check
	for _, c := range r.Checks {
		if c.Prompt == id {
			found = append(found, c)
		}
	}
	if len(found) != 1 {
		t.Fatalf("report has %d checks for prompt %q, want 1: %+v", len(found), id, r.Checks)
	}
	return found[0]
}

func TestDecisionRule(t *testing.T) {
	ttftP95 := config.Check{Metric: results.TTFT, Stat: "p95", Tolerance: config.Tolerance{Rel: 0.25, Floor: 40 * time.Millisecond}}
	tests := []struct {
		name      string
		base, cur []float64
		check     config.Check
		want      Verdict
		why       func(Check) bool // what the verdict rests on (nil: the interval against the tolerance)
	}{
		{"clear regression", grid(200, 400, 0.3, 1), grid(200, 400, 0.3, 1.6), ttftP50, Regressed, nil},
		{"clear improvement", grid(200, 400, 0.3, 1), grid(200, 400, 0.3, 0.5), ttftP50, Improved, nil},
		{"unchanged, enough requests", grid(300, 400, 0.3, 1), grid(300, 400, 0.3, 1), ttftP50, OK, nil},
		{"shift exactly at tolerance straddles it", grid(200, 400, 0.3, 1), grid(200, 400, 0.3, 1.15), ttftP50, Inconclusive,
			func(c Check) bool { return c.Lo <= c.Threshold && c.Threshold < c.Hi }},
		// The two-sided rule at 95%: p95 needs 72 values a side, p50 6.
		{"p95 with 71 requests is unresolved", grid(71, 400, 0.3, 1), grid(71, 400, 0.3, 2), ttftP95, Inconclusive, unresolvedAt(71, 72)},
		// Woodruff's interval reaches past the largest value until
		// n(1−p) > z²p: 73 at 95%.
		{"p95 with 72 requests has no upper bound", grid(72, 400, 0.3, 1), grid(72, 400, 0.3, 2), ttftP95, Inconclusive,
			func(c Check) bool { return c.Resolved() && c.Lo == 0 && c.Hi == 0 }},
		{"p95 with 80 requests is resolved", grid(80, 400, 0.3, 1), grid(80, 400, 0.3, 2), ttftP95, Regressed, nil},
		{"p50 with 5 requests is unresolved", grid(5, 400, 0.3, 1), grid(5, 400, 0.3, 3), ttftP50, Inconclusive, unresolvedAt(5, 6)},
		{"+100% under the absolute floor is not a regression", grid(200, 2, 0.1, 1), grid(200, 2, 0.1, 2), ttftP50, OK,
			func(c Check) bool { _, unit, sets := c.FloorSets(); return sets && unit == "ms" }},
		{"mean", grid(200, 400, 0.3, 1), grid(200, 400, 0.3, 1.6), config.Check{Metric: results.TTFT, Stat: "mean", Tolerance: ttftP50.Tolerance}, Regressed, nil},
		{"no current values", grid(50, 400, 0.3, 1), nil, ttftP50, Inconclusive, func(c Check) bool { return c.NCur == 0 && c.NBase == 50 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Compare(side(prompt("a", ttftSamples(tt.base...))), side(prompt("a", ttftSamples(tt.cur...))), gateWith(tt.check))
			c := only(t, r, "a")
			if c.Verdict != tt.want || tt.why != nil && !tt.why(c) {
				t.Errorf("verdict %s (%+v), want %s for its stated reason", c.Verdict, c, tt.want)
			}
			if r.Verdict != tt.want {
				t.Errorf("report verdict %s, want %s", r.Verdict, tt.want)
			}
			if c.NBase > 0 && c.NCur > 0 && c.Resolved() && c.Hi > 0 && !(c.Lo <= c.Ratio && c.Ratio <= c.Hi) {
				t.Errorf("ratio %v outside its interval [%v, %v]", c.Ratio, c.Lo, c.Hi)
			}
		})
	}
}

// unresolvedAt is a check with too few requests: have of the need.
func unresolvedAt(have, need int) func(Check) bool {
	return func(c Check) bool {
		h, n, unit := c.Unresolved()
		return !c.Resolved() && h == have && n == need && unit == "requests"
	}
}

// TestDecide pins the rule at its edges, on hand-made intervals (the
// sentences report.Summary says of each: internal/report's TestSummary).
func TestDecide(t *testing.T) {
	tol := config.Tolerance{Rel: 0.15, Floor: 20 * time.Millisecond}
	tests := []struct {
		name   string
		c      Check
		want   Verdict
		reason string
	}{
		{"whole interval above", Check{Baseline: 412, Current: 569, Ratio: 569.0 / 412, Lo: 1.22, Hi: 1.55}, Regressed,
			"+38% [95% CI +22%, +55%] > +15% tolerance (412 ms -> 569 ms)"},
		{"lower bound on the threshold is not enough", Check{Baseline: 400, Current: 500, Ratio: 1.25, Lo: 1.15, Hi: 1.4}, Inconclusive,
			"+25% [95% CI +15%, +40%] straddles +15% tolerance: about 1 more request would decide it (400 ms -> 500 ms)"},
		{"upper bound on the threshold is ok", Check{Baseline: 400, Current: 420, Ratio: 1.05, Lo: 0.95, Hi: 1.15}, OK,
			"+5% [95% CI -5%, +15%] within +15% tolerance: rules out > +15% (400 ms -> 420 ms)"},
		{"wide but below the threshold is ok", Check{Baseline: 400, Current: 320, Ratio: 0.8, Lo: 0.6, Hi: 1.1}, OK,
			"-20% [95% CI -40%, +10%] within +15% tolerance: rules out > +10% (400 ms -> 320 ms)"},
		{"whole interval below 1/threshold", Check{Baseline: 400, Current: 300, Ratio: 0.75, Lo: 0.7, Hi: 0.8}, Improved,
			"-25% [95% CI -30%, -20%] < -13% tolerance (400 ms -> 300 ms)"},
		{"floor dominates", Check{Baseline: 50, Current: 90, Ratio: 1.8, Lo: 1.5, Hi: 2.1}, Regressed,
			"+80% [95% CI +50%, +110%] > +40% tolerance (20 ms floor) (50.0 ms -> 90.0 ms)"},
		{"floor makes a big relative change ok", Check{Baseline: 50, Current: 65, Ratio: 1.3, Lo: 1.2, Hi: 1.38}, OK,
			"+30% [95% CI +20%, +38%] within +40% tolerance (20 ms floor): rules out > +38% (50.0 ms -> 65.0 ms)"},
		{"zero baseline", Check{Baseline: 0, Current: 3}, Inconclusive,
			"baseline p50 is 0 ms, so no ratio can be formed (0.00 ms -> 3.00 ms)"},
		{"unbounded interval", Check{Baseline: 400, Current: 800, Ratio: 2, Lo: 1.5, Hi: math.Inf(1)}, Inconclusive,
			"+100%, interval unbounded: the data do not bound it at this level (400 ms -> 800 ms)"},
		{"day-to-day noise alone spans the distance", Check{Baseline: 400, Current: 448, Ratio: 1.12, Lo: 1.01, Hi: 1.25, DayNoise: 0.05}, Inconclusive,
			"+12% [95% CI +1%, +25%] straddles +15% tolerance: the day-to-day noise (±5% per run) keeps it undecided however many requests: compare both in one run (latgate ab) or watch the nightly trend (400 ms -> 448 ms)"},
		{"difference scale", Check{Baseline: 0, Current: 3, Scale: ScaleDifference, Lo: 2.5, Hi: 3.5, Margin: 0.25}, Regressed,
			"+3.00 ms [95% CI +2.50, +3.50] on the difference > 0.25 ms margin (0.00 ms -> 3.00 ms)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.c
			c.Metric, c.Stat, c.Confidence, c.Tolerance, c.Need = results.TTFT, "p50", 0.95, tol, 5
			c.NBase, c.NCur = 100, 100
			Decide(&c)
			if c.Verdict != tt.want {
				t.Errorf("verdict = %s, want %s", c.Verdict, tt.want)
			}
		})
	}
}

func TestDeterminism(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	p := profile{TTFTMedian: 400, TTFTSigma: 0.3, ITLMedian: 20, ITLReqSigma: 0.2, ITLGapSigma: 0.35, Gaps: 32}
	up := p
	up.TTFTScale = 2
	base := side(prompt("a", simSamples(rng, p, 80)), prompt("b", simSamples(rng, p, 80)))
	cur := side(prompt("a", simSamples(rng, up, 80)), prompt("b", simSamples(rng, up, 80)))
	gate := defaultGate()

	r1, r2 := Compare(base, cur, gate), Compare(base, cur, gate)
	if diff := cmp.Diff(r1, r2); diff != "" {
		t.Fatalf("same inputs and seed, different reports (-first +second):\n%s", diff)
	}

	// The intervals are analytic: the bootstrap seed no longer enters.
	gate.Seed = 99
	if r3 := Compare(base, cur, gate); !cmp.Equal(r1.Checks, r3.Checks) {
		t.Errorf("seed 99 changed the checks: the intervals must not depend on it")
	}
	if !slices.ContainsFunc(r1.Checks, func(c Check) bool { return c.Metric == results.TTFT && c.Verdict == Regressed }) {
		t.Errorf("TTFT ×2 not regressed: %+v", r1.Checks)
	}
}

// TestAddingPromptKeepsOthers: a prompt's own estimate and interval do not
// depend on what else is compared; adding a prompt changes only the size of
// the family its regression is adjusted for, and pools the two.
func TestAddingPromptKeepsOthers(t *testing.T) {
	a := prompt("a", ttftSamples(grid(40, 400, 0.3, 1)...))
	a2 := prompt("a", ttftSamples(grid(40, 400, 0.3, 1.1)...))
	z := prompt("z", ttftSamples(grid(40, 100, 0.3, 1)...))
	gate := gateWith(ttftP50)
	one := Compare(side(a), side(a2), gate)
	two := Compare(side(z, a), side(z, a2), gate)
	if diff := cmp.Diff(only(t, one, "a"), only(t, two, "a"), cmpopts.IgnoreFields(Check{}, "Family", "Diagnostic", "Weight")); diff != "" {
		t.Errorf("adding prompt z changed prompt a (-alone +with z):\n%s", diff)
	}
	if a := only(t, two, "a"); a.Family != 2 || only(t, one, "a").Family != 1 {
		t.Errorf("family %d alone, %d with z; want 1 and 2", only(t, one, "a").Family, a.Family)
	}
}

func TestOverride(t *testing.T) {
	loose := config.Tolerance{Rel: 1.0, Floor: 20 * time.Millisecond}
	gate := gateWith(ttftP50)
	gate.Aggregate = true
	gate.Overrides = []config.Override{{Prompt: "b", Metric: results.TTFT, Stat: "p50", Tolerance: loose}}
	mk := func(scale float64) Side {
		return side(prompt("a", ttftSamples(grid(200, 400, 0.3, scale)...)), prompt("b", ttftSamples(grid(200, 300, 0.3, scale)...)))
	}
	r := Compare(mk(1), mk(1.6), gate)
	a, b := only(t, r, "a"), only(t, r, "b")
	if a.Verdict != Regressed || a.Tolerance != ttftP50.Tolerance {
		t.Errorf("prompt a: %s with tolerance %+v, want regressed with the check's %+v", a.Verdict, a.Tolerance, ttftP50.Tolerance)
	}
	if b.Verdict != OK || b.Tolerance != loose || math.Abs(b.Threshold-2) > 1e-12 {
		t.Errorf("prompt b: %s with tolerance %+v threshold %v, want ok with the override %+v, threshold 2", b.Verdict, b.Tolerance, b.Threshold, loose)
	}
	if len(r.Aggregates) != 1 || r.Aggregates[0].Tolerance != ttftP50.Tolerance || r.Aggregates[0].Verdict != Regressed {
		t.Errorf("aggregate %+v, want one, regressed, with the check's own tolerance", r.Aggregates)
	}
}

// TestPooled: the target's pooled check is the inverse-variance weighted
// mean of its prompts' log changes; equal prompts weigh equally, a prompt
// with four times the requests about four times as much; the pooled prompts
// become diagnostics.
func TestPooled(t *testing.T) {
	gate := gateWith(ttftP50)
	gate.Aggregate = true
	mk := func(n int, median, scale float64) []results.Sample {
		return ttftSamples(grid(n, median, 0.3, scale)...)
	}
	base := side(prompt("a", mk(100, 400, 1)), prompt("b", mk(100, 100, 1)), prompt("c", nil))
	cur := side(prompt("a", mk(100, 400, 1.2)), prompt("b", mk(100, 100, 1.8)), prompt("c", nil))
	r := Compare(base, cur, gate)
	if len(r.Aggregates) != 1 {
		t.Fatalf("got %d aggregates, want 1", len(r.Aggregates))
	}
	ag := r.Aggregates[0]
	a, b := only(t, r, "a"), only(t, r, "b")
	want := Check{
		Target: "t", Prompts: []string{"a", "b"}, Metric: results.TTFT, Stat: "p50",
		Baseline: math.Sqrt(a.Baseline * b.Baseline), Current: math.Sqrt(a.Current * b.Current),
		Ratio: math.Sqrt(1.2 * 1.8), Confidence: 0.95, Tolerance: ttftP50.Tolerance,
		NBase: 200, NCur: 200, Estimator: EstimatorHL, Verdict: Regressed,
	}
	ignore := cmpopts.IgnoreFields(Check{}, "Lo", "Hi", "Threshold", "Reason")
	if diff := cmp.Diff(want, ag, ignore, cmpopts.EquateApprox(1e-6, 0)); diff != "" {
		t.Errorf("pooled (-want +got):\n%s", diff)
	}
	if !(ag.Lo < ag.Ratio && ag.Ratio < ag.Hi) || ag.Hi-ag.Lo >= a.Hi-a.Lo {
		t.Errorf("pooled %v [%v, %v]: want inside, and narrower than a prompt's [%v, %v]", ag.Ratio, ag.Lo, ag.Hi, a.Lo, a.Hi)
	}
	if !a.Diagnostic || !b.Diagnostic || math.Abs(a.Weight-0.5) > 1e-6 || math.Abs(b.Weight-0.5) > 1e-6 {
		t.Errorf("prompts: diagnostic %v %v, weights %v %v; want diagnostic, 0.5 each", a.Diagnostic, b.Diagnostic, a.Weight, b.Weight)
	}
	if c := only(t, r, "c"); c.Diagnostic || c.Verdict != Inconclusive {
		t.Errorf("prompt c without data: %+v, want inconclusive and not pooled", c)
	}

	// Four times the requests: about four times the weight.
	big := side(prompt("a", mk(400, 400, 1)), prompt("b", mk(100, 100, 1)))
	bigCur := side(prompt("a", mk(400, 400, 1.2)), prompt("b", mk(100, 100, 1.8)))
	r = Compare(big, bigCur, gate)
	if wa, wb := only(t, r, "a").Weight, only(t, r, "b").Weight; !(wa/wb > 3 && wa/wb < 5) {
		t.Errorf("weights %v and %v, want about 4:1", wa, wb)
	}

	// Without Aggregate, or with one prompt with data, there is none and
	// the prompts decide alone.
	gate.Aggregate = false
	if r := Compare(base, cur, gate); len(r.Aggregates) != 0 || only(t, r, "a").Diagnostic {
		t.Errorf("Aggregate false: got %d aggregates, prompt a diagnostic %v", len(r.Aggregates), only(t, r, "a").Diagnostic)
	}
	gate.Aggregate = true
	if r := Compare(side(base.Targets[0].Prompts[0]), side(cur.Targets[0].Prompts[0]), gate); len(r.Aggregates) != 0 {
		t.Errorf("one prompt: got %d aggregates", len(r.Aggregates))
	}
}

func TestITLPooling(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	p := profile{TTFTMedian: 400, TTFTSigma: 0.3, ITLMedian: 20, ITLGapSigma: 0.4, Gaps: 30}
	samples := simSamples(rng, p, 40)
	samples = append(samples, results.Sample{TTFT: 400, OutputTokens: 1}) // no gaps: not an itl request
	var pooled []float64
	for _, s := range samples {
		pooled = append(pooled, s.ITL...)
	}
	slices.Sort(pooled)

	// The same gaps regrouped so that each request holds a run of
	// neighbouring values: a stream that is slow throughout, as on a real
	// server. Pooled, nothing changed; resampled by request, far more
	// uncertain.
	correlated := make([]results.Sample, 40)
	for i := range correlated {
		lo, hi := i*len(pooled)/40, (i+1)*len(pooled)/40
		correlated[i] = results.Sample{TTFT: 400, ITL: pooled[lo:hi], OutputTokens: hi - lo + 1}
	}

	gate := gateWith(config.Check{Metric: results.ITL, Stat: "p50", Tolerance: config.Tolerance{Rel: 0.15}})
	indep := only(t, Compare(side(prompt("a", samples)), side(prompt("a", samples)), gate), "a")
	corr := only(t, Compare(side(prompt("a", correlated)), side(prompt("a", correlated)), gate), "a")

	if want := stats.Quantile(pooled, 0.5); indep.Baseline != want || corr.Baseline != want {
		t.Errorf("itl p50 = %v and %v, want the pooled gaps' median %v", indep.Baseline, corr.Baseline, want)
	}
	if indep.NBase != 40 || indep.GapsBase != len(pooled) || indep.NeedRequests != minITLRequests {
		t.Errorf("counts: %d requests, %d gaps, need %d requests; want 40, %d, %d", indep.NBase, indep.GapsBase, indep.NeedRequests, len(pooled), minITLRequests)
	}
	mean := only(t, Compare(side(prompt("a", samples)), side(prompt("a", samples)),
		gateWith(config.Check{Metric: results.ITL, Stat: "mean", Tolerance: config.Tolerance{Rel: 0.15}})), "a")
	if want := stats.Mean(pooled); math.Abs(mean.Baseline-want) > 1e-9 || mean.Verdict != OK {
		t.Errorf("itl mean = %v (%s), want the pooled gaps' mean %v (ok)", mean.Baseline, mean.Verdict, want)
	}
	// With 30 gaps per request the correlated interval is about √30 ≈ 5×
	// wider; 2× leaves a wide margin.
	if wi, wc := indep.Hi-indep.Lo, corr.Hi-corr.Lo; wc < 2*wi {
		t.Errorf("interval width with correlated streams %.3f, independent %.3f: want at least 2× wider", wc, wi)
	}
}

func TestOrderAndVerdict(t *testing.T) {
	mk := func(id string, scale float64) results.Prompt {
		return prompt(id, ttftSamples(grid(300, 400, 0.3, scale)...))
	}
	base := func(ids ...string) Side {
		var ps []results.Prompt
		for _, id := range ids {
			ps = append(ps, mk(id, 1))
		}
		return side(ps...)
	}
	scales := map[string]float64{"same": 1, "down": 0.5, "up": 1.8, "edge": 1.15, "up2": 1.4}
	cur := func(ids ...string) Side {
		var ps []results.Prompt
		for _, id := range ids {
			ps = append(ps, mk(id, scales[id]))
		}
		return side(ps...)
	}
	tests := []struct {
		prompts []string
		order   []string // prompts of the checks, worst first
		verdict Verdict
	}{
		{[]string{"same", "down", "up2", "edge", "up"}, []string{"up", "up2", "edge", "same", "down"}, Regressed},
		{[]string{"same", "down", "edge"}, []string{"edge", "same", "down"}, Inconclusive},
		{[]string{"down", "same"}, []string{"same", "down"}, OK},
		{[]string{"down"}, []string{"down"}, Improved},
	}
	for _, tt := range tests {
		r := Compare(base(tt.prompts...), cur(tt.prompts...), gateWith(ttftP50))
		var order []string
		for _, c := range r.Checks {
			order = append(order, c.Prompt)
		}
		if diff := cmp.Diff(tt.order, order); diff != "" {
			t.Errorf("%v: order (-want +got):\n%s", tt.prompts, diff)
		}
		if r.Verdict != tt.verdict {
			t.Errorf("%v: report verdict %s, want %s", tt.prompts, r.Verdict, tt.verdict)
		}
	}
}

func TestSortChecks(t *testing.T) {
	cs := []Check{
		{Prompt: "ok-small", Verdict: OK, Ratio: 0.95},
		{Prompt: "imp-small", Verdict: Improved, Ratio: 0.8},
		{Prompt: "reg-small", Verdict: Regressed, Ratio: 1.3},
		{Prompt: "inc", Verdict: Inconclusive, Ratio: 1.1},
		{Prompt: "imp-big", Verdict: Improved, Ratio: 0.5},
		{Prompt: "reg-big", Verdict: Regressed, Ratio: 2},
		{Prompt: "ok-big", Verdict: OK, Ratio: 1.1},
		{Prompt: "inc-tie-first", Verdict: Inconclusive, Ratio: 0},
		{Prompt: "inc-tie-second", Verdict: Inconclusive, Ratio: 0},
	}
	sortChecks(cs)
	var got []string
	for _, c := range cs {
		got = append(got, c.Prompt)
	}
	// inconclusive and ok keep their input (configured) order
	want := []string{"reg-big", "reg-small", "inc", "inc-tie-first", "inc-tie-second", "ok-small", "ok-big", "imp-big", "imp-small"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestWarnings(t *testing.T) {
	ttftP95 := config.Check{Metric: results.TTFT, Stat: "p95", Tolerance: config.Tolerance{Rel: 0.25}}
	itlP50 := config.Check{Metric: results.ITL, Stat: "p50", Tolerance: config.Tolerance{Rel: 0.15}}
	few := func(n, gaps int) []results.Sample {
		out := ttftSamples(grid(n, 400, 0.3, 1)...)
		for i := range out {
			out[i].ITL = grid(gaps, 20, 0.3, 1)
		}
		return out
	}
	tests := []struct {
		name      string
		base, cur Side
		checks    []config.Check
		want      []Warning
	}{
		{"p95 on two prompts of 30 requests", side(prompt("a", few(30, 3)), prompt("b", few(30, 3))), side(prompt("a", few(30, 3)), prompt("b", few(40, 3))),
			[]config.Check{ttftP95}, []Warning{{Kind: WarnUnresolvable, Target: "t", Prompts: []string{"a", "b"}, Metric: "ttft", Stat: "p95", Have: 30, Need: 72, Unit: "requests"}}},
		{"itl with few requests", side(prompt("a", few(5, 40))), side(prompt("a", few(5, 40))),
			[]config.Check{itlP50}, []Warning{{Kind: WarnUnresolvable, Target: "t", Prompts: []string{"a"}, Metric: "itl", Stat: "p50", Have: 5, Need: 10, Unit: "requests"}}},
		{"itl with few gaps", side(prompt("a", few(12, 2))), side(prompt("a", few(12, 3))),
			[]config.Check{{Metric: results.ITL, Stat: "p95"}}, []Warning{{Kind: WarnUnresolvable, Target: "t", Prompts: []string{"a"}, Metric: "itl", Stat: "p95", Have: 24, Need: 72, Unit: "gaps"}}},
		{"unknown metric and statistic", side(prompt("a", few(30, 3))), side(prompt("a", few(30, 3))),
			[]config.Check{{Metric: "ttlt", Stat: "p50"}, {Metric: results.TTFT, Stat: "max"}},
			[]Warning{{Kind: WarnMetric, Metric: "ttlt", Stat: "p50"}, {Kind: WarnStat, Metric: "ttft", Stat: "max"}, {Kind: WarnNothingCompared}}},
		{"failed and retried requests", side(prompt("a", few(30, 3))),
			Side{Targets: []results.Target{{Name: "t", Prompts: []results.Prompt{prompt("a", few(30, 3))}, Requests: 32, Errors: 2,
				ByClass: map[string]int{results.ErrTimeout: 1, results.ErrServer: 1}, Retries: 3}}},
			[]config.Check{ttftP50},
			[]Warning{
				{Kind: WarnFailures, Target: "t", Count: 2, Requests: 32, ByClass: map[string]int{results.ErrTimeout: 1, results.ErrServer: 1}},
				{Kind: WarnRetries, Target: "t", Count: 3},
			}},
		// Prompts and targets on one side only are Changes (plan_test.go), not warnings.
		{"prompts and targets on one side only", side(prompt("a", few(30, 3)), prompt("gone", few(30, 3))),
			Side{Targets: append(side(prompt("a", few(30, 3)), prompt("new", few(30, 3))).Targets, results.Target{Name: "extra", Region: "eu"})},
			[]config.Check{ttftP50}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Compare(tt.base, tt.cur, gateWith(tt.checks...))
			if diff := cmp.Diff(tt.want, r.Found); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if len(r.Warnings) != 0 {
				t.Errorf("the gate wrote words: %q", r.Warnings)
			}
		})
	}
}

func TestDefaultsApplied(t *testing.T) {
	r := Compare(side(), side(), config.Gate{})
	if r.Confidence != DefaultConfidence || r.Resamples != DefaultResamples || r.Verdict != Inconclusive {
		t.Errorf("empty gate: confidence %v, resamples %d, verdict %s; want %v, %d, inconclusive", r.Confidence, r.Resamples, r.Verdict, DefaultConfidence, DefaultResamples)
	}
}

// TestLostMetricWarns: a metric the baseline had and this run lacks is shown
// with its baseline value and warned about, never silently inconclusive.
func TestLostMetricWarns(t *testing.T) {
	withGaps := []results.Sample{}
	oneChunk := []results.Sample{}
	for i := range 20 {
		withGaps = append(withGaps, results.Sample{TTFT: 100 + float64(i), ITL: []float64{4, 5, 6}, OutputTokens: 4, TPOT: 5})
		oneChunk = append(oneChunk, results.Sample{TTFT: 100 + float64(i), OutputTokens: 1})
	}
	g := gateWith(config.Check{Metric: results.ITL, Stat: "p50", Tolerance: config.Tolerance{Rel: 0.15}})
	r := Compare(side(prompt("p", withGaps)), side(prompt("p", oneChunk)), g)
	c := only(t, r, "p")
	if c.Verdict != Inconclusive || c.Baseline != 5 || c.NCur != 0 {
		t.Errorf("check = %+v; want inconclusive with baseline 5 ms and no current values", c)
	}
	want := Warning{Kind: WarnLost, Target: "t", Prompts: []string{"p"}, Metric: "itl", Stat: "p50", Count: 20}
	if !slices.ContainsFunc(r.Found, func(w Warning) bool { return cmp.Equal(w, want) }) {
		t.Errorf("no warning about the lost metric: %+v", r.Found)
	}
}

func TestThreshold(t *testing.T) {
	tests := []struct {
		rel, floor, base, want float64
	}{
		{0.15, 20, 400, 1.15},  // the relative tolerance rules
		{0.15, 20, 50, 1.4},    // the floor rules: 20 ms of 50
		{0.15, 0, 400, 1.15},   // no floor
		{0.15, 20, 0, 1.15},    // no baseline: the relative tolerance
		{0.25, 100, 400, 1.25}, // equal: either
	}
	for _, tt := range tests {
		if got := Threshold(tt.rel, tt.floor, tt.base); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Threshold(%v, %v, %v) = %v, want %v", tt.rel, tt.floor, tt.base, got, tt.want)
		}
	}
}
