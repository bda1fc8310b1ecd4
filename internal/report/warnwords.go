package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/latgate/latgate/internal/numfmt"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/results"
)

// Warnings are every warning of rep in words, as each output shows them:
// the gate's own (rep.Found, worded by WarningText), then the notes the
// application added (rep.Warnings).
func Warnings(rep compare.Report) []string {
	out := make([]string, 0, len(rep.Found)+len(rep.Warnings))
	for _, w := range rep.Found {
		out = append(out, WarningText(w))
	}
	return append(out, rep.Warnings...)
}

// WarningText says a gate warning in one line: what was noticed and, where
// there is one, what to do.
func WarningText(w compare.Warning) string {
	tgt := targetLabel(w.Target, w.Region)
	side := ""
	if w.Side != "" && w.Side != "both" {
		side = w.Side + " "
	}
	switch w.Kind {
	case compare.WarnMetric:
		return fmt.Sprintf("check %s %s skipped: metric %q cannot be gated (use one of %s)", w.Metric, w.Stat, w.Metric, strings.Join(results.GatedMetrics(), ", "))
	case compare.WarnStat:
		return fmt.Sprintf("check %s %s skipped: statistic %q is not p50, p95, p99 or mean", w.Metric, w.Stat, w.Stat)
	case compare.WarnNoCacheUsage:
		return fmt.Sprintf("cache_hit_rate of warm prompt %s of %s not checked: the endpoint reports no prompt tokens in its usage", first(w.Prompts), tgt)
	case compare.WarnNoSLO:
		return "slo_attainment check skipped: no prompt of this run has an slo: (set one on a target or a prompt, e.g. slo: {ttft: 500ms, itl: 50ms})"
	case compare.WarnUnresolvable:
		which := "prompt " + first(w.Prompts)
		if len(w.Prompts) > 1 {
			which = "prompts " + strings.Join(w.Prompts, ", ")
		}
		if w.NameTarget {
			which += " of " + tgt
		}
		return fmt.Sprintf("%s %s for %s cannot be resolved with %d %s: needs at least %d (raise run.requests, or run.max_requests for check's rounds)", w.Metric, w.Stat, which, w.Have, w.Unit, w.Need)
	case compare.WarnFailures:
		classes := make([]string, 0, len(w.ByClass))
		for k, v := range w.ByClass {
			classes = append(classes, fmt.Sprintf("%s %d", k, v))
		}
		slices.Sort(classes)
		msg := fmt.Sprintf("%s%s: %d of %d requests failed (%.1f%%: %s); failed requests are not samples",
			side, tgt, w.Count, w.Requests, 100*float64(w.Count)/float64(max(w.Requests, 1)), strings.Join(classes, ", "))
		if w.Said != "" {
			msg += results.SaidSep + w.Said
		}
		return msg
	case compare.WarnRetries:
		return fmt.Sprintf("%s%s: %d retries after HTTP 429 (timings are the final attempt's)", side, tgt, w.Count)
	case compare.WarnLost:
		return fmt.Sprintf("%s %s for prompt %s of %s: %d baseline requests had values, this run has none: the endpoint's answers changed shape (one chunk? no content token?), check them",
			w.Metric, w.Stat, first(w.Prompts), tgt, w.Count)
	case compare.WarnColdStart:
		of := "this run"
		if w.Side == "baseline" {
			of, side = "the baseline", ""
		}
		if w.Matched {
			other := "the baseline"
			if w.Side == "baseline" {
				other = "this run"
			}
			if w.Count == 0 {
				return fmt.Sprintf("%s%s: %s started cold over %d, but its first requests in %s are compared: too few to test its own start, and none to spare (each prompt needs every request it has for its checks), so a start of its own reads as slower here; raise run.warmup to send them unmeasured, or run.requests",
					side, tgt, other, w.Requests, of)
			}
			fewer := ""
			if w.Count < w.Requests {
				fewer = fmt.Sprintf("; %d, not %d, so the run keeps two thirds of its requests and each prompt what its checks need", w.Count, w.Requests)
			}
			return fmt.Sprintf("%s%s: its first %d measured requests in %s are not compared either, as %s started cold over %d (too few requests to test its own start%s); raise run.warmup to send them unmeasured",
				side, tgt, w.Count, of, other, w.Requests, fewer)
		}
		return fmt.Sprintf("%s%s started cold in %s: its first %d measured requests were ×%.2g slower in median TTFT than the rest and are not compared (the steady latency is); raise run.warmup to send them unmeasured",
			side, tgt, of, w.Count, w.Ratio)
	case compare.WarnCorrelated:
		of := "this run"
		if w.Side == "baseline" {
			of, side = "the baseline", ""
		}
		return fmt.Sprintf("%s%s's requests were correlated in arrival order in %s: its level wandered within the run, so its mean %s varied ×%.2g as much as independent requests would; the %s intervals carry that (wider, not a regression by itself): a server whose state drifts within a run (load, cache, throttling) needs more requests to decide",
			side, tgt, of, w.Metric, w.Ratio, w.Metric)
	case compare.WarnRunnerBusy:
		l := w.Lateness
		what := "no regression was within that delay"
		if w.Count > 0 {
			what = fmt.Sprintf("%s within that delay %s undecided, not blamed on the endpoint", plural(w.Count, "regression", "regressions"), map[bool]string{true: "is", false: "are"}[w.Count == 1])
		}
		sends := ""
		if sd := w.Sends; sd.Scheduled > 0 {
			sends = fmt.Sprintf("; its sends at %s requests/s were up to %s late (p99 of %d), and every time counts from the schedule", strconv.FormatFloat(w.Rate, 'g', -1, 64), numfmt.Millis(sd.LateP99MS), sd.Scheduled)
		}
		return fmt.Sprintf("%s%s: latgate's own runner was too busy to measure precisely: its timers woke up to %s late (p99 of %d probes; p95 %s, max %s; a quiet runner: about %s), and stream reads waited as long%s: %s; run on a quieter runner (fewer parallel jobs, a dedicated runner)",
			side, tgt, numfmt.Millis(l.P99MS), l.Probes, numfmt.Millis(l.P95MS), numfmt.Millis(l.MaxMS), numfmt.Millis(results.TimerGranularityMS+0.1), sends, what)
	case compare.WarnScheduleMissed:
		sd := w.Sends
		return fmt.Sprintf("%s%s: latgate could not keep up with the arrival schedule of %s requests/s: half its %d sends were over %s late (p99 %s, max %s; the bound %s at the median), so the endpoint got another load than asked and %s undecided; run on a quieter runner (fewer parallel jobs, a dedicated runner) or at a lower run.rate",
			side, tgt, strconv.FormatFloat(w.Rate, 'g', -1, 64), sd.Scheduled, numfmt.Millis(sd.LateP50MS), numfmt.Millis(sd.LateP99MS), numfmt.Millis(sd.LateMaxMS), numfmt.Millis(results.ScheduleLateMS),
			map[bool]string{true: "its check is", false: "its " + strconv.Itoa(w.Count) + " checks are"}[w.Count == 1])
	case compare.WarnNothingCompared:
		if w.Side == "both" {
			return "nothing was compared: no check applies to a target and prompt measured on both sides"
		}
		return "nothing was compared: no check applies to a target and prompt present in both runs"
	}
	return string(w.Kind) // a kind this version does not word: still shown
}

// targetLabel names a target in a sentence: "target api", or "target api
// (region eu)".
func targetLabel(name, region string) string {
	if region != "" {
		return fmt.Sprintf("target %s (region %s)", name, region)
	}
	return "target " + name
}

func first(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	return ss[0]
}
