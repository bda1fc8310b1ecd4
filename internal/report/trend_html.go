package report

import (
	"fmt"
	"html"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/latgate/latgate/internal/history"
	"github.com/latgate/latgate/internal/trend"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

// TrendHTML writes the analysis as one self-contained HTML page, for a
// browser and for GitHub Pages: the outcome, a table of verdicts, and a
// chart per series (inline SVG) with the runs — the gated statistic, and
// P50 and P95 beside it — the segment means, each change point with its
// interval, the baseline and its tolerance band, and the dates baselines
// were blessed. The page loads nothing (no scripts, fonts or images; its
// Content-Security-Policy forbids them), so it opens offline, and every
// text in it is escaped.
func TrendHTML(w io.Writer, rep trend.Report, warnings []string, opts TrendOptions) error {
	ew := &errWriter{w: w}
	esc := html.EscapeString
	fmt.Fprint(ew, `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>latgate trend</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:1.5em auto;max-width:110em;padding:0 2em;color:#1f2328;background:#fff}
main.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(38em,1fr));gap:0 2em}
details.stats summary{cursor:pointer;color:#59636e;font-size:.88em}
h1{font-size:1.5em;margin:.2em 0}
h2{font-size:1.1em;margin:1.6em 0 .3em}
.outcome{font-weight:600;padding:.6em .8em;border-radius:6px;background:#dafbe1;border:1px solid #4ac26b}
.outcome.fail{background:#ffebe9;border-color:#ff8182}
.meta,.detail{color:#59636e;font-size:.88em}
table{border-collapse:collapse;font-size:.88em;margin:.8em 0;width:100%}
th,td{border:1px solid #d1d9e0;padding:.3em .5em;text-align:left;vertical-align:top}
th{background:#f6f8fa}
td.num{text-align:right;white-space:nowrap}
.v-regressed{color:#cf222e;font-weight:700}
.v-changed{color:#9a6700;font-weight:600}
.v-ok{color:#1a7f37}
.v-insufficient{color:#59636e}
svg.chart{width:100%;height:auto;background:#fff;border:1px solid #d1d9e0;border-radius:6px}
svg text{font-family:inherit;font-size:11px;fill:#59636e}
svg .stat{fill:none;stroke:#0969da;stroke-width:2}
svg .dot{fill:#0969da}
svg a .dot:hover{fill:#cf222e}
svg .p50{fill:none;stroke:#54aeff;stroke-width:1;stroke-dasharray:3 2}
svg .p95{fill:none;stroke:#8250df;stroke-width:1;stroke-dasharray:3 2}
svg .level{fill:none;stroke:#bc4c00;stroke-width:2.5}
svg .band{fill:#ddf4ff;opacity:.8}
svg .baseline{stroke:#59636e;stroke-width:1.2}
svg .limit{stroke:#0969da;stroke-width:1;stroke-dasharray:5 3}
svg .change{stroke:#9a6700;stroke-width:1.5;stroke-dasharray:4 3}
svg .change.regression{stroke:#cf222e;stroke-width:2}
svg .interval{fill:#d4a72c;opacity:.22}
svg .interval.regression{fill:#cf222e;opacity:.18}
svg .bless{stroke:#1a7f37;stroke-width:1.5}
svg .grid{stroke:#eaeef2;stroke-width:1}
svg text.lab-change{fill:#9a6700;font-weight:600}
svg text.lab-regression{fill:#cf222e;font-weight:700}
svg text.lab-bless{fill:#1a7f37}
.legend{font-size:.8em;color:#59636e;margin:.3em 0 0}
.legend span{margin-right:1.2em;white-space:nowrap}
.sw{display:inline-block;width:1.4em;height:.25em;vertical-align:middle;margin-right:.3em}
ul.warnings li{color:#9a6700}
</style>
</head>
<body>
`)
	fail := rep.Verdict == trend.Regressed
	fmt.Fprintf(ew, "<h1>latgate trend</h1>\n")
	cls := "outcome"
	if fail {
		cls += " fail"
	}
	fmt.Fprintf(ew, "<p class=\"%s\" id=\"outcome\" data-verdict=\"%s\">%s</p>\n", cls, esc(string(rep.Verdict)), esc(trendOutcome(rep)))
	if opts.Baseline != "" {
		fmt.Fprintf(ew, "<p class=\"meta\">Baseline: %s</p>\n", esc(opts.Baseline))
	}
	made := ""
	if !opts.Now.IsZero() {
		made = " Made " + opts.Now.UTC().Format("2006-01-02 15:04 MST") + "."
	}
	fmt.Fprintf(ew, "<p class=\"meta\">%s.%s</p>\n", esc(trendHead(rep, opts)), esc(made))
	if len(warnings) > 0 {
		fmt.Fprintln(ew, "<ul class=\"warnings\">")
		for _, warn := range warnings {
			fmt.Fprintf(ew, "<li>%s</li>\n", esc(warn))
		}
		fmt.Fprintln(ew, "</ul>")
	}
	if len(rep.Series) > 0 {
		fmt.Fprintln(ew, "<table id=\"verdicts\">\n<tr><th>target</th><th>prompt</th><th>check</th><th>runs</th><th>newest</th><th>vs baseline</th><th>last change point</th><th>verdict</th></tr>")
		for i, s := range rep.Series {
			newest, last := newestAndLast(s)
			lastCell := esc(last)
			if u := lastChangeURL(s); u != "" {
				lastCell = fmt.Sprintf("<a href=\"%s\">%s</a>", esc(u), lastCell)
			}
			fmt.Fprintf(ew, "<tr><td>%s</td><td><a href=\"#series-%d\">%s</a></td><td>%s %s</td><td class=\"num\">%d</td><td class=\"num\">%s</td><td>%s</td><td>%s</td><td class=\"v-%s\">%s</td></tr>\n",
				esc(results.Label(s.Target, s.Region)), i, esc(s.Prompt), esc(s.Metric), esc(s.Stat.String()), len(s.Points), esc(newest), esc(driftText(s.Drift)), lastCell, s.Verdict, esc(trendVerdictWord(s.Verdict)))
		}
		fmt.Fprintln(ew, "</table>")
	}
	fmt.Fprintln(ew, "<main class=\"charts\">")
	for i, s := range rep.Series {
		fmt.Fprintf(ew, "<section class=\"series\" id=\"series-%d\">\n<h2>%s — <span class=\"v-%s\">%s</span></h2>\n", i, esc(seriesWhere(s)), s.Verdict, esc(trendVerdictWord(s.Verdict)))
		seriesSVG(ew, s, rep.Blesses, len(s.Points)) // the page shows every run analysed
		fmt.Fprintf(ew, "<p class=\"detail\">%s</p>\n", esc(why(s)))
		if d := seriesDetail(s); d != "" {
			fmt.Fprintf(ew, "<details class=\"stats\"><summary>statistics</summary>\n<p class=\"detail\">%s</p>\n</details>\n", strings.ReplaceAll(esc(strings.TrimSpace(d)), "\n", "<br>\n"))
		}
		fmt.Fprintln(ew, "</section>")
	}
	for i, k := range rep.Knees {
		kneeHTML(ew, i, k)
	}
	fmt.Fprintln(ew, "</main>")
	fmt.Fprint(ew, "</body>\n</html>\n")
	return ew.err
}

func trendVerdictWord(v trend.Verdict) string {
	if v == trend.Regressed {
		return strings.ToUpper(string(v))
	}
	return string(v)
}

// The chart's geometry, in SVG user units.
const (
	svgW, svgH                   = 760, 280
	padL, padR, padT, padB       = 64, 16, 26, 42
	plotW, plotH                 = svgW - padL - padR, svgH - padT - padB
	maxChangeLabels, maxDateTick = 6, 8
)

// seriesSVG writes one series' chart.
func seriesSVG(w io.Writer, s trend.Series, blessed []time.Time, newest int) {
	esc := html.EscapeString
	pts := s.Points
	from := max(0, len(pts)-newest)
	pts = pts[from:]
	n := len(pts)
	fmt.Fprintf(w, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"%s\" data-series=\"%s\" data-runs=\"%d\" data-changes=\"%d\" data-verdict=\"%s\">\n",
		svgW, svgH, esc(seriesWhere(s)+": "+string(s.Verdict)), esc(seriesWhere(s)), n, len(s.Changes), s.Verdict)
	defer fmt.Fprintln(w, "</svg>")
	if n == 0 {
		fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\">no runs with this statistic</text>\n", svgW/2-70, svgH/2)
		return
	}
	p50, _ := stats.ParseStat("p50")
	p95, _ := stats.ParseStat("p95")
	side := func(st stats.Stat) []float64 {
		if st == s.Stat {
			return nil
		}
		out := make([]float64, n)
		any := false
		for i, p := range pts {
			v, ok := p.Summary.Get(st)
			out[i] = math.NaN()
			if ok && v > 0 {
				out[i], any = v, true
			}
		}
		if !any {
			return nil
		}
		return out
	}
	lo50, hi95 := side(p50), side(p95)
	// The segments' geometric means over the shown runs.
	bounds := []int{0}
	for _, c := range s.Changes {
		bounds = append(bounds, c.Index)
	}
	bounds = append(bounds, len(s.Points))
	level := make([]float64, len(s.Points))
	for k := 0; k+1 < len(bounds); k++ {
		a, b := bounds[k], bounds[k+1]
		sum := 0.0
		for _, p := range s.Points[a:b] {
			sum += math.Log(p.Value)
		}
		g := math.Exp(sum / float64(b-a))
		for i := a; i < b; i++ {
			level[i] = g
		}
	}
	// The y range: every value drawn.
	ymin, ymax := math.Inf(1), math.Inf(-1)
	see := func(v float64) {
		if v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
			ymin, ymax = min(ymin, v), max(ymax, v)
		}
	}
	for i, p := range pts {
		see(p.Value)
		if lo50 != nil {
			see(lo50[i])
		}
		if hi95 != nil {
			see(hi95[i])
		}
	}
	var bandLo, bandHi float64
	if d := s.Drift; d != nil {
		bandLo = d.Baseline
		bandHi = d.Baseline * d.Limit
		if results.HigherIsBetter(s.Metric) {
			bandHi = d.Baseline / d.Limit
		}
		see(bandLo)
		see(bandHi)
	}
	for _, c := range s.Changes {
		if c.Index-from >= 0 {
			lo, hi := c.Before*c.Lo, c.Before*c.Hi
			if results.HigherIsBetter(s.Metric) {
				lo, hi = c.Before/c.Hi, c.Before/c.Lo
			}
			see(lo)
			see(hi)
		}
	}
	lo, hi, step := niceRange(ymin, ymax)
	y := func(v float64) float64 { return padT + plotH - (v-lo)/(hi-lo)*plotH }
	x := func(i float64) float64 {
		if n == 1 {
			return padL + plotW/2
		}
		return padL + i/float64(n-1)*plotW
	}
	// Grid and the y axis.
	for v := lo; v <= hi+step/2; v += step {
		fmt.Fprintf(w, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>\n", padL, svgW-padR, y(v), y(v))
		fmt.Fprintf(w, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", padL-6, y(v)+4, esc(axisValue(v)))
	}
	fmt.Fprintf(w, "<text x=\"12\" y=\"%d\" transform=\"rotate(-90 12 %d)\" text-anchor=\"middle\">%s</text>\n", padT+plotH/2, padT+plotH/2, esc(s.Metric+" "+s.Stat.String()+unitOf(s)))
	// The tolerance band and the baseline.
	if d := s.Drift; d != nil {
		top, bottom := y(max(bandLo, bandHi)), y(min(bandLo, bandHi))
		fmt.Fprintf(w, "<rect class=\"band\" x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\"><title>%s</title></rect>\n", padL, top, plotW, bottom-top,
			esc(fmt.Sprintf("baseline %s, tolerance %s: up to %s", seriesValue(s, d.Baseline), pct(d.Limit), seriesValue(s, bandHi))))
		fmt.Fprintf(w, "<line class=\"baseline\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>\n", padL, svgW-padR, y(bandLo), y(bandLo))
		fmt.Fprintf(w, "<line class=\"limit\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>\n", padL, svgW-padR, y(bandHi), y(bandHi))
		fmt.Fprintf(w, "<text x=\"%d\" y=\"%.1f\">baseline %s, tolerance %s</text>\n", padL+6, y(max(bandLo, bandHi))-4, esc(seriesValue(s, bandLo)), esc(pct(d.Limit)))
	}
	// The dates the baselines were blessed, between the runs around them.
	for _, b := range blessed {
		i := -1
		for k, p := range pts {
			if !p.At.Before(b) {
				i = k
				break
			}
		}
		if i < 0 { // after the newest run
			continue
		}
		bx := float64(padL) - 3 // before the first run shown
		if i > 0 {
			bx = (x(float64(i-1)) + x(float64(i))) / 2
		}
		fmt.Fprintf(w, "<line class=\"bless\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"><title>%s</title></line>\n", bx, bx, padT, padT+plotH, esc("baseline blessed "+b.UTC().Format("2006-01-02 15:04 MST")))
		anchor := "middle"
		if i == 0 {
			anchor = "start"
		}
		fmt.Fprintf(w, "<text class=\"lab-bless\" x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">blessed %s</text>\n", bx+3, padT+plotH-6, anchor, esc(runDate(b)))
	}
	// Change points: a line where each is, its interval over the runs after it.
	labels := 0
	for k := len(s.Changes) - 1; k >= 0; k-- {
		c := s.Changes[k]
		i := c.Index - from
		if i <= 0 {
			continue
		}
		end := bounds[k+2] - from
		cx := (x(float64(i-1)) + x(float64(i))) / 2
		cls := "change"
		if c.Fails() {
			cls += " regression"
		}
		ilo, ihi := c.Before*c.Lo, c.Before*c.Hi
		if results.HigherIsBetter(s.Metric) {
			ilo, ihi = c.Before/c.Hi, c.Before/c.Lo
		}
		x2 := x(float64(end - 1))
		if end-1 <= i {
			x2 = x(float64(i)) + 4
		}
		text := fmt.Sprintf("change at run %d (%s): %s [%s, %s] at %s", c.Index+1, runDate(c.At), pct(c.Ratio), pct(c.Lo), pct(c.Hi), confPct(c.Level))
		fmt.Fprintf(w, "<rect class=\"interval %s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>%s</title></rect>\n",
			strings.TrimPrefix(cls, "change"), cx, y(ihi), x2-cx, y(ilo)-y(ihi), esc("interval of the level after the change: "+text))
		fmt.Fprintf(w, "<line class=\"%s\" data-run=\"%d\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"><title>%s</title></line>\n", cls, c.Index+1, cx, cx, padT, padT+plotH, esc(text))
		if labels < maxChangeLabels {
			lc := "lab-change"
			if c.Fails() {
				lc = "lab-regression"
			}
			fmt.Fprintf(w, "<text class=\"%s\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s [%s, %s]</text>\n", lc, cx, padT-8+12*(labels%2), esc(pct(c.Ratio)), esc(pct(c.Lo)), esc(pct(c.Hi)))
			labels++
		}
	}
	// P50 and P95 beside the gated statistic, then the segment means, then
	// the runs.
	for _, line := range []struct {
		cls  string
		vals []float64
	}{{"p50", lo50}, {"p95", hi95}} {
		if line.vals != nil {
			fmt.Fprintf(w, "<path class=\"%s\" d=\"%s\"/>\n", line.cls, pathOf(line.vals, x, y))
		}
	}
	var lv strings.Builder
	for k := 0; k+1 < len(bounds); k++ {
		a, b := max(bounds[k]-from, 0), bounds[k+1]-from
		if b <= 0 {
			continue
		}
		xa, xb := x(float64(a)), x(float64(b-1))
		if a > 0 {
			xa = (x(float64(a-1)) + x(float64(a))) / 2
		}
		if b < n {
			xb = (x(float64(b-1)) + x(float64(b))) / 2
		}
		fmt.Fprintf(&lv, "M%.1f %.1fH%.1f", xa, y(level[bounds[k]]), xb)
	}
	fmt.Fprintf(w, "<path class=\"level\" d=\"%s\"/>\n", lv.String())
	vals := make([]float64, n)
	for i, p := range pts {
		vals[i] = p.Value
	}
	fmt.Fprintf(w, "<path class=\"stat\" d=\"%s\"/>\n", pathOf(vals, x, y))
	for i, p := range pts {
		tip := fmt.Sprintf("run %d of %d, %s", from+i+1, len(s.Points), p.At.UTC().Format("2006-01-02 15:04"))
		if p.Commit != "" {
			tip += ", " + shortCommit(p.Commit)
		}
		tip += ": " + s.Stat.String() + " " + seriesValue(s, p.Value)
		dot := fmt.Sprintf("<circle class=\"dot\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.6\"><title>%s</title></circle>", x(float64(i)), y(p.Value), esc(tip))
		if u := history.SafeURL(p.CommitURL); u != "" {
			dot = fmt.Sprintf("<a href=\"%s\">%s</a>", esc(u), dot) // the run's commit
		}
		fmt.Fprintln(w, dot)
	}
	// The x axis: run numbers and dates.
	every := max(1, (n+maxDateTick-1)/maxDateTick)
	for i := 0; i < n; i += every {
		fmt.Fprintf(w, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d · %s</text>\n", x(float64(i)), padT+plotH+15, from+i+1, esc(pts[i].At.UTC().Format("01-02")))
	}
	fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\">run · date</text>\n", padL, svgH-3)
	legend := []string{`<tspan fill="#0969da">● ` + esc(s.Stat.String()) + `</tspan>`}
	if lo50 != nil {
		legend = append(legend, `<tspan fill="#54aeff">-- p50</tspan>`)
	}
	if hi95 != nil {
		legend = append(legend, `<tspan fill="#8250df">-- p95</tspan>`)
	}
	legend = append(legend, `<tspan fill="#bc4c00">▬ segment means</tspan>`)
	if s.Drift != nil {
		legend = append(legend, `<tspan fill="#0969da">▒ baseline + tolerance</tspan>`)
	}
	if len(s.Changes) > 0 {
		legend = append(legend, `<tspan fill="#9a6700">┆ change point, ▒ its interval</tspan>`)
	}
	fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", svgW-padR, svgH-3, strings.Join(legend, "  "))
}

// pathOf is an SVG path through the values (NaN: a gap).
func pathOf(vals []float64, x, y func(float64) float64) string {
	var b strings.Builder
	pen := false
	for i, v := range vals {
		if math.IsNaN(v) || v <= 0 {
			pen = false
			continue
		}
		cmd := "L"
		if !pen {
			cmd = "M"
		}
		fmt.Fprintf(&b, "%s%.1f %.1f", cmd, x(float64(i)), y(v))
		pen = true
	}
	return b.String()
}

// niceRange returns an axis from lo to hi with a round step, holding [a, b].
func niceRange(a, b float64) (lo, hi, step float64) {
	if !(b > a) {
		a, b = a*0.9, b*1.1+1e-9
	}
	span := b - a
	raw := span / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if step = m * mag; span/step <= 6 {
			break
		}
	}
	lo = math.Floor(a/step) * step
	hi = math.Ceil(b/step) * step
	if hi == lo {
		hi = lo + step
	}
	return lo, hi, step
}

func axisValue(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

func unitOf(s trend.Series) string {
	if results.HigherIsBetter(s.Metric) {
		return " (tokens/s)"
	}
	return " (ms)"
}

// lastChangeURL is the commit page of the run after the change point the
// table's cell names (newestAndLast: the last change point, or the change
// against the target's other prompts when that one fails): the point of
// its time and commit; "" when its record has none.
func lastChangeURL(s trend.Series) string {
	var c trend.Change
	switch n := len(s.Changes); {
	case s.Relative != nil && s.Relative.Fails():
		c = s.Relative.Change
	case n > 0:
		c = s.Changes[n-1]
	default:
		return ""
	}
	for _, p := range s.Points {
		if p.At.Equal(c.At) && p.Commit == c.Commit {
			return history.SafeURL(p.CommitURL)
		}
	}
	return ""
}
