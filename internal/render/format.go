// Package render writes a view.Document in every format latgate outputs,
// one file per format: text (stdout), JUnit, Markdown, the HTML page, the
// job summary, OpenMetrics and the GitHub annotations. A Format is a row
// of what it is called, the flag that asks for its file, where else it
// goes inside GitHub Actions, which outcomes it shows, and its writer,
// func(io.Writer, view.Document) error. internal/publish routes each
// Document to the formats of a sink; internal/cli makes the report flags
// of a command from the formats that show its outcome. A new format is a
// file here and its row in Formats.
package render

import (
	"fmt"
	"io"

	"github.com/latgate/latgate/internal/view"
)

// GitHub is where a format goes inside GitHub Actions, beside its file.
type GitHub int

const (
	// NotGitHub: nowhere more.
	NotGitHub GitHub = iota
	// StepSummary: appended to $GITHUB_STEP_SUMMARY.
	StepSummary
	// Commands: workflow commands (annotations) on stdout, through the
	// one writer of workflow commands.
	Commands
)

// Format is one way of writing a Document.
type Format struct {
	// Name names the format ("junit").
	Name string
	// Flag is the report flag that writes it to a file ("junit" for
	// --junit); "" for a format that has no file.
	Flag string
	// Usage is the flag's help for the commands whose outcome is kind;
	// "" where the format has no flag for it.
	Usage func(kind view.Kind) string
	// Stdout: the format is written to stdout.
	Stdout bool
	// GitHub is where the format goes inside GitHub Actions.
	GitHub GitHub
	// Shows reports whether the format has anything for an outcome of
	// kind: Write is called only then, and a file only written then.
	Shows func(kind view.Kind) bool
	// Write writes d.
	Write func(w io.Writer, d view.Document) error
}

// Offers reports whether f has a file flag for the commands whose outcome
// is kind.
func (f Format) Offers(kind view.Kind) bool {
	return f.Flag != "" && f.Usage != nil && f.Usage(kind) != ""
}

// Formats are the formats latgate writes, in the order of their flags in
// --help.
func Formats() []Format {
	return []Format{Text(), JUnit(), Markdown(), HTML(), Summary(), OpenMetrics(), Annotations()}
}

// kinds is a Shows of the kinds listed.
func kinds(ks ...view.Kind) func(view.Kind) bool {
	return func(k view.Kind) bool {
		for _, x := range ks {
			if x == k {
				return true
			}
		}
		return false
	}
}

// nothing is the error of a Write called for an outcome its format does
// not show (a bug of the caller: Shows says so first).
func nothing(format string, d view.Document) error {
	return fmt.Errorf("render: the %s format has nothing for an outcome of kind %d", format, d.Kind)
}
