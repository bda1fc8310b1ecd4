package report

import (
	"math"
	"time"

	"github.com/latgate/latgate/internal/diagnose"
	"github.com/latgate/latgate/pkg/baseline"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// This file builds the hand-made values the golden files render. No
// bootstrap runs: each check states its statistics, interval, tolerance and
// request count, and compare.Decide derives the rest by compare's rule.

func tol(rel float64, floor time.Duration) config.Tolerance {
	return config.Tolerance{Rel: rel, Floor: floor}
}

// chk builds a per-prompt check with n requests on each side (itl: 40 gaps
// per request).
func chk(target, region, prompt, metric, stat string, base, cur, lo, hi float64, t config.Tolerance, n int) compare.Check {
	c := compare.Check{
		Target: target, Region: region, Prompt: prompt, Metric: metric, Stat: stat,
		Baseline: base, Current: cur, Ratio: cur / base, Lo: lo, Hi: hi, Confidence: 0.95,
		Tolerance: t, NBase: n, NCur: n,
	}
	if metric == results.ITL {
		c.GapsBase, c.GapsCur = 40*n, 40*n
	}
	compare.Decide(&c)
	return c
}

// agg builds a per-target aggregate over prompts, each with n requests a side.
func agg(target, region string, prompts []string, metric, stat string, base, cur, lo, hi float64, t config.Tolerance, n int) compare.Check {
	c := chk(target, region, "", metric, stat, base, cur, lo, hi, t, n*len(prompts))
	c.Prompts = prompts
	return c
}

// newReport assembles a report as compare makes one: every check carries
// the assumed day-to-day noise of 1%; a target's prompt checks of a metric
// and statistic it has a pooled check for are diagnostics; a prompt
// regression is one adjusted for the target's prompt tests (its family;
// from three, conditional Holm over those beyond their tolerance);
// and the verdict is compare's.
func newReport(checks, aggs []compare.Check, warnings ...string) compare.Report {
	family, beyond := map[string]int{}, map[string]int{}
	for _, c := range checks {
		if c.Max == 0 {
			family[c.Target]++
			if r, _, _, tau := c.Slowdown(); c.Threshold > 0 && r > tau {
				beyond[c.Target]++ // conditional Holm's family, from three tests
			}
		}
	}
	pooled := func(c compare.Check) bool {
		for _, a := range aggs {
			if a.Target == c.Target && a.Region == c.Region && a.Metric == c.Metric && a.Stat == c.Stat {
				return true
			}
		}
		return false
	}
	for _, cs := range [][]compare.Check{checks, aggs} {
		for i := range cs {
			c := &cs[i]
			c.DayNoise = 0.01
			if c.Prompt != "" && c.Max == 0 {
				c.Family = family[c.Target]
				if c.Family >= 3 {
					c.Beyond = beyond[c.Target]
				}
				c.Diagnostic = pooled(*c)
			}
			c.Reason = Summary(*c)
		}
	}
	rep := compare.Report{Checks: checks, Aggregates: aggs, Warnings: warnings, Seed: 1, Resamples: 2000, Confidence: 0.95}
	rep.Verdict = compare.Overall(checks, aggs)
	return rep
}

var (
	ttftP50 = tol(0.15, 20*time.Millisecond)
	ttftP95 = tol(0.15, 40*time.Millisecond)
	itlP50  = tol(0.15, 2*time.Millisecond)
	itlP95  = tol(0.25, 5*time.Millisecond)
)

// failReport has two targets: primary with two regressions (one where the
// floor sets the tolerance), an interval straddling the tolerance, an
// improvement and aggregates; fallback@eu with an itl regression and a p95
// that 40 requests cannot resolve.
func failReport() compare.Report {
	const p, f, eu = "primary", "fallback", "eu"
	checks := []compare.Check{
		chk(p, "", "greeting", results.TTFT, "p95", 412, 569, 1.22, 1.55, ttftP95, 120),
		chk(p, "", "summarize", results.TTFT, "p50", 120, 158, 1.21, 1.43, ttftP50, 120),
		chk(p, "", "summarize", results.TTFT, "p95", 240, 262, 0.97, 1.24, ttftP95, 120),
		chk(p, "", "greeting", results.ITL, "p95", 9.8, 10.3, 0.97, 1.12, itlP95, 120),
		chk(p, "", "greeting", results.TTFT, "p50", 305, 318, 0.99, 1.09, ttftP50, 120),
		chk(p, "", "summarize", results.ITL, "p95", 11.2, 11.4, 0.95, 1.08, itlP95, 120),
		chk(p, "", "summarize", results.ITL, "p50", 4.4, 4.45, 0.97, 1.04, itlP50, 120),
		chk(p, "", "greeting", results.ITL, "p50", 4.2, 4.1, 0.95, 1.01, itlP50, 120),
		chk(p, "", "code-review", results.TTFT, "p95", 520, 455, 0.80, 0.97, ttftP95, 120),
		chk(p, "", "code-review", results.TTFT, "p50", 300, 210, 0.62, 0.78, ttftP50, 120),
		chk(f, eu, "greeting", results.ITL, "p95", 12, 19.4, 1.48, 1.77, itlP95, 40),
		chk(f, eu, "greeting", results.TTFT, "p95", 400, 430, 0.90, 1.20, ttftP95, 40),
		chk(f, eu, "greeting", results.TTFT, "p50", 280, 290, 0.98, 1.08, ttftP50, 40),
	}
	prompts := []string{"greeting", "summarize", "code-review"}
	aggs := []compare.Check{
		agg(p, "", prompts, results.TTFT, "p95", 371.8, 407.8, 1.04, 1.16, ttftP95, 120),
		agg(p, "", prompts, results.TTFT, "p50", 221.2, 218.6, 0.93, 1.05, ttftP50, 120),
	}
	return newReport(checks, aggs,
		"ttft p95 for prompt greeting of target fallback (region eu) cannot be resolved with 40 requests: needs at least 72 (raise run.requests, or run.max_requests for check's rounds)",
		"prompt legacy of target fallback (region eu) is not in the current run: not compared")
}

// failWall is the wall time of failReport's run: 90 s in all, the primary
// target 71.25 s over its three prompts (they interleave at concurrency 2,
// so their busy times add up to more), the fallback 18.5 s.
func failWall() *Wall {
	return &Wall{
		Run:     90.125,
		Targets: map[string]float64{"primary": 71.25, "fallback@eu": 18.5},
		Prompts: map[string]map[string]float64{
			"primary":     {"greeting": 40.125, "summarize": 38.75, "code-review": 41.5},
			"fallback@eu": {"greeting": 18.5},
		},
	}
}

// passReport has one target measured with 40 requests a prompt: every p95 of
// ttft is unresolved, one prompt improved, the rest ok.
func passReport() compare.Report {
	const p = "primary"
	checks := []compare.Check{
		chk(p, "", "greeting", results.TTFT, "p95", 412, 431, 0.96, 1.14, ttftP95, 40),
		chk(p, "", "summarize", results.TTFT, "p95", 240, 236, 0.90, 1.08, ttftP95, 40),
		chk(p, "", "code-review", results.TTFT, "p95", 520, 480, 0.85, 1.02, ttftP95, 40),
		chk(p, "", "greeting", results.TTFT, "p50", 305, 311, 0.98, 1.05, ttftP50, 40),
		chk(p, "", "summarize", results.ITL, "p95", 11.2, 11.3, 0.96, 1.06, itlP95, 40),
		chk(p, "", "greeting", results.ITL, "p95", 9.8, 9.8, 0.95, 1.05, itlP95, 40),
		chk(p, "", "summarize", results.TTFT, "p50", 120, 118, 0.95, 1.02, ttftP50, 40),
		chk(p, "", "greeting", results.ITL, "p50", 4.2, 4.1, 0.95, 1.01, itlP50, 40),
		chk(p, "", "summarize", results.ITL, "p50", 4.4, 4.3, 0.95, 1.00, itlP50, 40),
		chk(p, "", "code-review", results.TTFT, "p50", 300, 210, 0.62, 0.78, ttftP50, 40),
	}
	prompts := []string{"greeting", "summarize", "code-review"}
	aggs := []compare.Check{
		agg(p, "", prompts, results.TTFT, "p95", 371.8, 369.0, 0.94, 1.05, ttftP95, 40),
	}
	return newReport(checks, aggs,
		"ttft p95 for prompts greeting, summarize, code-review cannot be resolved with 40 requests: needs at least 72 (raise run.requests, or run.max_requests for check's rounds)")
}

// awkwardReport adds to failReport a regression of a prompt whose id has the
// characters annotations must escape.
func awkwardReport() compare.Report {
	rep := failReport()
	c := chk("primary", "", "faq, v2: 100%", results.TTFT, "p50", 200, 300, 1.4, 1.6, ttftP50, 120)
	rep.Checks = append([]compare.Check{c}, rep.Checks...)
	return rep
}

// locate places primary's prompts on lines of latgate.yaml, fallback on the
// file only, and anything else nowhere.
func locate(target, prompt string) (string, int) {
	lines := map[string]int{"": 5, "greeting": 12, "summarize": 18, "code-review": 24, "faq, v2: 100%": 30}
	switch target {
	case "primary":
		return "latgate.yaml", lines[prompt]
	case "fallback":
		return "latgate.yaml", 0
	}
	return "", 0
}

// blessChanges has one change of every kind.
func blessChanges() []baseline.Change {
	return []baseline.Change{
		{Kind: baseline.ModelChanged, Target: "primary", From: "gpt-4o-mini", To: "gpt-4.1-mini"},
		{Kind: baseline.BaseURLChange, Target: "primary", From: "http://127.0.0.1:8080/v1", To: "http://127.0.0.1:9090/v1"},
		{Kind: baseline.PromptEdited, Target: "primary", Prompt: "greeting", From: "sha256:1f2e3d4c", To: "sha256:9a8b7c6d"},
		{Kind: baseline.MetricChanged, Target: "primary", Prompt: "greeting", Metric: results.TTFT, Stat: "p50", Old: 305.2, New: 318.9},
		{Kind: baseline.MetricChanged, Target: "primary", Prompt: "greeting", Metric: results.TTFT, Stat: "p95", Old: 412.1, New: 455.0},
		{Kind: baseline.MetricChanged, Target: "primary", Prompt: "greeting", Metric: results.ITL, Stat: "p50", Old: 4.213, New: 4.108},
		{Kind: baseline.MetricChanged, Target: "primary", Prompt: "greeting", Metric: results.TokensPerS, Stat: "p50", Old: 231.4, New: 240.2},
		{Kind: baseline.MetricChanged, Target: "primary", Prompt: "greeting", Metric: results.TTFCT, Stat: "p50", Old: math.NaN(), New: 322.5},
		{Kind: baseline.PromptAdded, Target: "primary", Prompt: "code-review"},
		{Kind: baseline.PromptRemoved, Target: "primary", Prompt: "legacy"},
		{Kind: baseline.TargetAdded, Target: "fallback", Region: "eu"},
		{Kind: baseline.TargetRemoved, Target: "canary"},
	}
}

// measureFile is a 40-request run of one target with two prompts, errors,
// retries and a request without a usage report.
func measureFile() *results.File {
	sum := func(n int, p50, p95 float64) *results.Summary {
		return &results.Summary{N: n, P50: p50, P95: p95, P99: p95 * 1.1, Mean: p50 * 1.05, Min: p50 * 0.7, Max: p95 * 1.2}
	}
	greeting := results.Prompt{ID: "greeting", Requests: 40, Errors: 2, ByClass: map[string]int{results.ErrTimeout: 2},
		Metrics: results.Metrics{TTFT: sum(38, 305.2, 412.1), ITL: sum(1520, 4.213, 9.84), Total: sum(38, 1480, 1902),
			TokensPerS: &results.RateSummary{N: 38, P50: 231.4, P95: 260.8}},
		Samples: []results.Sample{{Seq: 0, TokenSource: "usage"}, {Seq: 1, TokenSource: "chunks"}}}
	summarize := results.Prompt{ID: "summarize", Requests: 40, Errors: 1, ByClass: map[string]int{results.ErrRateLimit: 1},
		Metrics: results.Metrics{TTFT: sum(39, 120.4, 240.9), ITL: sum(1560, 4.4, 11.2), Total: sum(39, 12480, 14020),
			TokensPerS: &results.RateSummary{N: 39, P50: 98.6, P95: 120.2}}}
	overall := results.Prompt{ID: "overall", Requests: 80, Errors: 3,
		Metrics: results.Metrics{TTFT: sum(77, 210.3, 402.7), ITL: sum(3080, 4.3, 10.6), Total: sum(77, 6020, 13900),
			TokensPerS: &results.RateSummary{N: 77, P50: 160.2, P95: 255.1}}}
	return &results.File{
		Schema: results.Schema,
		Run:    results.Run{Requests: 40, Warmup: 2, Concurrency: 4},
		Targets: []results.Target{{
			Name: "primary", BaseURL: "http://127.0.0.1:8080/v1", Model: "sim-small",
			Prompts: []results.Prompt{greeting, summarize}, Overall: overall,
			Requests: 80, Errors: 3, ErrorRate: 3.0 / 80, Retries: 2,
			ByClass: map[string]int{results.ErrTimeout: 2, results.ErrRateLimit: 1},
		}},
	}
}

// changedReport is failReport after a pull request that switched the primary
// target's model, edited prompt summarize, added prompt faq and removed
// prompt legacy of the fallback target: compared checks carry labels, the
// new prompt's checks are measured only.
func changedReport() compare.Report {
	rep := failReport()
	rep.Warnings = rep.Warnings[:1]
	rep.Changes = []compare.Change{
		{Kind: compare.ChangeSetting, Target: "primary", Field: compare.FieldModel, Baseline: "gpt-4o-mini", Current: "gpt-4.1-mini"},
		{Kind: compare.ChangeEdited, Target: "primary", Prompt: "summarize", Baseline: "1a2b3c4d5e6f", Current: "9f8e7d6c5b4a"},
		{Kind: compare.ChangeNew, Target: "primary", Prompt: "faq"},
		{Kind: compare.ChangeRemoved, Target: "fallback", Region: "eu", Prompt: "legacy"},
	}
	for _, cs := range [][]compare.Check{rep.Checks, rep.Aggregates} {
		for i := range cs {
			c := &cs[i]
			if c.Target != "primary" {
				continue
			}
			c.Changed = []compare.Change{rep.Changes[0]}
			switch c.Prompt {
			case "summarize":
				c.Changed = append(c.Changed, rep.Changes[1])
			case "":
				c.Changed = append(c.Changed, compare.Change{Kind: compare.ChangeEdited, Target: "primary", Prompts: []string{"summarize"}})
			}
		}
	}
	for _, stat := range []string{"p50", "p95"} {
		rep.New = append(rep.New, compare.Check{Target: "primary", Prompt: "faq", Metric: results.TTFT, Stat: stat,
			Current: map[string]float64{"p50": 333, "p95": 410}[stat], NCur: 120, Verdict: compare.Unbaselined,
			Changed: []compare.Change{rep.Changes[2]}})
	}
	return rep
}

// evidence is n deterministic requests of one prompt for diagnose: TTFB
// and TTFT spread around their medians, prompt tokens with cached of them
// from the cache.
func evidence(n int, ttfb, ttft float64, prompt, cached int, models ...string) diagnose.Side {
	s := diagnose.Side{Requests: n, Models: models}
	for i := range n {
		f := 1 + 0.03*float64(i%7)
		s.Samples = append(s.Samples, results.Sample{Seq: i + 1, TTFB: ttfb * f, TTFT: ttft * f, Total: ttft*f + 300,
			PromptTokens: prompt, CachedTokens: cached, OutputTokens: 60 + i%5, Reused: true})
	}
	return s
}

// whyReport is failReport with its regressions attributed by diagnose
// from made-up evidence: the itl regression to nothing recorded, greeting's
// TTFT to the cache and a model whose name holds Markdown, a workflow
// command and an escape sequence, summarize's to a longer prompt that
// waits before the first byte.
func whyReport() compare.Report {
	rep := failReport()
	attr := func(c *compare.Check) {
		var a results.Attribution
		switch {
		case c.Metric == results.ITL:
			a = diagnose.Attribute(c.Metric, evidence(40, 30, 280, 800, 0, "m"), evidence(40, 30, 280, 800, 0, "m"))
		case c.Prompt == "greeting":
			a = diagnose.Attribute(c.Metric, evidence(120, 40, 412, 1210, 1186, "gpt-x-1"),
				evidence(120, 40, 569, 1210, 0, "gpt-x-2 *bold* ::error::x \x1b[2J"))
		case c.Prompt == "summarize":
			a = diagnose.Attribute(c.Metric, evidence(120, 30, 120, 1210, 0, "m"), evidence(120, 70, 158, 2430, 0, "m"))
		}
		c.Why = &a
	}
	for i := range rep.Checks {
		if rep.Checks[i].Verdict == compare.Regressed {
			attr(&rep.Checks[i])
		}
	}
	return rep
}
