package report

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/latgate/latgate/internal/sanitize"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

// Markdown writes the comparison for a pull-request comment: a heading with
// the gate's status, the outcome line, a table per target (in the config's
// order, opts.Order; worst first without one), the
// warnings and a short note on how to read the intervals.
func Markdown(w io.Writer, rep compare.Report, opts Options) error {
	return markdown(w, rep, opts, false)
}

// GitHubSummary writes Markdown for $GITHUB_STEP_SUMMARY: Markdown's report
// with, above each target's table, a Mermaid bar chart of current against
// baseline TTFT per prompt at each of p50, p90 and p95 the gate checks. The tables
// stay, since chart rendering varies.
func GitHubSummary(w io.Writer, rep compare.Report, opts Options) error {
	return markdown(w, rep, opts, true)
}

func markdown(w io.Writer, rep compare.Report, opts Options, charts bool) error {
	ew := &errWriter{w: w}
	status, detail := outcome(rep, opts.Strict)
	icon := "✅"
	if strings.HasPrefix(status, "FAIL") {
		icon = "❌"
	}
	fmt.Fprintf(ew, "## %s latgate: %s\n\n%s\n\n", icon, status, sanitize.Markdown(withChanges(detail, rep)))
	fmt.Fprintf(ew, "<sub>%s</sub>\n", sanitize.Markdown(provenance(rep, opts)))

	all := inOrder(rep, opts)
	for _, target := range targets(append(all, rep.New...)) {
		fmt.Fprintf(ew, "\n### %s\n\n", sanitize.Markdown(target))
		for _, n := range opts.TargetNotes[target] {
			fmt.Fprintf(ew, "%s\n\n", sanitize.Markdown(n))
		}
		if charts {
			writeChart(ew, target, rep.Checks)
		}
		mdVerdictRows(ew, rep, all, target, mdColumns{sides: "baseline → current", labels: "changed since baseline"},
			func(c compare.Check) string { return sideValue(c, c.Baseline, c.NBase) },
			func(c compare.Check) string { return mdVerdictOf(c, opts.Strict) })
		for _, c := range rep.New {
			if targetOf(c) == target {
				fmt.Fprintf(ew, "| %s | %s | - → %s | - | - | - | 🆕 %s | %s |\n",
					sanitize.Markdown(c.Prompt), sanitize.Markdown(checkOf(c)), sideValue(c, c.Current, c.NCur), newWord, sanitize.Markdown(labels(c)))
			}
		}
		mdWhy(ew, target, all)
	}
	for _, line := range []string{decisionNote(rep, aggregateLabel), noiseNote(rep), CostLine("", opts.Cost)} {
		if line != "" {
			fmt.Fprintf(ew, "\n%s\n", sanitize.Markdown(line))
		}
	}
	if next := nextStep(rep, opts); next != "" {
		fmt.Fprintf(ew, "\n%s\n", sanitize.Markdown(next))
	}
	mdChanges(ew, rep)
	if len(rep.Warnings)+len(rep.Found) > 0 {
		fmt.Fprint(ew, "\n### Warnings\n\n")
		for _, warn := range Warnings(rep) {
			// The endpoint's own words go in a code block, where no
			// Markdown they hold can render.
			if before, said, ok := strings.Cut(warn, results.SaidSep); ok {
				fmt.Fprintf(ew, "- %s; the endpoint said:\n\n%s\n", sanitize.Markdown(before), strings.TrimRight(sanitize.CodeBlock(said), "\n"))
				continue
			}
			fmt.Fprintf(ew, "- %s\n", sanitize.Markdown(warn))
		}
	}
	read := howToRead(rep)
	if slices.ContainsFunc(all, isLimit) {
		read += " A *max* check holds the current statistic to an absolute limit, no baseline: its interval is of the " +
			"statistic itself (ms); it *regressed* when the whole interval lies above the limit, and is *ok* when the whole interval lies at or below it."
	}
	fmt.Fprintf(ew, "\n<details><summary>How to read this</summary>\n\n%s\n\n</details>\n", read)
	return ew.err
}

// mdWhy lists, under a target's table, what moved with each of its
// regressions (a table row cannot have a line of its own).
func mdWhy(w io.Writer, target string, all []compare.Check) {
	first := true
	for _, c := range all {
		line, ok := attribution(c)
		if !ok || targetOf(c) != target {
			continue
		}
		if first {
			fmt.Fprint(w, "\n**Why:** what moved with each regression\n\n")
			first = false
		}
		what := "**" + sanitize.Markdown(promptOf(c)+" "+checkOf(c)) + "**"
		if c.Ratio > 0 {
			what += " " + change(c)
		}
		fmt.Fprintf(w, "- %s — %s\n", what, sanitize.Markdown(line))
	}
}

// mdVerdictOf is a check's verdict in a Markdown table cell: mdVerdict, and
// for a pooled prompt check's inconclusive, that it does not hold the run.
func mdVerdictOf(c compare.Check, strict bool) string {
	if diagnostic(c) && c.Verdict == compare.Inconclusive {
		return "➖ inconclusive (pooled)"
	}
	return mdVerdict(c.Verdict, strict)
}

// mdVerdict is the verdict in a Markdown table cell, with its icon.
func mdVerdict(v compare.Verdict, strict bool) string {
	switch {
	case v == compare.Regressed:
		return "❌ **regressed**"
	case v.Fails(strict):
		return "❌ inconclusive (strict)"
	case v == compare.Inconclusive:
		return "⚠️ inconclusive"
	case v == compare.Improved:
		return "✅ improved"
	}
	return "✅ " + string(v)
}

// howToRead explains the columns and the decision rule in one paragraph.
func howToRead(rep compare.Report) string {
	conf := "*" + ciHead(rep) + "* is its distribution-free confidence interval"
	if rep.OkConfidence > 0 {
		conf += fmt.Sprintf(", %s sure at the end that calls a regression and %s at the end that calls ok%s", confPct((1+rep.Confidence)/2), confPct(rep.OkConfidence), symmetricNote(rep))
	}
	return fmt.Sprintf("*change* is current ÷ baseline − 1 for the statistic (for p50 of a per-request metric, the "+
		"Hodges–Lehmann shift of log latency); %[1]s (whole requests are the unit; "+
		"in check's rounds each look's interval is wider, so that all looks hold together), with the day-to-day noise "+
		"between the baseline's day and this run's added. "+
		"A check *regressed* only when the whole interval lies above the tolerance, max(relative tolerance, floor ÷ baseline); "+
		"it is *ok* when the interval rules that out, *improved* when the whole interval lies as far below, and "+
		"*inconclusive* when the interval straddles the tolerance or a side has too few requests for the statistic "+
		"(p95 needs ≥%[2]d, p99 ≥%[3]d). *%[4]s* pools a target's prompts (weighted by their precision) and decides the run; "+
		"a prompt's own check fails it only when beyond its tolerance after adjusting for the target's prompt tests of that check (Holm), "+
		"and otherwise informs, unless at its last look it is beyond its tolerance and apart from the rest: then it holds the run undecided.%[5]s",
		conf, stats.Stat{P: 0.95}.Need(rep.Confidence), stats.Stat{P: 0.99}.Need(rep.Confidence), aggregateLabel, rateNote(rep))
}

// rateNote explains the mirrored rule when the report gates tokens_per_s.
func rateNote(rep compare.Report) string {
	for _, c := range rep.Checks {
		if results.HigherIsBetter(c.Metric) {
			return " *tokens\\_per\\_s* is a rate, higher is better: the rule is mirrored, so it *regressed* when the whole interval lies below its (negative) tolerance, a drop in tokens/s."
		}
	}
	return ""
}

// maxChartPrompts caps the prompts of a chart; more would not be legible.
const maxChartPrompts = 8

// writeChart writes a Mermaid xychart-beta of a target's TTFT p50 and p95
// (those the gate checks), one category per statistic and prompt: a bar for
// the current run and a line through the baseline values. Bars and a line,
// not two bar series, because Mermaid versions differ in how they draw
// several bar series (overlaid or stacked); a bar and a line read the same in
// all. A chart needs two categories for its line to show.
func writeChart(w io.Writer, target string, checks []compare.Check) {
	var cs []compare.Check
	for _, c := range checks {
		if targetOf(c) == target && !isAggregate(c) && c.Metric == results.TTFT && (c.Stat == "p50" || c.Stat == "p90" || c.Stat == "p95") && hasData(c) {
			cs = append(cs, c)
		}
	}
	if len(cs) < 2 {
		return
	}
	// Keep the prompts with the largest changes, in name order.
	change := map[string]float64{}
	for _, c := range cs {
		change[c.Prompt] = max(change[c.Prompt], math.Abs(math.Log(c.Ratio)))
	}
	prompts := slices.Collect(maps.Keys(change))
	slices.SortFunc(prompts, func(a, b string) int {
		return cmp.Or(cmp.Compare(change[b], change[a]), strings.Compare(a, b))
	})
	note := ""
	if len(prompts) > maxChartPrompts {
		note = fmt.Sprintf(", %d of %d prompts", maxChartPrompts, len(prompts))
		prompts = prompts[:maxChartPrompts]
	}
	slices.SortStableFunc(cs, func(a, b compare.Check) int {
		return cmp.Or(strings.Compare(a.Stat, b.Stat), strings.Compare(a.Prompt, b.Prompt))
	})
	var labels, cur, base []string
	top := 0.0
	for _, c := range cs {
		if !slices.Contains(prompts, c.Prompt) {
			continue
		}
		labels = append(labels, mermaidString(c.Prompt, 20, " "+c.Stat))
		cur = append(cur, mermaidNumber(c.Current))
		base = append(base, mermaidNumber(c.Baseline))
		top = max(top, c.Current, c.Baseline)
	}
	fmt.Fprint(w, "```mermaid\nxychart-beta\n")
	fmt.Fprintf(w, "    title %s\n", mermaidString(target, 40, ": TTFT, current (bars) vs baseline (line)"+note))
	fmt.Fprintf(w, "    x-axis [%s]\n", strings.Join(labels, ", "))
	fmt.Fprintf(w, "    y-axis \"TTFT (ms)\" 0 --> %s\n", mermaidNumber(niceCeil(1.1*top)))
	fmt.Fprintf(w, "    bar [%s]\n", strings.Join(cur, ", "))
	fmt.Fprintf(w, "    line [%s]\n", strings.Join(base, ", "))
	fmt.Fprint(w, "```\n\n")
}

// mermaidString quotes s, shortened to at most n runes, and suffix for
// Mermaid. Mermaid strings cannot escape a quote, and comments (%%), entities
// (#…;) and backticks act even inside them, so everything but letters, digits
// and plain punctuation becomes '_'; the result is also safe in a code fence.
func mermaidString(s string, n int, suffix string) string {
	rs := []rune(s + suffix)
	if k := len([]rune(s)); k > n {
		rs = slices.Concat([]rune(s)[:n-1], []rune("…"+suffix))
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune(" -_./+(),:@=!?'…", r) {
			rs[i] = '_'
		}
	}
	return `"` + string(rs) + `"`
}

// mermaidNumber formats milliseconds to 0.1 ms in the plain decimal form
// Mermaid's grammar accepts (no exponent).
func mermaidNumber(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		v = 0
	}
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
}

// niceCeil rounds v up to 1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// mdColumns names a Markdown verdict table's comparison: its two sides, and
// the column of what differs between them (shown when some check has labels).
type mdColumns struct{ sides, labels string }

// mdVerdictRows writes the verdict table of target's checks (of all, in
// order): check's and ab's reports share it, with their own words for the
// sides, the base cell and the verdict cell.
func mdVerdictRows(ew io.Writer, rep compare.Report, all []compare.Check, target string, cols mdColumns, base, verdict func(compare.Check) string) {
	lab := labelled(rep)
	head, align, end := "", "", ""
	if lab {
		head, align = " "+cols.labels+" |", ":--|"
	}
	fmt.Fprintf(ew, "| prompt | check | %s | change | %s | tolerance | verdict |%s\n", cols.sides, ciHead(rep), head)
	fmt.Fprintln(ew, "|:--|:--|--:|--:|:-:|--:|:--|"+align)
	for _, c := range all {
		if targetOf(c) != target {
			continue
		}
		prompt := sanitize.Markdown(promptOf(c))
		if isAggregate(c) {
			prompt = "*" + prompt + "*"
		}
		chg := change(c)
		if c.Verdict == compare.Regressed && c.Ratio > 0 {
			chg = "**" + chg + "**"
		}
		if lab {
			end = " " + sanitize.Markdown(labels(c)) + " |"
		}
		fmt.Fprintf(ew, "| %s | %s | %s → %s | %s | %s | %s | %s |%s\n",
			prompt, sanitize.Markdown(checkOf(c)), base(c), sideValue(c, c.Current, c.NCur),
			chg, interval(c), sanitize.Markdown(tolerance(c)), verdict(c)+sanitize.Markdown(limitVerdict(c)), end)
	}
}
