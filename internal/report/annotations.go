package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// maxAnnotations is how many annotations of one level a step may usefully
// emit: GitHub shows at most 10 errors and 10 warnings per step.
const maxAnnotations = 10

// Annotations writes GitHub workflow commands that annotate the run: an
// ::error per regression and a ::warning per undecided gated check whose
// interval straddles the tolerance or lacks data (none under
// gate.on_inconclusive: pass; a pooled prompt check never holds the run, so
// it is not annotated), and per report warning (which also covers the
// statistics too few requests leave unresolved), worst first, at most 10 of
// each; a final ::notice says how many more were left out. locate maps a
// target and prompt (empty for a pooled check) to a file and line, say of
// latgate.yaml; ("", 0) leaves the annotation unplaced.
func Annotations(w io.Writer, rep compare.Report, opts Options, locate func(target, prompt string) (file string, line int)) error {
	ew := &errWriter{w: w}
	var errs, warns []string
	for _, c := range ordered(rep) {
		switch {
		case c.Verdict == compare.Regressed:
			errs = append(errs, command("error", c, locate, "latency regression: "+whereOf(c)))
		case c.Verdict == compare.Inconclusive && !c.Diagnostic && opts.OnInconclusive != config.OnInconclusivePass:
			if _, _, _, short := c.Shortfall(); !short {
				warns = append(warns, command("warning", c, locate, "undecided: "+whereOf(c)))
			}
		}
	}
	for _, warn := range Warnings(rep) {
		// An annotation carries latgate's words only; the endpoint's are in
		// the report and the log.
		if before, _, ok := strings.Cut(warn, results.SaidSep); ok {
			warn = before + " (the endpoint's messages are in the report)"
		}
		warns = append(warns, "::warning title=latgate::"+escapeData(warn))
	}
	for _, l := range errs[:min(len(errs), maxAnnotations)] {
		fmt.Fprintln(ew, l)
	}
	for _, l := range warns[:min(len(warns), maxAnnotations)] {
		fmt.Fprintln(ew, l)
	}
	var more []string
	if n := len(errs) - maxAnnotations; n > 0 {
		more = append(more, plural(n, "regression", "regressions"))
	}
	if n := len(warns) - maxAnnotations; n > 0 {
		more = append(more, plural(n, "warning", "warnings"))
	}
	if len(more) > 0 {
		fmt.Fprintf(ew, "::notice title=latgate::%s more not annotated: see the latgate report in the log\n",
			escapeData(strings.Join(more, " and ")))
	}
	return ew.err
}

// command formats one annotation for check c.
func command(level string, c compare.Check, locate func(target, prompt string) (string, int), title string) string {
	var props []string
	if locate != nil {
		if file, line := locate(c.Target, c.Prompt); file != "" {
			props = append(props, "file="+escapeProperty(file))
			if line > 0 {
				props = append(props, "line="+strconv.Itoa(line))
			}
		}
	}
	props = append(props, "title="+escapeProperty(title))
	msg := message(c)
	if _, ok := attribution(c); ok {
		msg += " — why: " + c.Why.Plain() // latgate's words only
	}
	return "::" + level + " " + strings.Join(props, ",") + "::" + escapeData(msg)
}

// escapeData escapes a workflow command's message as @actions/core does
// (toolkit packages/core/src/command.ts): '%', CR and LF, in one pass so
// that no escape is escaped again.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value: escapeData and
// also ':' and ',', which end a value.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
