package report

import (
	"fmt"
	"html"
	"io"
	"math"

	"github.com/latgate/latgate/internal/trend"
	"github.com/latgate/latgate/pkg/results"
)

// maxLoadCurves bounds the nights a latency-versus-load chart draws.
const maxLoadCurves = 7

// kneeHTML writes a target's knee section: the knee night by night with
// its interval, the reference and the tolerance's limit; and TTFT P95
// against the arrival rate for the newest sweeps (older ones paler).
func kneeHTML(w io.Writer, i int, k trend.KneeSeries) {
	esc := html.EscapeString
	verdict := "ok"
	switch {
	case k.Regressed:
		verdict = "REGRESSED"
	case k.RefN < trend.MinKneeRefRuns:
		verdict = "insufficient"
	}
	cls := map[string]string{"ok": "ok", "REGRESSED": "regressed", "insufficient": "insufficient"}[verdict]
	fmt.Fprintf(w, "<section class=\"series knee\" id=\"knee-%d\">\n<h2>knee of %s — <span class=\"v-%s\">%s</span></h2>\n", i, esc(results.Label(k.Target, k.Region)), cls, verdict)
	kneeSVG(w, k)
	loadSVG(w, k)
	fmt.Fprintf(w, "<p class=\"detail\">%s</p>\n</section>\n", esc(KneeTrendLine(k)))
}

// kneeSVG charts the knee per sweep: a dot and its interval a sweep, the
// reference and the limit (the reference less the tolerance).
func kneeSVG(w io.Writer, k trend.KneeSeries) {
	n := len(k.Points)
	top := 0.0
	for _, p := range k.Points {
		top = max(top, p.Hi, p.Rate)
	}
	top = max(top, k.Ref)
	lo, hi, step := niceRange(0, top*1.05)
	x := func(i float64) float64 {
		if n == 1 {
			return padL + plotW/2
		}
		return padL + i*plotW/float64(n-1)
	}
	y := func(v float64) float64 { return padT + plotH*(1-(v-lo)/(hi-lo)) }
	fmt.Fprintf(w, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"knee per sweep\">\n", svgW, svgH)
	for v := lo; v <= hi+step/2; v += step {
		fmt.Fprintf(w, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", padL, svgW-padR, y(v), y(v), padL-6, y(v)+4, axisValue(v))
	}
	fmt.Fprintf(w, "<text x=\"%d\" y=\"14\">requests/s (knee)</text>\n", padL)
	if k.RefN >= trend.MinKneeRefRuns {
		fmt.Fprintf(w, "<line class=\"baseline\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"><title>reference %.1f requests/s</title></line>\n", padL, svgW-padR, y(k.Ref), y(k.Ref), k.Ref)
		limit := k.Ref * (1 - k.Tolerance)
		fmt.Fprintf(w, "<line class=\"limit\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"><title>limit %.1f requests/s (%s%% below)</title></line>\n", padL, svgW-padR, y(limit), y(limit), limit, pctOf(k.Tolerance))
	}
	vals := make([]float64, n)
	for i, p := range k.Points {
		vals[i] = p.Rate
		fmt.Fprintf(w, "<rect class=\"interval\" x=\"%.1f\" width=\"6\" y=\"%.1f\" height=\"%.1f\"/>\n", x(float64(i))-3, y(p.Hi), math.Max(y(p.Lo)-y(p.Hi), 1))
	}
	fmt.Fprintf(w, "<path class=\"stat\" d=\"%s\"/>\n", pathOf(vals, x, y))
	for i, p := range k.Points {
		fmt.Fprintf(w, "<circle class=\"dot\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\"><title>%s: %.1f requests/s [%.1f, %.1f]</title></circle>\n", x(float64(i)), y(p.Rate), runDate(p.At), p.Rate, p.Lo, p.Hi)
	}
	if n > 0 {
		fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\">%s</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", padL, svgH-12, runDate(k.Points[0].At), svgW-padR, svgH-12, runDate(k.Points[n-1].At))
	}
	fmt.Fprintln(w, "</svg>")
	fmt.Fprintln(w, "<p class=\"legend\"><span><i class=\"sw\" style=\"background:#0969da\"></i>knee</span><span><i class=\"sw\" style=\"background:#d4a72c\"></i>its interval</span><span><i class=\"sw\" style=\"background:#59636e\"></i>reference</span><span><i class=\"sw\" style=\"background:#0969da;opacity:.5\"></i>limit</span></p>")
}

// loadSVG charts TTFT P95 against the arrival rate for the newest sweeps.
func loadSVG(w io.Writer, k trend.KneeSeries) {
	pts := k.Points[max(len(k.Points)-maxLoadCurves, 0):]
	rmax, tmax := 0.0, 0.0
	for _, p := range pts {
		for _, l := range p.Load {
			rmax, tmax = max(rmax, l.Rate), max(tmax, l.TTFTP95)
		}
	}
	if rmax == 0 || tmax == 0 {
		return
	}
	xlo, xhi, xstep := niceRange(0, rmax)
	ylo, yhi, ystep := niceRange(0, tmax*1.05)
	x := func(v float64) float64 { return padL + plotW*(v-xlo)/(xhi-xlo) }
	y := func(v float64) float64 { return padT + plotH*(1-(v-ylo)/(yhi-ylo)) }
	fmt.Fprintf(w, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"TTFT P95 against the arrival rate\">\n", svgW, svgH)
	for v := ylo; v <= yhi+ystep/2; v += ystep {
		fmt.Fprintf(w, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", padL, svgW-padR, y(v), y(v), padL-6, y(v)+4, axisValue(v))
	}
	for v := xlo; v <= xhi+xstep/2; v += xstep {
		fmt.Fprintf(w, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x(v), svgH-24, axisValue(v))
	}
	fmt.Fprintf(w, "<text x=\"%d\" y=\"14\">TTFT P95 (ms) against requests/s, the newest %d sweeps (older paler)</text>\n", padL, len(pts))
	for i, p := range pts {
		var d string
		for j, l := range p.Load {
			cmd := "L"
			if j == 0 {
				cmd = "M"
			}
			d += fmt.Sprintf("%s%.1f %.1f", cmd, x(l.Rate), y(l.TTFTP95))
		}
		op := 0.25 + 0.75*float64(i+1)/float64(len(pts))
		fmt.Fprintf(w, "<path class=\"stat\" style=\"opacity:%.2f\" d=\"%s\"><title>%s</title></path>\n", op, d, runDate(p.At))
	}
	fmt.Fprintln(w, "</svg>")
}
