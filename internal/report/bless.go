package report

import (
	"fmt"
	"io"
	"math"

	"github.com/latgate/latgate/internal/numfmt"
	"github.com/latgate/latgate/pkg/baseline"
	"github.com/latgate/latgate/pkg/results"
)

// BlessDiff writes what a bless changes against the previous baseline, one
// line per change in baseline.Diff's order (where, what, the relative change
// of a metric, before → after), or that nothing changed. The caller says
// when there was no previous baseline.
func BlessDiff(w io.Writer, changes []baseline.Change) error {
	ew := &errWriter{w: w}
	if len(changes) == 0 {
		fmt.Fprintln(ew, "no changes against the previous baseline")
		return ew.err
	}
	fmt.Fprintf(ew, "%s against the previous baseline:\n", plural(len(changes), "change", "changes"))
	var rows [][]string
	for _, c := range changes {
		what, fromTo, rel := describe(c)
		rows = append(rows, []string{"  " + changeWhere(c), what, rel, fromTo})
	}
	alignRight(rows, 2)
	if err := table(ew, rows); err != nil {
		return err
	}
	return ew.err
}

func changeWhere(c baseline.Change) string {
	s := results.Label(c.Target, c.Region)
	if c.Prompt != "" {
		s += "/" + c.Prompt
	}
	return s
}

// describe splits a change into what changed, its before → after, and the
// relative change of a metric.
func describe(c baseline.Change) (what, fromTo, rel string) {
	switch c.Kind {
	case baseline.TargetAdded:
		return "target added", "", ""
	case baseline.TargetRemoved:
		return "target removed", "", ""
	case baseline.PromptAdded:
		return "prompt added", "", ""
	case baseline.PromptRemoved:
		return "prompt removed", "", ""
	case baseline.PromptEdited:
		return "prompt text", "hash " + c.From + " → " + c.To, ""
	case baseline.ModelChanged:
		return "model", c.From + " → " + c.To, ""
	case baseline.BaseURLChange:
		return "base_url", c.From + " → " + c.To, ""
	case baseline.MetricChanged:
		if r := c.Rel(); !math.IsNaN(r) {
			rel = fmt.Sprintf("%+.1f%%", 100*r)
		}
		return c.Metric + " " + c.Stat, metricValue(c.Old, c.Metric) + " → " + metricValue(c.New, c.Metric), rel
	}
	return string(c.Kind), c.From + " → " + c.To, ""
}

func metricValue(v float64, metric string) string {
	switch {
	case math.IsNaN(v):
		return "none"
	case metric == results.TokensPerS:
		return fmt.Sprintf("%.1f tok/s", v)
	}
	return numfmt.Millis(v)
}
