package report

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/results"
)

// TestWarningText pins the words of every kind of gate warning (the values
// are pkg/compare's TestWarnings').
func TestWarningText(t *testing.T) {
	tests := []struct {
		w    compare.Warning
		want string
	}{
		{compare.Warning{Kind: compare.WarnUnresolvable, Target: "t", Prompts: []string{"a", "b"}, Metric: "ttft", Stat: "p95", Have: 30, Need: 72, Unit: "requests"},
			"ttft p95 for prompts a, b cannot be resolved with 30 requests: needs at least 72 (raise run.requests, or run.max_requests for check's rounds)"},
		{compare.Warning{Kind: compare.WarnUnresolvable, Target: "t", Region: "eu", NameTarget: true, Prompts: []string{"a"}, Metric: "itl", Stat: "p95", Have: 24, Need: 72, Unit: "gaps"},
			"itl p95 for prompt a of target t (region eu) cannot be resolved with 24 gaps: needs at least 72 (raise run.requests, or run.max_requests for check's rounds)"},
		{compare.Warning{Kind: compare.WarnMetric, Metric: "ttlt", Stat: "p50"},
			`check ttlt p50 skipped: metric "ttlt" cannot be gated (use one of ttfb, ttft, ttfct, itl, tpot, total, max_stall, chain_total, chain_ttft_last, tokens_per_s)`},
		{compare.Warning{Kind: compare.WarnStat, Metric: "ttft", Stat: "max"}, `check ttft max skipped: statistic "max" is not p50, p95, p99 or mean`},
		{compare.Warning{Kind: compare.WarnNothingCompared}, "nothing was compared: no check applies to a target and prompt present in both runs"},
		{compare.Warning{Kind: compare.WarnNothingCompared, Side: "both"}, "nothing was compared: no check applies to a target and prompt measured on both sides"},
		{compare.Warning{Kind: compare.WarnFailures, Target: "t", Count: 2, Requests: 32, ByClass: map[string]int{results.ErrTimeout: 1, results.ErrServer: 1}},
			"target t: 2 of 32 requests failed (6.2%: server 1, timeout 1); failed requests are not samples"},
		{compare.Warning{Kind: compare.WarnFailures, Side: "base", Target: "t", Count: 1, Requests: 181, ByClass: map[string]int{results.ErrServer: 1}, Said: `server 1: "overloaded"`},
			"base target t: 1 of 181 requests failed (0.6%: server 1); failed requests are not samples" + results.SaidSep + `server 1: "overloaded"`},
		{compare.Warning{Kind: compare.WarnRetries, Target: "t", Count: 3}, "target t: 3 retries after HTTP 429 (timings are the final attempt's)"},
		{compare.Warning{Kind: compare.WarnLost, Target: "t", Prompts: []string{"p"}, Metric: "itl", Stat: "p50", Count: 20},
			"itl p50 for prompt p of target t: 20 baseline requests had values, this run has none: the endpoint's answers changed shape (one chunk? no content token?), check them"},
		{compare.Warning{Kind: compare.WarnNoCacheUsage, Target: "t", Prompts: []string{"warm"}},
			"cache_hit_rate of warm prompt warm of target t not checked: the endpoint reports no prompt tokens in its usage"},
		{compare.Warning{Kind: compare.WarnRunnerBusy, Target: "t", Count: 2, Lateness: results.Lateness{Probes: 2549, P50MS: 0.54, P95MS: 2.06, P99MS: 4, MaxMS: 9.5}},
			"target t: latgate's own runner was too busy to measure precisely: its timers woke up to 4.00 ms late (p99 of 2549 probes; p95 2.06 ms, max 9.50 ms; a quiet runner: about 1.10 ms), and stream reads waited as long: 2 regressions within that delay are undecided, not blamed on the endpoint; run on a quieter runner (fewer parallel jobs, a dedicated runner)"},
		{compare.Warning{Kind: compare.WarnRunnerBusy, Target: "t", Lateness: results.Lateness{Probes: 10, P50MS: 0.5, P95MS: 3, P99MS: 3, MaxMS: 3}},
			"target t: latgate's own runner was too busy to measure precisely: its timers woke up to 3.00 ms late (p99 of 10 probes; p95 3.00 ms, max 3.00 ms; a quiet runner: about 1.10 ms), and stream reads waited as long: no regression was within that delay; run on a quieter runner (fewer parallel jobs, a dedicated runner)"},
		{compare.Warning{Kind: compare.WarnColdStart, Target: "t", Count: 16, Ratio: 2.31},
			"target t started cold in this run: its first 16 measured requests were ×2.3 slower in median TTFT than the rest and are not compared (the steady latency is); raise run.warmup to send them unmeasured"},
		{compare.Warning{Kind: compare.WarnColdStart, Side: "baseline", Target: "t", Count: 24, Ratio: 1.5},
			"target t started cold in the baseline: its first 24 measured requests were ×1.5 slower in median TTFT than the rest and are not compared (the steady latency is); raise run.warmup to send them unmeasured"},
		{compare.Warning{Kind: compare.WarnColdStart, Target: "t", Count: 6, Requests: 8, Matched: true},
			"target t: its first 6 measured requests in this run are not compared either, as the baseline started cold over 8 (too few requests to test its own start; 6, not 8, so the run keeps two thirds of its requests and each prompt what its checks need); raise run.warmup to send them unmeasured"},
		{compare.Warning{Kind: compare.WarnColdStart, Side: "baseline", Target: "t", Count: 16, Requests: 16, Matched: true},
			"target t: its first 16 measured requests in the baseline are not compared either, as this run started cold over 16 (too few requests to test its own start); raise run.warmup to send them unmeasured"},
		{compare.Warning{Kind: compare.WarnColdStart, Target: "t", Count: 0, Requests: 8, Matched: true},
			"target t: the baseline started cold over 8, but its first requests in this run are compared: too few to test its own start, and none to spare (each prompt needs every request it has for its checks), so a start of its own reads as slower here; raise run.warmup to send them unmeasured, or run.requests"},
		{compare.Warning{Kind: compare.WarnCorrelated, Target: "t", Metric: "ttft", Ratio: 3.42},
			"target t's requests were correlated in arrival order in this run: its level wandered within the run, so its mean ttft varied ×3.4 as much as independent requests would; the ttft intervals carry that (wider, not a regression by itself): a server whose state drifts within a run (load, cache, throttling) needs more requests to decide"},
		{compare.Warning{Kind: compare.WarnCorrelated, Side: "baseline", Target: "t", Metric: "itl", Ratio: 5},
			"target t's requests were correlated in arrival order in the baseline: its level wandered within the run, so its mean itl varied ×5 as much as independent requests would; the itl intervals carry that (wider, not a regression by itself): a server whose state drifts within a run (load, cache, throttling) needs more requests to decide"},
		{compare.Warning{Kind: compare.WarnScheduleMissed, Target: "t", Count: 3, Rate: 200, Sends: results.Sends{Scheduled: 1200, LateP50MS: 8, LateP99MS: 12.5, LateMaxMS: 40}},
			"target t: latgate could not keep up with the arrival schedule of 200 requests/s: half its 1200 sends were over 8.00 ms late (p99 12.5 ms, max 40.0 ms; the bound 5.00 ms at the median), so the endpoint got another load than asked and its 3 checks are undecided; run on a quieter runner (fewer parallel jobs, a dedicated runner) or at a lower run.rate"},
		{compare.Warning{Kind: compare.WarnRunnerBusy, Target: "t", Rate: 80, Sends: results.Sends{Scheduled: 100, LateP50MS: 0.2, LateP99MS: 13.6, LateMaxMS: 22}, Lateness: results.Lateness{Probes: 10, P50MS: 0.5, P95MS: 3, P99MS: 3, MaxMS: 3}},
			"target t: latgate's own runner was too busy to measure precisely: its timers woke up to 3.00 ms late (p99 of 10 probes; p95 3.00 ms, max 3.00 ms; a quiet runner: about 1.10 ms), and stream reads waited as long; its sends at 80 requests/s were up to 13.6 ms late (p99 of 100), and every time counts from the schedule: no regression was within that delay; run on a quieter runner (fewer parallel jobs, a dedicated runner)"},
		{compare.Warning{Kind: compare.WarnNoSLO}, "slo_attainment check skipped: no prompt of this run has an slo: (set one on a target or a prompt, e.g. slo: {ttft: 500ms, itl: 50ms})"},
	}
	for _, tt := range tests {
		if got := WarningText(tt.w); got != tt.want {
			t.Errorf("WarningText(%+v)\n got %q\nwant %q", tt.w, got, tt.want)
		}
	}
}

// TestWarningsOrder: the gate's warnings come first, then the
// application's notes, and WithReasons gives a results file the words.
func TestWarningsOrder(t *testing.T) {
	rep := compare.Report{Found: []compare.Warning{{Kind: compare.WarnRetries, Target: "t", Count: 1}}, Warnings: []string{"the baseline is 40 days old"}}
	want := []string{"target t: 1 retries after HTTP 429 (timings are the final attempt's)", "the baseline is 40 days old"}
	if diff := cmp.Diff(want, Warnings(rep)); diff != "" {
		t.Errorf("Warnings (-want +got):\n%s", diff)
	}
	rec := WithReasons(rep)
	if diff := cmp.Diff(want, rec.Warnings); diff != "" || rec.Found != nil {
		t.Errorf("WithReasons: warnings (-want +got):\n%s\nfound %+v, want none", diff, rec.Found)
	}
	if len(rep.Found) != 1 || len(rep.Warnings) != 1 {
		t.Errorf("WithReasons modified its argument: %+v", rep)
	}
}
