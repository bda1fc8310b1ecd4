package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jstemmer/go-junit-report/v2/junit"

	"github.com/latgate/latgate/internal/numfmt"
	"github.com/latgate/latgate/internal/sanitize"
	"github.com/latgate/latgate/internal/trend"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

// TrendOptions tune the renderings of a trend analysis.
type TrendOptions struct {
	// History names the history file; Runs is how many records it held.
	History string
	// Chart is how many of the newest runs a chart shows (default 30).
	Chart int
	// Now dates the report ("3 days ago"); zero leaves ages out.
	Now time.Time
	// Baseline says when and where the baseline was blessed ("" for none).
	Baseline string
	// Wide keeps the table's every column however wide (--wide).
	Wide bool
}

func (o TrendOptions) chart() int {
	if o.Chart <= 0 {
		return 30
	}
	return o.Chart
}

func seriesWhere(s trend.Series) string {
	return results.Label(s.Target, s.Region) + "/" + s.Prompt + " " + s.Metric + " " + s.Stat.String()
}

// seriesValue is a value of the series' statistic with its unit.
func seriesValue(s trend.Series, v float64) string {
	if results.HigherIsBetter(s.Metric) {
		return strconv.FormatFloat(v, 'f', 1, 64) + " tok/s"
	}
	return numfmt.Millis(v)
}

// runDate is a run's date as reports show it.
func runDate(t time.Time) string { return t.UTC().Format("2006-01-02") }

func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// newestAndLast are a series' newest value ("–" without runs) and its last
// change point ("none"), as the trend tables show them.
func newestAndLast(s trend.Series) (newest, last string) {
	newest, last = "–", "none"
	if n := len(s.Points); n > 0 {
		newest = seriesValue(s, s.Points[n-1].Value)
	}
	if n := len(s.Changes); n > 0 {
		last = changeText(s, s.Changes[n-1])
	}
	if r := s.Relative; r != nil && r.Fails() {
		last = changeText(s, r.Change) + " vs the other prompts"
	}
	return newest, last
}

// changeText describes a change point: "+31% [+22%, +40%] at run 15 (2026-11-15, c0ffee)".
func changeText(s trend.Series, c trend.Change) string {
	where := fmt.Sprintf("run %d of %d (%s", c.Index+1, len(s.Points), runDate(c.At))
	if c.Commit != "" {
		where += ", " + shortCommit(c.Commit)
	}
	return fmt.Sprintf("%s [%s, %s] at %s)", pct(c.Ratio), pct(c.Lo), pct(c.Hi), where)
}

func pct(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return "?"
	}
	v := 100 * (r - 1)
	if math.Abs(v) < 0.05 {
		return "+0.0%"
	}
	if math.Abs(v) < 10 {
		return fmt.Sprintf("%+.1f%%", v)
	}
	return fmt.Sprintf("%+.0f%%", v)
}

// driftText is a series' change against the baseline. Without one it is
// "not compared", not "no baseline": a baseline may be there and the
// series too short to compare yet, or its statistic not in the baseline
// (a p90 before latgate kept one); the head says whether there is one.
func driftText(d *trend.Drift) string {
	if d == nil {
		return "not compared"
	}
	return fmt.Sprintf("%s [%s, %s]", pct(d.Ratio), pct(d.Lo), pct(d.Hi))
}

// why is a series' verdict in words.
func why(s trend.Series) string {
	switch s.Verdict {
	case trend.Regressed:
		if n := len(s.Changes); n > 0 && s.Changes[n-1].Fails() {
			c := s.Changes[n-1]
			if r := c.Raised; r != nil && !c.Regression {
				return fmt.Sprintf("%s: slower from a change point, %s; found beyond the %s tolerance when the history had %d runs (%s [%s, %s] at %s), and the alarm stands until a bless",
					seriesWhere(s), changeText(s, c), pct(c.Limit), r.Runs, pct(r.Ratio), pct(r.Lo), pct(r.Hi), confPct(r.Level))
			}
			return fmt.Sprintf("%s: slower from a change point, %s, beyond the %s tolerance", seriesWhere(s), changeText(s, c), pct(c.Limit))
		}
		if d := s.Drift; d != nil && d.Beyond {
			return fmt.Sprintf("%s: the newest %d runs are %s from the baseline (%s → %s), beyond the %s tolerance",
				seriesWhere(s), d.Runs, driftText(d), seriesValue(s, d.Baseline), seriesValue(s, d.Current), pct(d.Limit))
		}
		if r := s.Relative; r != nil && r.Fails() {
			tail := ""
			if rr := r.Raised; rr != nil && !r.Regression {
				tail = fmt.Sprintf("; found so when the history had %d runs (%s [%s, %s] at %s), and the alarm stands until a bless", rr.Runs, pct(rr.Ratio), pct(rr.Lo), pct(rr.Hi), confPct(rr.Level))
			}
			return fmt.Sprintf("%s: slower than the target's other %d prompts, which held steady: %s (%s → %s), beyond the %s tolerance%s",
				seriesWhere(s), r.Others, changeText(s, r.Change), seriesValue(s, r.Before), seriesValue(s, r.After), pct(r.Limit), tail)
		}
		d := s.Since
		if d == nil {
			return seriesWhere(s) + ": " + s.Why
		}
		return fmt.Sprintf("%s: the newest %d runs are %s [%s, %s] from the level at the bless (%s, %d runs from %s), beyond the %s tolerance",
			seriesWhere(s), d.Recent, pct(d.Ratio), pct(d.Lo), pct(d.Hi), seriesValue(s, d.Level), d.Runs, runDate(d.From), pct(d.Limit))
	case trend.Changed:
		c := s.Changes[len(s.Changes)-1]
		note := "within the tolerance"
		if c.Blessed {
			note = "before the baseline was blessed"
		}
		return fmt.Sprintf("%s: change %s, %s", seriesWhere(s), changeText(s, c), note)
	case trend.Insufficient:
		return seriesWhere(s) + ": " + s.Why
	}
	return seriesWhere(s) + ": no change"
}

// TrendText writes the trend analysis for a terminal or a CI log: one row
// per series, the warnings, and a final line with the verdict.
func TrendText(w io.Writer, rep trend.Report, warnings []string, opts TrendOptions) error {
	ew := &errWriter{w: w}
	fmt.Fprintln(ew, wrap(trendHead(rep, opts), lineWidth, "  "))
	if opts.Baseline != "" {
		fmt.Fprintln(ew, wrap("baseline "+opts.Baseline, lineWidth, "  "))
	}
	if len(rep.Series) > 0 {
		fmt.Fprintln(ew)
		rows := [][]string{{"target", "prompt", "check", "runs", "newest", "vs baseline", "last change point", "verdict"}}
		for _, s := range rep.Series {
			newest, last := newestAndLast(s)
			t := results.Label(s.Target, s.Region)
			v := string(s.Verdict)
			if s.Verdict == trend.Regressed {
				v = strings.ToUpper(v)
			}
			rows = append(rows, []string{t, s.Prompt, s.Metric + " " + s.Stat.String(), strconv.Itoa(len(s.Points)), newest, driftText(s.Drift), last, v})
		}
		alignRight(rows, 3)
		alignRight(rows, 4)
		notes := map[int]string{}
		rows, _ = fitTable(rows, notes, 6, "last change point: ", "none", nil, opts.Wide)
		if err := tableNotes(ew, rows, notes); err != nil {
			return err
		}
	}
	if len(rep.Knees) > 0 {
		fmt.Fprintln(ew)
		for _, k := range rep.Knees {
			fmt.Fprintln(ew, wrap(KneeTrendLine(k), lineWidth, "  "))
		}
	}
	if len(warnings) > 0 {
		fmt.Fprintln(ew)
		for _, warn := range warnings {
			fmt.Fprintln(ew, wrap("warning: "+warn, lineWidth, "         "))
		}
	}
	fmt.Fprintf(ew, "\n%s\n", wrap(trendOutcome(rep), lineWidth, "      "))
	if next := trendNext(rep); next != "" {
		fmt.Fprintln(ew, wrap(next, lineWidth, "      "))
	}
	return ew.err
}

// trendNext is the step a failing trend ends with, as every failing command
// does: "" when no series regressed.
func trendNext(rep trend.Report) string {
	for _, k := range rep.Knees {
		if k.Regressed {
			return "next: find what changed in the serving stack the night the knee fell (server version, batch size, " +
				"quantization, GPUs: the history records each sweep's commit and runner); latgate sweep --rates around the " +
				"old knee shows where it is now; if the new capacity is intended, bless again (latgate bless) to make it the reference"
		}
	}
	for _, s := range rep.Series {
		if s.Verdict == trend.Regressed {
			return "next: find what changed around the change point (the commits, deploys and provider " +
				"changes of that night; the history records each run's commit and runner), and confirm it by " +
				"measuring both sides in one run (latgate ab); if the new level is intended, bless again " +
				"(latgate bless) so that drift is measured from it"
		}
	}
	return ""
}

func trendHead(rep trend.Report, opts TrendOptions) string {
	o := rep.Options
	src := "the history"
	if opts.History != "" {
		src = opts.History
	}
	return fmt.Sprintf("trend of %s: %s, the newest %d analysed per series; change points by E-divisive means (both ends searched, α %g per segment, ≥ %d runs a side); regressions decided on intervals at %s false alarms a night across the %s (Benjamini–Hochberg), each change's test spent over the nights after it; noise around the segment levels, autocorrelation allowed; drift = the newest %d runs vs the baseline and vs the level at the bless; each prompt also against its target's other prompts (the night's shared noise cancelled)",
		src, plural(rep.Runs, "run", "runs"), o.Window, o.Alpha, o.MinSegment, confPct(o.FalseAlarm), plural(rep.Tests, "test", "tests"), o.Recent)
}

// trendOutcome is the final line: "FAIL: …", "ok: …" or "no verdict: …".
func trendOutcome(rep trend.Report) string {
	var reg, changed, ok, few []trend.Series
	for _, s := range rep.Series {
		switch s.Verdict {
		case trend.Regressed:
			reg = append(reg, s)
		case trend.Changed:
			changed = append(changed, s)
		case trend.OK:
			ok = append(ok, s)
		default:
			few = append(few, s)
		}
	}
	counts := fmt.Sprintf("%d regressed, %d changed, %d ok, %d with too few runs", len(reg), len(changed), len(ok), len(few))
	kneesFell := 0
	for _, k := range rep.Knees {
		if k.Regressed {
			kneesFell++
		}
	}
	if len(rep.Knees) > 0 {
		counts += fmt.Sprintf("; %d of %s fell", kneesFell, plural(len(rep.Knees), "knee", "knees"))
	}
	for _, k := range rep.Knees {
		if k.Regressed && len(reg) == 0 {
			return fmt.Sprintf("FAIL: the knee of target %s fell %s, beyond its %s%% tolerance (%s)", results.Label(k.Target, k.Region), strings.TrimPrefix(pct(1+k.Change), "-"), pctOf(k.Tolerance), counts)
		}
	}
	switch {
	case len(reg) > 0:
		lead := reg[0]
		if h := rep.Headline; h != nil {
			if s, _ := h.Get(rep); s.Verdict == trend.Regressed {
				lead = s
			}
		}
		return "FAIL: " + why(lead) + " (" + counts + ")"
	case (len(rep.Series) == 0 || len(few) == len(rep.Series)) && len(rep.Knees) == 0:
		return "ok: not enough runs for a verdict yet (" + counts + ")"
	}
	return "ok: no regression (" + counts + ")"
}

// TrendMarkdown writes the analysis as Markdown: the outcome, a chart of
// each series that changed (the headline's first), a table and the
// warnings.
func TrendMarkdown(w io.Writer, rep trend.Report, warnings []string, opts TrendOptions) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "## latgate trend\n\n**%s**\n\n", sanitize.Markdown(trendOutcome(rep)))
	if next := trendNext(rep); next != "" {
		fmt.Fprintf(ew, "%s\n\n", sanitize.Markdown(next))
	}
	if opts.Baseline != "" {
		fmt.Fprintf(ew, "Baseline: %s\n\n", sanitize.Markdown(opts.Baseline))
	}
	charted := chartSeries(rep)
	for _, s := range charted {
		TrendChart(ew, s, opts.chart())
	}
	if n := changedCount(rep) - len(charted); n > 0 {
		fmt.Fprintf(ew, "%s changed beyond these charts: the HTML page (trend --html) charts every series.\n\n", plural(n, "more series", "more series"))
	}
	if len(rep.Series) > 0 {
		fmt.Fprintln(ew, "| target | prompt | check | runs | newest | vs baseline | last change point | verdict |")
		fmt.Fprintln(ew, "|---|---|---|--:|--:|---|---|---|")
		for _, s := range rep.Series {
			newest, last := newestAndLast(s)
			v := string(s.Verdict)
			if s.Verdict == trend.Regressed {
				v = "**" + strings.ToUpper(v) + "**"
			}
			fmt.Fprintf(ew, "| %s | %s | %s %s | %d | %s | %s | %s | %s |\n", sanitize.Markdown(s.Target), sanitize.Markdown(s.Prompt), s.Metric, s.Stat,
				len(s.Points), newest, driftText(s.Drift), sanitize.Markdown(last), v)
		}
		fmt.Fprintln(ew)
	}
	for _, k := range rep.Knees {
		fmt.Fprintf(ew, "- %s\n", sanitize.Markdown(KneeTrendLine(k)))
	}
	if len(rep.Knees) > 0 {
		fmt.Fprintln(ew)
	}
	for _, warn := range warnings {
		fmt.Fprintf(ew, "- ⚠️ %s\n", sanitize.Markdown(warn))
	}
	if len(warnings) > 0 {
		fmt.Fprintln(ew)
	}
	fmt.Fprintf(ew, "<sub>%s</sub>\n", sanitize.Markdown(trendHead(rep, opts)))
	return ew.err
}

// maxMarkdownCharts bounds the charts of a Markdown report (a pull request
// comment or a job summary has a size limit, and a reader a patience).
const maxMarkdownCharts = 8

// chartSeries picks the series to chart: every series that changed or
// regressed, the headline's first, then the regressed ones, at most
// maxMarkdownCharts.
func chartSeries(rep trend.Report) []trend.Series {
	var out []trend.Series
	head := -1
	if h := rep.Headline; h != nil {
		head = h.Series
		out = append(out, rep.Series[head])
	}
	for _, want := range []trend.Verdict{trend.Regressed, trend.Changed} {
		for i, s := range rep.Series {
			if i != head && s.Verdict == want && len(s.Points) >= 2 && len(out) < maxMarkdownCharts {
				out = append(out, s)
			}
		}
	}
	return out
}

func changedCount(rep trend.Report) int {
	n := 0
	for _, s := range rep.Series {
		if (s.Verdict == trend.Regressed || s.Verdict == trend.Changed) && len(s.Points) >= 2 {
			n++
		}
	}
	return n
}

// TrendChart writes a Mermaid xychart-beta line chart of the newest n runs
// of s: the runs' values, the level of each segment between change points
// (a step where a change is), and the baseline's tolerance limit when there
// is a baseline. Mermaid's xychart has no markers or legend, so the title
// names the lines and a change point's run is labelled "N change".
func TrendChart(w io.Writer, s trend.Series, n int) {
	pts := s.Points
	from := max(0, len(pts)-n)
	if len(pts)-from < 2 {
		return
	}
	level := make([]float64, len(pts))
	bounds := []int{0}
	for _, c := range s.Changes {
		bounds = append(bounds, c.Index)
	}
	bounds = append(bounds, len(pts))
	for k := 0; k+1 < len(bounds); k++ {
		lo, hi := bounds[k], bounds[k+1]
		sum := 0.0
		for _, p := range pts[lo:hi] {
			sum += math.Log(p.Value)
		}
		g := math.Exp(sum / float64(hi-lo))
		for i := lo; i < hi; i++ {
			level[i] = g
		}
	}
	var labels, vals, levels, limit []string
	top := 0.0
	sides := map[string][]string{}
	var sideNames []string
	for _, name := range []string{"p50", "p95"} {
		if st, _ := stats.ParseStat(name); st != s.Stat {
			sideNames = append(sideNames, name)
		}
	}
	for i := from; i < len(pts); i++ {
		label := strconv.Itoa(i + 1)
		if slices.ContainsFunc(s.Changes, func(c trend.Change) bool { return c.Index == i }) {
			label += " change"
		}
		labels = append(labels, `"`+label+`"`)
		vals = append(vals, mermaidNumber(pts[i].Value))
		levels = append(levels, mermaidNumber(level[i]))
		top = max(top, pts[i].Value)
		for _, name := range sideNames {
			st, _ := stats.ParseStat(name)
			v, ok := pts[i].Summary.Get(st)
			if !ok || !(v > 0) {
				v = pts[i].Value // a record without it: the line joins the runs'
			}
			sides[name] = append(sides[name], mermaidNumber(v))
			top = max(top, v)
		}
	}
	lines := "runs, segment means"
	for _, name := range sideNames {
		lines += ", " + name
	}
	if s.Drift != nil {
		lim := s.Drift.Baseline * s.Drift.Limit
		for range vals {
			limit = append(limit, mermaidNumber(lim))
		}
		top = max(top, lim)
		lines += ", baseline tolerance limit"
	}
	title := seriesWhere(s)
	fmt.Fprint(w, "```mermaid\nxychart-beta\n")
	fmt.Fprintf(w, "    title %s\n", mermaidString(title, 60, fmt.Sprintf(" (ms), last %d runs: %s", len(vals), lines)))
	fmt.Fprintf(w, "    x-axis %q [%s]\n", "run", strings.Join(labels, ", "))
	fmt.Fprintf(w, "    y-axis \"%s %s (ms)\" 0 --> %s\n", s.Metric, s.Stat, mermaidNumber(niceCeil(1.1*top)))
	fmt.Fprintf(w, "    line [%s]\n", strings.Join(vals, ", "))
	fmt.Fprintf(w, "    line [%s]\n", strings.Join(levels, ", "))
	for _, name := range sideNames {
		fmt.Fprintf(w, "    line [%s]\n", strings.Join(sides[name], ", "))
	}
	if len(limit) > 0 {
		fmt.Fprintf(w, "    line [%s]\n", strings.Join(limit, ", "))
	}
	fmt.Fprint(w, "```\n\n")
}

// TrendAnnotations writes GitHub workflow commands: an ::error per
// regressed series, a ::warning per warning and per change point within the
// tolerance, at most 10 of each.
func TrendAnnotations(w io.Writer, rep trend.Report, warnings []string) error {
	ew := &errWriter{w: w}
	var errs, warns []string
	for _, s := range rep.Series {
		switch s.Verdict {
		case trend.Regressed:
			errs = append(errs, "::error title="+escapeProperty("latency trend: "+seriesWhere(s))+"::"+escapeData(why(s)))
		case trend.Changed:
			warns = append(warns, "::warning title="+escapeProperty("latency change: "+seriesWhere(s))+"::"+escapeData(why(s)))
		}
	}
	for _, warn := range warnings {
		warns = append(warns, "::warning title=latgate trend::"+escapeData(warn))
	}
	for _, l := range errs[:min(len(errs), maxAnnotations)] {
		fmt.Fprintln(ew, l)
	}
	for _, l := range warns[:min(len(warns), maxAnnotations)] {
		fmt.Fprintln(ew, l)
	}
	if n := len(errs) + len(warns) - len(errs[:min(len(errs), maxAnnotations)]) - len(warns[:min(len(warns), maxAnnotations)]); n > 0 {
		fmt.Fprintf(ew, "::notice title=latgate trend::%d more not annotated: see the trend report in the log\n", n)
	}
	return ew.err
}

// TrendJUnit writes the analysis as JUnit XML: one testsuite
// "latgate.trend", one testcase per series named "<target> <prompt> <metric>
// <stat>"; a regressed series is a <failure>, one with too few runs
// <skipped>.
func TrendJUnit(w io.Writer, rep trend.Report, warnings []string, opts TrendOptions) error {
	suite := junit.Testsuite{Name: "latgate.trend"}
	for _, s := range rep.Series {
		name := strings.Join([]string{results.Label(s.Target, s.Region), s.Prompt, s.Metric, s.Stat.String()}, " ")
		tc := junit.Testcase{Name: name, Classname: suite.Name, Time: "0.000"}
		switch s.Verdict {
		case trend.Regressed:
			tc.Failure = &junit.Result{Message: why(s), Type: "regression", Data: xmlText(seriesDetail(s))}
		case trend.Insufficient:
			tc.Skipped = &junit.Result{Message: why(s)}
		default:
			tc.SystemOut = &junit.Output{Data: xmlText(why(s) + "\n" + seriesDetail(s))}
		}
		suite.AddTestcase(tc)
	}
	for _, k := range rep.Knees {
		tc := junit.Testcase{Name: results.Label(k.Target, k.Region) + " knee", Classname: suite.Name, Time: "0.000"}
		switch {
		case k.Regressed:
			tc.Failure = &junit.Result{Message: KneeTrendLine(k), Type: "regression"}
		case k.RefN < trend.MinKneeRefRuns:
			tc.Skipped = &junit.Result{Message: KneeTrendLine(k)}
		default:
			tc.SystemOut = &junit.Output{Data: xmlText(KneeTrendLine(k))}
		}
		suite.AddTestcase(tc)
	}
	var out strings.Builder
	if opts.Baseline != "" {
		out.WriteString("baseline: " + opts.Baseline + "\n")
	}
	for _, warn := range warnings {
		out.WriteString("warning: " + warn + "\n")
	}
	if out.Len() > 0 {
		suite.SystemOut = &junit.Output{Data: xmlText(out.String())}
	}
	suite.Time = "0.000"
	suites := junit.Testsuites{Name: "latgate", Time: "0.000"}
	suites.AddSuite(suite)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	return suites.WriteXML(w)
}

// seriesDetail lists a series' change points and drift, one per line.
func seriesDetail(s trend.Series) string {
	var b strings.Builder
	for _, c := range s.Changes {
		fmt.Fprintf(&b, "change point: %s, %s → %s, %.1f standard errors, interval at %s", changeText(s, c), seriesValue(s, c.Before), seriesValue(s, c.After), c.Z, confPct(c.Level))
		if c.Tested {
			fmt.Fprintf(&b, "; tested against the %s tolerance: p = %.2g (spent over the nights after it, decided with %d runs after it)", pct(c.Limit), c.P, c.Look)
		}
		b.WriteString("\n")
	}
	if d := s.Drift; d != nil {
		fmt.Fprintf(&b, "vs baseline: %s at %s (%s → %s over the newest %d runs), tolerance %s, p = %.2g\n", driftText(d), confPct(d.Level), seriesValue(s, d.Baseline), seriesValue(s, d.Current), d.Runs, pct(d.Limit), d.P)
	}
	if d := s.Since; d != nil {
		fmt.Fprintf(&b, "vs the level at the bless: %s [%s, %s] at %s (%s over %d runs from %s → %s over the newest %d), tolerance %s, p = %.2g\n",
			pct(d.Ratio), pct(d.Lo), pct(d.Hi), confPct(d.Confidence), seriesValue(s, d.Level), d.Runs, runDate(d.From), seriesValue(s, d.Current), d.Recent, pct(d.Limit), d.P)
	}
	nz := s.Noise
	if nz.Sigma >= 0 {
		fmt.Fprintf(&b, "noise: σ %.1f%% of ln value from run to run, autocorrelation %.2f (%d degrees of freedom)\n", 100*nz.Sigma, nz.Rho, nz.DF)
	}
	return b.String()
}
