// Package publish owns every output latgate writes: stdout and stderr, the
// progress, the report files (JUnit, Markdown), the data files (results,
// baseline, history), and inside GitHub Actions the job summary, the step
// outputs and the workflow commands (annotations). Nothing else in latgate
// writes a file or a stream.
//
// Everything passes one redaction wrapper: the credentials latgate sends
// (see internal/sanitize, which owns the rules) are removed from every
// stream and report file. Stdout and stderr never carry a workflow command;
// the one writer allowed to emit them is the annotations format
// (internal/render), whose lines package report escapes (report.Command and the annotation writers).
//
// A command gets a Sink from the Streams: it names the files the command
// reads and writes, so that the one path rule (Sink.Check: no output over an
// input or another output, every output writable before anything is
// measured) is asked of the sink, not of a hand list per command.
package publish

import (
	"fmt"
	"io"
	"strings"

	"github.com/latgate/latgate/internal/report"
	"github.com/latgate/latgate/internal/sanitize"
)

// Options are what Streams are made of: the process's stdout and stderr,
// its environment, and whether stderr is a terminal.
type Options struct {
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// StderrIsTerminal turns on the progress bar (plain lines otherwise,
	// and always in CI).
	StderrIsTerminal bool
}

// Streams are the outputs of one run of latgate.
type Streams struct {
	// Stdout and Stderr redact every credential latgate learnt, and
	// neutralise any line that would be a workflow command.
	Stdout, Stderr io.Writer

	commands  io.Writer // stdout for workflow commands: redacted, not neutralised
	redact    *sanitize.Redactor
	github    *github // nil outside GitHub Actions
	bar       bool    // progress as a redrawn bar
	fold      bool    // stderr is a terminal: its messages wrap at 100 columns
	out, errw *sanitize.Writer
}

// github holds the files GitHub Actions has a step append to; an empty
// path is one the runner did not set.
type github struct {
	summary, output string
}

// New returns the Streams of one run. Call Flush when done.
func New(o Options) *Streams {
	getenv := o.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	r := sanitize.NewRedactor()
	out := sanitize.NewWriter(o.Stdout, r, true)
	errw := sanitize.NewWriter(o.Stderr, r, true)
	s := &Streams{Stdout: out, Stderr: errw, commands: out.Raw(), redact: r, out: out, errw: errw,
		bar: o.StderrIsTerminal && !inCI(getenv), fold: o.StderrIsTerminal}
	if getenv("GITHUB_ACTIONS") == "true" {
		s.github = &github{summary: getenv("GITHUB_STEP_SUMMARY"), output: getenv("GITHUB_OUTPUT")}
	}
	return s
}

// inCI says whether the run is in CI, whose log viewers show every \r
// redraw as a line of its own (GitHub Actions gives steps a pseudo-terminal
// on some runners).
func inCI(getenv func(string) string) bool {
	for _, name := range []string{"CI", "GITHUB_ACTIONS"} {
		switch strings.ToLower(getenv(name)) {
		case "", "0", "false":
		default:
			return true
		}
	}
	return false
}

// Flush writes what the redaction wrappers hold back (the start of what
// could be a secret).
func (s *Streams) Flush() {
	s.out.Flush()
	s.errw.Flush()
}

// Learn adds credentials to what every output redacts.
func (s *Streams) Learn(secrets ...string) { s.redact.Add(secrets...) }

// Redact removes every learnt credential from text.
func (s *Streams) Redact(text string) string { return s.redact.Redact(text) }

// Note prints "latgate: " and a message on stderr.
func (s *Streams) Note(format string, args ...any) {
	s.Say("latgate: " + fmt.Sprintf(format, args...))
}

// Warn prints "latgate: warning: " and a message on stderr.
func (s *Streams) Warn(format string, args ...any) {
	s.Say("latgate: warning: " + fmt.Sprintf(format, args...))
}

// Say prints a line on stderr; in a terminal it wraps at 100 columns, its
// continuation lines indented (a CI log or a pipe keeps one line per
// message, for grep).
func (s *Streams) Say(text string) {
	if s.fold {
		// Redacted first: a wrap at a space inside a secret would leave
		// pieces too short for the redactor to know.
		text = report.Wrap(s.Redact(text), 100, "  ")
	}
	fmt.Fprintln(s.Stderr, text)
}
