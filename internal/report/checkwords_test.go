package report

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// TestSummary pins the sentence of each verdict at the decision rule's
// edges (pkg/compare's TestDecide and TestDecideRate decide the same
// hand-made intervals): the words of the JUnit failure, the text report and
// a results file's "reason".
func TestSummary(t *testing.T) {
	tol := config.Tolerance{Rel: 0.15, Floor: 20 * time.Millisecond}
	tests := []struct {
		name   string
		c      compare.Check
		want   compare.Verdict
		reason string
	}{
		{"whole interval above", compare.Check{Baseline: 412, Current: 569, Ratio: 569.0 / 412, Lo: 1.22, Hi: 1.55}, compare.Regressed,
			"+38% [95% CI +22%, +55%] > +15% tolerance (412 ms -> 569 ms)"},
		{"lower bound on the threshold is not enough", compare.Check{Baseline: 400, Current: 500, Ratio: 1.25, Lo: 1.15, Hi: 1.4}, compare.Inconclusive,
			"+25% [95% CI +15%, +40%] straddles +15% tolerance: about 1 more request would decide it (400 ms -> 500 ms)"},
		{"upper bound on the threshold is ok", compare.Check{Baseline: 400, Current: 420, Ratio: 1.05, Lo: 0.95, Hi: 1.15}, compare.OK,
			"+5% [95% CI -5%, +15%] within +15% tolerance: rules out > +15% (400 ms -> 420 ms)"},
		{"wide but below the threshold is ok", compare.Check{Baseline: 400, Current: 320, Ratio: 0.8, Lo: 0.6, Hi: 1.1}, compare.OK,
			"-20% [95% CI -40%, +10%] within +15% tolerance: rules out > +10% (400 ms -> 320 ms)"},
		{"whole interval below 1/threshold", compare.Check{Baseline: 400, Current: 300, Ratio: 0.75, Lo: 0.7, Hi: 0.8}, compare.Improved,
			"-25% [95% CI -30%, -20%] < -13% tolerance (400 ms -> 300 ms)"},
		{"floor dominates", compare.Check{Baseline: 50, Current: 90, Ratio: 1.8, Lo: 1.5, Hi: 2.1}, compare.Regressed,
			"+80% [95% CI +50%, +110%] > +40% tolerance (20 ms floor) (50.0 ms -> 90.0 ms)"},
		{"floor makes a big relative change ok", compare.Check{Baseline: 50, Current: 65, Ratio: 1.3, Lo: 1.2, Hi: 1.38}, compare.OK,
			"+30% [95% CI +20%, +38%] within +40% tolerance (20 ms floor): rules out > +38% (50.0 ms -> 65.0 ms)"},
		{"zero baseline", compare.Check{Baseline: 0, Current: 3}, compare.Inconclusive,
			"baseline p50 is 0 ms, so no ratio can be formed (0.00 ms -> 3.00 ms)"},
		{"unbounded interval", compare.Check{Baseline: 400, Current: 800, Ratio: 2, Lo: 1.5, Hi: math.Inf(1)}, compare.Inconclusive,
			"+100%, interval unbounded: the data do not bound it at this level (400 ms -> 800 ms)"},
		{"day-to-day noise alone spans the distance", compare.Check{Baseline: 400, Current: 448, Ratio: 1.12, Lo: 1.01, Hi: 1.25, DayNoise: 0.05}, compare.Inconclusive,
			"+12% [95% CI +1%, +25%] straddles +15% tolerance: the day-to-day noise (±5% per run) keeps it undecided however many requests: compare both in one run (latgate ab) or watch the nightly trend (400 ms -> 448 ms)"},
		{"difference scale", compare.Check{Baseline: 0, Current: 3, Scale: compare.ScaleDifference, Lo: 2.5, Hi: 3.5, Margin: 0.25}, compare.Regressed,
			"+3.00 ms [95% CI +2.50, +3.50] on the difference > 0.25 ms margin (0.00 ms -> 3.00 ms)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.c
			c.Metric, c.Stat, c.Confidence, c.Tolerance, c.Need = results.TTFT, "p50", 0.95, tol, 5
			c.NBase, c.NCur = 100, 100
			compare.Decide(&c)
			if c.Verdict != tt.want {
				t.Errorf("verdict = %s, want %s", c.Verdict, tt.want)
			}
			if diff := cmp.Diff(tt.reason, Summary(c)); diff != "" {
				t.Errorf("Summary (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSummaryHidden: a prompt pooling would hide says why it holds the run.
func TestSummaryHidden(t *testing.T) {
	c := compare.Check{Prompt: "p00", Metric: results.TTFT, Stat: "p50", Confidence: 0.95, Tolerance: config.Tolerance{Rel: 0.15},
		Baseline: 400, Current: 516, Ratio: 1.29, Lo: 1.18, Hi: 1.37, NBase: 240, NCur: 150, Need: 5}
	compare.Decide(&c)
	c.Verdict, c.Hidden, c.Family = compare.Inconclusive, true, 10
	want := "+29% [95% CI +18%, +37%] > +15% tolerance on its own, not after adjusting for 10 prompt tests (Holm); apart from the other prompts at its last look, it holds the run undecided (400 ms -> 516 ms)"
	if diff := cmp.Diff(want, Summary(c)); diff != "" {
		t.Errorf("Summary (-want +got):\n%s", diff)
	}
	c.Beyond = 1 // conditional Holm: the one of ten beyond its tolerance
	want = "+29% [95% CI +18%, +37%] > +15% tolerance on its own, not after adjusting for the 1 of 10 prompt tests beyond tolerance (Holm); apart from the other prompts at its last look, it holds the run undecided (400 ms -> 516 ms)"
	if diff := cmp.Diff(want, Summary(c)); diff != "" {
		t.Errorf("Summary (-want +got):\n%s", diff)
	}
	c.Verdict, c.Hidden, c.Beyond = compare.Regressed, false, 2
	want = "+29% [95% CI +18%, +37%] > +15% tolerance (400 ms -> 516 ms), adjusted for the 2 of 10 prompt tests beyond tolerance (Holm)"
	if diff := cmp.Diff(want, Summary(c)); diff != "" {
		t.Errorf("Summary (-want +got):\n%s", diff)
	}
	c.Verdict, c.Hidden, c.Beyond = compare.Inconclusive, true, 0
	c.Lo = 1.12
	want = "+29% [95% CI +12%, +37%] straddles +15% tolerance, apart from the other prompts at its last look: it holds the run undecided (400 ms -> 516 ms)"
	if diff := cmp.Diff(want, Summary(c)); diff != "" {
		t.Errorf("Summary (-want +got):\n%s", diff)
	}
}

// TestSummaryRate: a rate's sentence reads in tokens/s, its tolerance
// mirrored below 1.
func TestSummaryRate(t *testing.T) {
	tests := []struct {
		name   string
		c      compare.Check
		tol    config.Tolerance
		want   compare.Verdict
		reason string
	}{
		{"whole interval below 1/τ", compare.Check{Baseline: 50, Current: 35, Ratio: 0.7, Lo: 0.62, Hi: 0.78}, config.Tolerance{Rel: 0.15}, compare.Regressed,
			"-30% [95% CI -38%, -22%] < -13% tolerance (50.0 tokens/s -> 35.0 tokens/s)"},
		{"upper bound on 1/τ is not enough", compare.Check{Baseline: 50, Current: 42, Ratio: 0.84, Lo: 0.8, Hi: 0.88}, config.Tolerance{Rel: 0.15}, compare.Inconclusive,
			"-16% [95% CI -20%, -12%] straddles -13% tolerance"},
		{"lower bound above 1/τ is ok", compare.Check{Baseline: 50, Current: 51, Ratio: 1.02, Lo: 0.9, Hi: 1.12}, config.Tolerance{Rel: 0.15}, compare.OK,
			"+2% [95% CI -10%, +12%] within -13% tolerance: rules out < -10% (50.0 tokens/s -> 51.0 tokens/s)"},
		{"whole interval above τ", compare.Check{Baseline: 50, Current: 70, Ratio: 1.4, Lo: 1.25, Hi: 1.55}, config.Tolerance{Rel: 0.15}, compare.Improved,
			"+40% [95% CI +25%, +55%] > +15% tolerance (50.0 tokens/s -> 70.0 tokens/s)"},
		{"floor sets the threshold: a 10 tokens/s drop of 50", compare.Check{Baseline: 50, Current: 35, Ratio: 0.7, Lo: 0.62, Hi: 0.78}, config.Tolerance{Rel: 0.15, FloorRate: 10}, compare.Regressed,
			"< -20% tolerance (10 tokens/s floor)"},
		{"a floor at the baseline allows any drop", compare.Check{Baseline: 50, Current: 10, Ratio: 0.2, Lo: 0.1, Hi: 0.3}, config.Tolerance{Rel: 0.15, FloorRate: 50}, compare.OK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.c
			c.Metric, c.Stat, c.Confidence, c.Tolerance = results.TokensPerS, "p50", 0.95, tt.tol
			c.NBase, c.NCur = 100, 100
			compare.Decide(&c)
			s := Summary(c)
			if c.Verdict != tt.want || !strings.Contains(s, tt.reason) {
				t.Errorf("verdict %s, Summary %q; want %s containing %q", c.Verdict, s, tt.want, tt.reason)
			}
			if strings.Contains(s, " ms") {
				t.Errorf("Summary %q: want values in tokens/s, not ms", s)
			}
		})
	}
}

// TestWithReasons: a results file carries each check's Summary as its
// reason, and the report it came from is left as it was.
func TestWithReasons(t *testing.T) {
	c := compare.Check{Metric: results.TTFT, Stat: "p50", Baseline: 400, Current: 480, Ratio: 1.2, Lo: 1.12, Hi: 1.29,
		Confidence: 0.95, Tolerance: config.Tolerance{Rel: 0.10}, NBase: 30, NCur: 30, Need: 6}
	compare.Decide(&c)
	rep := compare.Report{Checks: []compare.Check{c}, Aggregates: []compare.Check{c}}
	got := WithReasons(rep)
	want := "+20% [95% CI +12%, +29%] > +10% tolerance (400 ms -> 480 ms)"
	if got.Checks[0].Reason != want || got.Aggregates[0].Reason != want || got.New != nil {
		t.Errorf("reasons %q, %q, new %v; want %q", got.Checks[0].Reason, got.Aggregates[0].Reason, got.New, want)
	}
	if rep.Checks[0].Reason != "" {
		t.Errorf("WithReasons modified its argument")
	}
}

// TestDriftSummaryMore: the three largest drifts, then how many more.
func TestDriftSummaryMore(t *testing.T) {
	var drift []compare.Check
	for _, p := range []string{"a", "b", "c", "d", "e"} {
		drift = append(drift, compare.Check{Target: "t", Prompt: p, Metric: "ttft", Stat: "p50", Ratio: 2, Lo: 1.8, Hi: 2.2, Baseline: 100, Current: 200})
	}
	got := DriftSummary(drift)
	if !strings.HasPrefix(got, "t/a ttft p50 +100% [+80%, +120%] (100 ms in the first half → 200 ms in the second), t/b") || !strings.HasSuffix(got, ", and 2 more") {
		t.Errorf("DriftSummary = %q", got)
	}
}

func TestChangeAllowed(t *testing.T) {
	tests := []struct {
		name          string
		c             compare.Check
		change, allow string
	}{
		{"ratio", compare.Check{Metric: "ttft", Ratio: 1.12, Lo: 0.97, Hi: 1.31, Threshold: 1.35}, "+12% [-3%, +31%]", "+35%"},
		{"ratio bound at its tolerance", compare.Check{Metric: "ttft", Ratio: 1.3, Lo: 1.152, Hi: 1.4, Threshold: 1.15}, "+30% [+15.2%, +40%]", "+15%"},
		{"improved", compare.Check{Metric: "ttft", Ratio: 0.5, Lo: 0.4, Hi: 0.6, Threshold: 1.25, Verdict: compare.Improved}, "-50% [-60%, -40%]", "-20%"},
		{"difference", compare.Check{Metric: "itl", Scale: compare.ScaleDifference, Baseline: 0.08, Current: 0.65, Ratio: 8.1, Lo: 0.06, Hi: 0.69, Margin: 0.25}, "+0.57 ms [+0.06, +0.69 ms]", "±0.25 ms"},
		{"difference, faster", compare.Check{Metric: "itl", Scale: compare.ScaleDifference, Baseline: 0.66, Current: 0, Lo: -0.73, Hi: -0.55, Margin: 0.25}, "-0.66 ms [-0.73, -0.55 ms]", "±0.25 ms"},
		{"limit", compare.Check{Metric: "ttft", Max: 800, Current: 812, Lo: 790, Hi: 840}, "812 ms [790, 840 ms]", "max 800 ms"},
		// Too few requests for the statistic: no interval, said so (it read
		// "-1% [-100%, -100%]", the zero ends taken for ratios).
		{"ratio without an interval", compare.Check{Metric: "ttft", Stat: "p90", Ratio: 0.99, Threshold: 1.35}, "-1% (no interval yet)", "+35%"},
		{"difference without an interval", compare.Check{Metric: "itl", Scale: compare.ScaleDifference, Baseline: 0.08, Current: 0.65, Margin: 0.25}, "+0.57 ms (no interval yet)", "±0.25 ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := []string{ChangePhrase(tt.c), Allowed(tt.c)}
			if diff := cmp.Diff([]string{tt.change, tt.allow}, got); diff != "" {
				t.Errorf("ChangePhrase, Allowed (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDriftSummaryDifference: a drift found on the difference scale is
// reported in milliseconds, not as an impossible percentage.
func TestDriftSummaryDifference(t *testing.T) {
	c := compare.Check{Target: "local", Prompt: "summarize", Metric: "itl", Stat: "p50", Scale: compare.ScaleDifference,
		Baseline: 0.66, Current: 0, Lo: -0.73, Hi: -0.55, Margin: 0.25}
	got := DriftSummary([]compare.Check{c})
	want := "local/summarize itl p50 -0.66 ms [-0.73, -0.55 ms] (0.66 ms in the first half → 0.00 ms in the second)"
	if got != want {
		t.Errorf("DriftSummary = %q, want %q", got, want)
	}
	if strings.Contains(got, "%") {
		t.Errorf("a difference-scale drift printed as a percentage: %s", got)
	}
}

// TestSummaryLimit: the sentence of a limit check (pkg/compare's
// TestDecideLimit decides the same intervals).
func TestSummaryLimit(t *testing.T) {
	base := compare.Check{Metric: results.TTFT, Stat: "p95", Confidence: 0.95, NCur: 80, Max: 800}
	with := func(cur, lo, hi float64, f ...func(*compare.Check)) compare.Check {
		c := base
		c.Current, c.Lo, c.Hi = cur, lo, hi
		for _, g := range f {
			g(&c)
		}
		return c
	}
	tests := []struct {
		name   string
		c      compare.Check
		want   compare.Verdict
		reason string // a fragment of Reason
		more   int    // -1, 0, or 1 for "some"
	}{
		{"whole interval above", with(912, 871, 960), compare.Regressed, "p95 912 ms [95% CI 871, 960] > max 800 ms", 0},
		{"whole interval below", with(512, 490, 540), compare.OK, "p95 512 ms [95% CI 490, 540]: p95 ≤ 800 ms ruled in", 0},
		{"upper bound on the limit", with(700, 650, 800), compare.OK, "ruled in", 0},
		{"lower bound on the limit", with(850, 800, 900), compare.Inconclusive, "straddles max 800 ms", 1},
		{"straddles below", with(780, 700, 860), compare.Inconclusive, "more requests would decide it", 1},
		{"straddles above", with(820, 760, 900), compare.Inconclusive, "straddles", 1},
		{"on the limit", with(800, 760, 840), compare.Inconclusive, "sits on the limit", -1},
		{"too few for p95", with(500, 400, 600, func(c *compare.Check) { c.NCur = 30 }), compare.Inconclusive, "p95 needs at least 72 requests, have 30", 1},
		{"no values", with(0, 0, 0, func(c *compare.Check) { c.NCur = 0 }), compare.Inconclusive, "no ttft values in the current run (max 800 ms)", 0},
		{"unbounded", with(500, math.NaN(), 600), compare.Inconclusive, "interval unbounded", 0},
		{"itl short of gaps", with(5, 4, 6, func(c *compare.Check) {
			c.Metric, c.Max, c.GapsCur, c.NCur = results.ITL, 10, 40, 20
		}), compare.Inconclusive, "needs at least 72 gaps, have 40", 1},
		{"itl enough gaps", with(5, 4, 6, func(c *compare.Check) {
			c.Metric, c.Max, c.GapsCur, c.NCur = results.ITL, 10, 400, 20
		}), compare.OK, "p95 ≤ 10.0 ms ruled in", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.c
			compare.Decide(&c)
			if s := Summary(c); c.Verdict != tt.want || !strings.Contains(s, tt.reason) {
				t.Errorf("%s: Summary %q, want %s containing %q", c.Verdict, s, tt.want, tt.reason)
			}
		})
	}
}

// TestSummaryShare: the sentence of a share check, its interval at the
// precision it is printed in (pkg/compare's TestDecideShare computes the
// same intervals).
func TestSummaryShare(t *testing.T) {
	rel := func(base, cur float64, nb, nc int, lo, hi float64) compare.Check {
		c := compare.Check{Metric: results.StreamIntegrity, Stat: "share", Baseline: base, Current: cur, NBase: nb, NCur: nc,
			Confidence: 0.95, Tolerance: config.Tolerance{Rel: 0.25}, Lo: lo, Hi: hi}
		compare.DecideShare(&c)
		return c
	}
	floor := func(cur float64, n int, lo, hi float64) compare.Check {
		c := compare.Check{Metric: results.SLOAttainment, Stat: "share", Current: cur, NCur: n, Confidence: 0.95, Min: 0.95, Lo: lo, Hi: hi}
		compare.DecideShare(&c)
		return c
	}
	for _, tc := range []struct {
		name   string
		c      compare.Check
		reason string
	}{
		{"streamed before, buffered now", rel(1, 0, 240, 60, -1, -0.9378000178156412), "100% → 0% (-100 pts [95% CI -100, -94]) < -25 pts tolerance"},
		{"unchanged", rel(1, 1, 240, 60, -0.06017185214208998, 0.015753919941558836), "within -25 pts tolerance: rules out < -6 pts"},
		{"a drop of 20 points with 60 requests", rel(0.9, 0.7, 240, 60, -0.3290848045460782, -0.08962273763700854), "straddles -25 pts tolerance: about"},
		{"a rise", rel(0.2, 0.95, 240, 60, 0.6469861137254473, 0.8062831633541472), "> +25 pts tolerance"},
		{"too few requests", rel(1, 0, 240, 9, -1, -0.7004404132940221), "needs at least 10 requests per side, have 9"},
		{"93% of 240 vs min 95%", floor(0.93, 240, 0.8904925014489237, 0.9559591274013358), "straddles min 95%"},
		{"92% of 240 vs min 95%: the bound prints apart from min", floor(0.92, 240, 0.8786951925756148, 0.948071514673476), "CI 88%, 94.8%] < min 95%"},
		{"80% of 240 vs min 95%", floor(0.80, 240, 0.7448460149230788, 0.8457016331119861), "80% of 240 requests [95% CI 74%, 85%] < min 95%"},
		{"100% of 150 vs min 95%", floor(1, 150, 0.9750297556319235, 1), "≥ 95% ruled in"},
		{"95% of 60 vs min 95%: on the limit", floor(0.95, 60, 0.8629948352365148, 0.9828504978356042), "sits on the limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if s := Summary(tc.c); !strings.Contains(s, tc.reason) {
				t.Errorf("%s: Summary %q, want …%s…", tc.c.Verdict, s, tc.reason)
			}
		})
	}
}

// TestMeasureTail (#29: defaults that do not warn): at the defaults' 60
// requests a prompt cannot bound a P95 distribution-free (72) but can a
// P90 (36), so the measured table shows TTFT and total at P90, from the
// samples, and says nothing is unresolvable; at 80 it shows P95; at 20 it
// keeps P95 and says it is rough.
func TestMeasureTail(t *testing.T) {
	file := func(n int) *results.File {
		ss := make([]results.Sample, n)
		for i := range ss {
			ss[i] = results.Sample{Seq: i + 1, TTFT: float64(100 + i), Total: float64(200 + 2*i), OutputTokens: 8, TokenSource: "usage"}
		}
		p := results.Prompt{ID: "p", Requests: n, Samples: ss, Metrics: results.MetricsOf(ss)}
		return &results.File{Run: results.Run{Requests: n, Concurrency: 1}, Targets: []results.Target{{Name: "t", Model: "m", Requests: n,
			Prompts: []results.Prompt{p}, Overall: results.Prompt{ID: "overall", Requests: n, Metrics: results.MetricsOf(ss)}}}}
	}
	for _, tt := range []struct {
		n            int
		head, absent string
		note         bool
	}{
		{60, "TTFT p90", "TTFT p95", false},
		{80, "TTFT p95", "TTFT p90", false},
		{20, "TTFT p95", "TTFT p90", true},
	} {
		var b strings.Builder
		if err := Measure(&b, file(tt.n)); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if !strings.Contains(out, tt.head) || strings.Contains(out, tt.absent) || strings.Contains(out, "not resolvable") != tt.note {
			t.Errorf("%d requests: want %q, no %q, a note %v:\n%s", tt.n, tt.head, tt.absent, tt.note, out)
		}
	}
	var b strings.Builder
	Measure(&b, file(60))
	// 60 values 100..159 ms: type 7's P90 is 153.1 ms, total's 306 ms.
	if !strings.Contains(b.String(), "153 ms") || !strings.Contains(b.String(), "306 ms") {
		t.Errorf("P90 of the samples not shown:\n%s", b.String())
	}
}

// TestChartShowsTheGatedTail (#33 item 7): the job summary's chart shows
// TTFT at every percentile the gate checks: P50 and P90 at the defaults,
// whose P90 it used to leave out (it charted P50 and P95 only).
func TestChartShowsTheGatedTail(t *testing.T) {
	tol := config.Tolerance{Rel: 0.15}
	rep := newReport([]compare.Check{
		chk("t", "", "a", results.TTFT, "p50", 100, 110, 1.05, 1.15, tol, 60),
		chk("t", "", "a", results.TTFT, "p90", 150, 160, 1.0, 1.1, tol, 60),
		chk("t", "", "b", results.TTFT, "p50", 100, 105, 1.0, 1.1, tol, 60),
		chk("t", "", "b", results.TTFT, "p90", 150, 170, 1.05, 1.2, tol, 60),
	}, nil)
	var b strings.Builder
	if err := GitHubSummary(&b, rep, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"a p90"`) || !strings.Contains(b.String(), `"b p50"`) {
		t.Errorf("the chart lacks the P90 bars:\n%s", b.String())
	}
}
