package report

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/latgate/latgate/internal/numfmt"
	"github.com/latgate/latgate/internal/sanitize"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

// Measure writes the per-target table of a run: P50/P95 of TTFT, ITL and
// total, tokens/s and errors per prompt, then the target overall.
func Measure(w io.Writer, f *results.File) error {
	ew := &errWriter{w: w}
	switch {
	case f.Partial && f.GaveUp:
		// The command's last line says why, once, with the endpoint's
		// words: the error (exit 3), or the regression of a slow run.
		fmt.Fprint(ew, "PARTIAL RUN: the run gave up early; why is the last thing latgate prints\n\n")
	case f.Partial:
		fmt.Fprintf(ew, "%s\n\n", wrap("PARTIAL RUN: "+f.PartialReason, lineWidth, "  "))
	}
	for ti, t := range f.Targets {
		if ti > 0 {
			fmt.Fprintln(ew)
		}
		fmt.Fprintln(ew, wrap(fmt.Sprintf("target %s: model %s at %s (%s per prompt, %s)",
			measuredName(t), t.Model, t.BaseURL, perPrompt(t, f), loadOf(f.Run)), lineWidth, "  "))
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
		head, rows := measureRows(t, f.Run)
		fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
		for _, r := range rows {
			fmt.Fprintln(tw, strings.Join(r, "\t")+"\t")
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, n := range notes(t, f.Run) {
			fmt.Fprintln(ew, wrap("note: "+n, lineWidth, "      "))
		}
	}
	return ew.err
}

// measuredName is a target as the measurement tables head it: "name
// [region]".
func measuredName(t results.Target) string {
	if t.Region != "" {
		return t.Name + " [" + t.Region + "]"
	}
	return t.Name
}

// measureRows are the header and the cells of a target's measurement
// table, one row per prompt and then the overall row, for Measure and
// MeasureMarkdown.
func measureRows(t results.Target, run results.Run) (head []string, rows [][]string) {
	tail := tailOf(t, run)
	head = []string{"prompt", "n", "TTFT p50", fmt.Sprintf("TTFT p%d", tail), "ITL p50", "ITL p95", "total p50", fmt.Sprintf("total p%d", tail), "tok/s p50", "errors"}
	ps := append(append([]results.Prompt{}, t.Prompts...), t.Overall)
	for i, p := range ps {
		m := p.Metrics
		n := 0
		if m.TTFT != nil {
			n = m.TTFT.N
		}
		samples := p.Samples
		if i == len(ps)-1 { // overall: every prompt's
			samples = nil
			for _, q := range t.Prompts {
				samples = append(samples, q.Samples...)
			}
		}
		rows = append(rows, []string{p.ID, strconv.Itoa(n),
			dur(m.TTFT, 50), tailDur(m.TTFT, samples, results.TTFT, tail), dur(m.ITL, 50), dur(m.ITL, 95),
			dur(m.Total, 50), tailDur(m.Total, samples, results.Total, tail), rate(m.TokensPerS), errs(p)})
	}
	return head, rows
}

// requestRange is the fewest and most requests a prompt of t was measured
// with (check's rounds measure some prompts more); run.requests when no
// prompt counts any (an empty run, or a file from before).
func requestRange(t results.Target, run results.Run) (lo, hi int) {
	for _, p := range t.Prompts {
		if p.Requests == 0 {
			continue
		}
		if lo == 0 || p.Requests < lo {
			lo = p.Requests
		}
		hi = max(hi, p.Requests)
	}
	if hi == 0 {
		return run.Requests, run.Requests
	}
	return lo, hi
}

// loadOf is the load a run measured at: "concurrency 2", or "at 8
// requests/s, poisson" for an arrival-rate run.
func loadOf(r results.Run) string {
	if r.OpenLoop() {
		return fmt.Sprintf("at %s requests/s, %s", strconv.FormatFloat(r.Rate, 'g', -1, 64), r.Arrival)
	}
	return fmt.Sprintf("concurrency %d", r.Concurrency)
}

// perPrompt says how many requests each prompt was measured with: "60
// requests", or "60–120 requests" after check's extra rounds; of a run
// that stopped early, of how many planned ("3 of 60 requests").
func perPrompt(t results.Target, f *results.File) string {
	if f.Partial {
		_, hi := requestRange(t, results.Run{})
		return fmt.Sprintf("%d of %s", hi, plural(f.Run.Requests, "request", "requests"))
	}
	lo, hi := requestRange(t, f.Run)
	if lo == hi {
		return plural(lo, "request", "requests")
	}
	return fmt.Sprintf("%d–%d requests", lo, hi)
}

// notes states what the numbers cannot say: unresolvable percentiles, token
// counts that came from chunks, retries and errors.
func notes(t results.Target, run results.Run) []string {
	var out []string
	for _, line := range []string{SendsLine(t, run), StallLine(t, run)} {
		if line != "" {
			out = append(out, line)
		}
	}
	if line := CacheLine(t); line != "" {
		out = append(out, line)
	}
	out = append(out, ChainLines(t)...) // chain.go
	if lo, _ := requestRange(t, run); lo > 0 && t.Requests > 0 && tailOf(t, run) == 95 {
		if need := (stats.Stat{P: 0.95}).Need(0.95); lo < need {
			out = append(out, fmt.Sprintf("per-prompt TTFT and total p95 from %d requests are not resolvable (need %d for a distribution-free bound): read them as rough values, or raise run.requests", lo, need))
		}
	}
	chunks := 0
	for _, p := range t.Prompts {
		for _, s := range p.Samples {
			if s.TokenSource == "chunks" {
				chunks++
			}
		}
	}
	if chunks > 0 {
		out = append(out, fmt.Sprintf("%s no usage report: output tokens were counted from chunks", plural(chunks, "request had", "requests had")))
	}
	if t.Retries > 0 {
		out = append(out, fmt.Sprintf("%s after HTTP 429 (timings are the final attempt's)", plural(t.Retries, "retry", "retries")))
	}
	if t.Errors > 0 {
		classes := make([]string, 0, len(t.ByClass))
		for k, v := range t.ByClass {
			classes = append(classes, fmt.Sprintf("%s %d", k, v))
		}
		sort.Strings(classes)
		out = append(out, fmt.Sprintf("%d of %d requests failed (%.1f%%): %s; failed requests are not samples",
			t.Errors, t.Requests, 100*t.ErrorRate, strings.Join(classes, ", ")))
		if said := results.EndpointSaid(t.FirstFailures(results.MaxSaidPerClass)); said != "" {
			out = append(out, "the endpoint said: "+said)
		}
	}
	return out
}

// tailOf is the tail percentile the table shows of TTFT and total, per
// request: 95, unless the fewest requests of a prompt cannot bound a P95
// distribution-free (72 at 95%) but can bound a P90 (36), as at the
// defaults' 60: then 90, computed from the samples — the percentile the
// default gate checks, and no number that cannot be bounded. A file without
// samples shows its P95.
func tailOf(t results.Target, run results.Run) int {
	lo, _ := requestRange(t, run)
	if lo >= (stats.Stat{P: 0.95}).Need(0.95) || lo < (stats.Stat{P: 0.90}).Need(0.95) {
		return 95
	}
	for _, p := range t.Prompts {
		if len(p.Samples) == 0 && p.Requests > p.Errors {
			return 95
		}
	}
	return 90
}

// tailDur is the tail percentile of metric: the summary's P95, or the P90
// of the samples.
func tailDur(s *results.Summary, samples []results.Sample, metric string, tail int) string {
	if tail == 95 || s == nil {
		return dur(s, 95)
	}
	vals := results.Values(samples, metric)
	if len(vals) == 0 {
		return "-"
	}
	slices.Sort(vals)
	return numfmt.Millis(stats.Quantile(vals, 0.90))
}

func dur(s *results.Summary, p int) string {
	if s == nil {
		return "-"
	}
	v := s.P50
	if p == 95 {
		v = s.P95
	}
	return numfmt.Millis(v)
}

func rate(s *results.RateSummary) string {
	if s == nil {
		return "-"
	}
	return fmt.Sprintf("%.0f", s.P50)
}

func errs(p results.Prompt) string {
	if p.Requests == 0 {
		return "-"
	}
	return fmt.Sprintf("%d (%.0f%%)", p.Errors, 100*float64(p.Errors)/float64(p.Requests))
}

// errWriter keeps the first write error so rendering code stays linear.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// MeasureMarkdown is Measure as Markdown tables, one per target: what a
// run without a baseline measured (what bless would write), for the pull
// request's report and the job summary.
func MeasureMarkdown(w io.Writer, f *results.File) error {
	ew := &errWriter{w: w}
	for _, t := range f.Targets {
		fmt.Fprintf(ew, "\n**%s**: model %s at %s (%s per prompt, %s)\n\n", sanitize.Markdown(measuredName(t)), sanitize.Markdown(t.Model),
			sanitize.Markdown(t.BaseURL), perPrompt(t, f), loadOf(f.Run))
		head, rows := measureRows(t, f.Run)
		fmt.Fprintf(ew, "| %s |\n|---%s|\n", strings.Join(head, " | "), strings.Repeat("|--:", len(head)-1))
		for i, r := range rows {
			r[0] = sanitize.Markdown(r[0])
			if i == len(rows)-1 {
				r[0] = "**" + r[0] + "**" // overall
			}
			fmt.Fprintf(ew, "| %s |\n", strings.Join(r, " | "))
		}
	}
	return ew.err
}
