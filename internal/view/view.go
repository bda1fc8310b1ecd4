// Package view holds a command's outcome as one value, a Document: what
// every output of it shows, whatever the format. The application builds a
// Document (Gate, AB, Trend, Ungated, Slowed, Failure, Skipped,
// Unchanged); internal/render writes it in each format, one file per
// format; internal/publish only routes it to the sinks a command was
// given. The words of the short outcomes live here; the gate's, ab's and
// the trend's are internal/report's.
package view

import (
	"fmt"
	"strings"

	"github.com/latgate/latgate/internal/export"
	"github.com/latgate/latgate/internal/report"
	"github.com/latgate/latgate/internal/trend"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/results"
)

// Kind is what a Document reports. The zero Kind is no outcome: no
// format but the job summary shows it, and that writes nothing for it.
type Kind int

const (
	// KindGate is a gate's verdicts (check, compare).
	KindGate Kind = iota + 1
	// KindAB is two configs compared, interleaved (ab).
	KindAB
	// KindTrend is the nightly analysis of the history (trend).
	KindTrend
	// KindUngated is a check without a baseline: measured, nothing gated.
	KindUngated
	// KindSlowed is a check stopped because its requests were far slower
	// than the baseline allows: a regression with no verdict table.
	KindSlowed
	// KindFailure is a command that could not decide (exit 2 or 3).
	KindFailure
	// KindSkipped is a run not measured because a fork's pull request has
	// no secrets (--skip-without-key).
	KindSkipped
	// KindUnchanged is an `ab --if-changed` that found nothing to compare.
	KindUnchanged
)

// The verdicts a Document's step output carries besides a gate's or a
// trend's own.
const (
	// NoBaselineVerdict: check ran without a baseline, measured and
	// reported, nothing gated.
	NoBaselineVerdict = "no-baseline"
	// ErrorVerdict: the command could not decide (exit 2 or 3).
	ErrorVerdict = "error"
	// SkippedVerdict: check or ab skipped a fork's pull request.
	SkippedVerdict = "skipped"
	// UnchangedVerdict: ab --if-changed found nothing to compare.
	UnchangedVerdict = "unchanged"
)

// Document is one outcome, as every output shows it.
type Document struct {
	Kind Kind
	// Verdict is the step output verdict=; Outputs the step outputs after
	// it (trend's issue-key= and issue-title=).
	Verdict string
	Outputs []Output
	// Message is a short outcome's words (Ungated, Slowed, Failure,
	// Skipped, Unchanged); Next, a slowed run's next step.
	Message, Next string
	// Measurement marks a Failure of the measurement (exit 3): its message
	// quotes the endpoint, which no annotation carries.
	Measurement bool
	// Measured is what an ungated run measured (nil: nothing to show).
	Measured *results.File
	// Gate is the verdicts of KindGate and KindAB.
	Gate *Gate
	// Trend is the analysis of KindTrend.
	Trend *Trend
	// Export is what the OpenMetrics output exports (nil: none).
	Export *Export
}

// Output is one step output: name=value.
type Output struct {
	Name, Value string
}

// Gate is a gate's verdicts and how to show them.
type Gate struct {
	Report  compare.Report
	Options report.Options
	// AB is ab's side of the comparison (KindAB).
	AB report.AB
	// Locate finds a prompt's line in the config, for annotations.
	Locate func(target, prompt string) (file string, line int)
}

// Trend is a trend analysis and how to show it.
type Trend struct {
	Report   trend.Report
	Warnings []string
	Options  report.TrendOptions
}

// Export is what a run's OpenMetrics output holds: its sides' figures
// and, when it was gated, the checks.
type Export struct {
	Sides  []export.Side
	Report *compare.Report
}

// OfGate is the Document of a gate's verdicts (check, compare).
func OfGate(rep compare.Report, opts report.Options, locate func(target, prompt string) (string, int)) Document {
	return Document{Kind: KindGate, Verdict: string(rep.Verdict), Gate: &Gate{Report: rep, Options: opts, Locate: locate}}
}

// OfAB is the Document of two configs compared (ab).
func OfAB(rep compare.Report, ab report.AB, opts report.Options, locate func(target, prompt string) (string, int)) Document {
	return Document{Kind: KindAB, Verdict: string(rep.Verdict), Gate: &Gate{Report: rep, Options: opts, AB: ab, Locate: locate}}
}

// OfTrend is the Document of the nightly analysis; outputs are the step
// outputs after verdict= (those that name an issue).
func OfTrend(rep trend.Report, warnings []string, opts report.TrendOptions, outputs ...Output) Document {
	return Document{Kind: KindTrend, Verdict: string(rep.Verdict), Outputs: outputs, Trend: &Trend{Report: rep, Warnings: warnings, Options: opts}}
}

// Ungated is the Document of a check without a baseline at basePath: it
// says nothing was gated and how to bless the results it wrote to
// resultsPath (bless: the command that does); measured is what it measured.
func Ungated(basePath, resultsPath, bless string, measured *results.File) Document {
	notice := fmt.Sprintf("no baseline: nothing was gated. There is no baseline at %s, so this run was measured and reported but "+
		"compared with nothing (exit 0; --require-baseline makes this exit 2). The results are in %s: make them the baseline "+
		"with `%s`, review and commit it.", basePath, resultsPath, bless)
	return Document{Kind: KindUngated, Verdict: NoBaselineVerdict, Message: notice, Measured: measured}
}

// Slowed is the Document of a check stopped because its requests were far
// slower than the baseline allows (advise.Slowed): a regression.
func Slowed(msg, next string) Document {
	return Document{Kind: KindSlowed, Verdict: string(compare.Regressed), Message: msg, Next: next}
}

// Failure is the Document of a command that could not decide: msg is
// why, already redacted; measurement marks a failed measurement (exit 3).
func Failure(msg string, measurement bool) Document {
	return Document{Kind: KindFailure, Verdict: ErrorVerdict, Message: msg, Measurement: measurement}
}

// Skipped is the Document of a run not measured for want of its secrets:
// empty names each variable that is empty ("$KEY (target t)").
func Skipped(empty []string) Document {
	verb := "is"
	if len(empty) > 1 {
		verb = "are"
	}
	msg := fmt.Sprintf("%s %s empty: GitHub gives a fork's or Dependabot's pull request no secrets, so latency was not measured (--skip-without-key). A maintainer can push the branch to this repository to run the check.", strings.Join(empty, ", "), verb)
	return Document{Kind: KindSkipped, Verdict: SkippedVerdict, Message: msg}
}

// Unchanged is the Document of an `ab --if-changed` whose two configs
// (base, candidate: their paths) measure the same targets and prompts.
func Unchanged(base, candidate string) Document {
	msg := fmt.Sprintf("%s and %s measure the same targets and prompts, so ab was not run (--if-changed): the check against the baseline decides", base, candidate)
	return Document{Kind: KindUnchanged, Verdict: UnchangedVerdict, Message: msg}
}

// WithExport is d with an OpenMetrics output of sides (and rep's checks,
// nil for none).
func (d Document) WithExport(rep *compare.Report, sides ...export.Side) Document {
	d.Export = &Export{Sides: sides, Report: rep}
	return d
}

// AnnotationText is msg as an annotation carries it: latgate's words only;
// the endpoint's (after results.SaidSep) are in the report and the log.
func AnnotationText(msg string) string {
	if before, _, ok := strings.Cut(msg, results.SaidSep); ok {
		return before + " (the endpoint's messages are in the log)"
	}
	return msg
}
