package report

import (
	"encoding/xml"
	"fmt"
	"io"

	"github.com/jstemmer/go-junit-report/v2/junit"

	"github.com/latgate/latgate/internal/sanitize"
	"github.com/latgate/latgate/pkg/results"
)

// JUnitFailure writes a JUnit report for a run that could not be gated (a
// config or baseline problem, or a measurement failure): one testcase
// "latgate" with an <error> carrying msg, so CI reporters show why instead
// of finding no file.
func JUnitFailure(w io.Writer, msg string) error {
	return junitSingle(w, junit.Testcase{Error: &junit.Result{Message: msg, Type: "latgate.error"}})
}

// MarkdownFailure writes the Markdown report for a run that could not be
// gated: the verdict "error" and why.
func MarkdownFailure(w io.Writer, msg string) error {
	_, err := fmt.Fprintf(w, "## ⚠️ latgate: ERROR\n\nThe latency gate could not decide:\n\n%s", sanitize.CodeBlock(msg))
	return err
}

// JUnitSlowed writes a JUnit report for a run stopped because its
// requests were far slower than the baseline allows: one testcase
// "latgate" with a <failure> carrying msg (a regression, not an error).
func JUnitSlowed(w io.Writer, msg string) error {
	return junitSingle(w, junit.Testcase{Failure: &junit.Result{Message: msg, Type: "latgate.regression"}})
}

// MarkdownSlowed writes the Markdown report for a run stopped because its
// requests were far slower than the baseline allows: the verdict
// "regressed", why, and what to do next.
func MarkdownSlowed(w io.Writer, msg, next string) error {
	_, err := fmt.Fprintf(w, "## ❌ latgate: REGRESSED\n\n%s\n\n%s\n", sanitize.CodeBlock(msg), sanitize.Markdown(next))
	return err
}

// JUnitNotice writes a JUnit report for a run that was measured but not
// gated (no baseline): one testcase "latgate" <skipped> with msg, so the
// report exists and says why nothing was checked.
func JUnitNotice(w io.Writer, msg string) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	return junitSingle(w, junit.Testcase{Skipped: &junit.Result{Message: msg}})
}

// junitSingle writes a JUnit report of the one testcase "latgate" (in suite
// "latgate") whose outcome tc carries.
func junitSingle(w io.Writer, tc junit.Testcase) error {
	tc.Name, tc.Classname, tc.Time = "latgate", "latgate", "0.000"
	suites := junit.Testsuites{Name: "latgate"}
	suite := junit.Testsuite{Name: "latgate"}
	suite.AddTestcase(tc)
	suites.AddSuite(suite)
	return suites.WriteXML(w)
}

// MarkdownNotice writes the Markdown report for a run that was measured but
// not gated: a warning heading and why.
func MarkdownNotice(w io.Writer, msg string) error {
	_, err := fmt.Fprintf(w, "## ⚠️ latgate: NOT GATED\n\n%s\n", sanitize.MarkdownWithCode(msg))
	return err
}

// MarkdownUngated is MarkdownNotice, then what the run measured (f, nil
// for nothing).
func MarkdownUngated(w io.Writer, msg string, f *results.File) error {
	if err := MarkdownNotice(w, msg); err != nil || f == nil {
		return err
	}
	return MeasureMarkdown(w, f)
}
