package publish

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/latgate/latgate/internal/atomicfile"
	"github.com/latgate/latgate/internal/history"
	"github.com/latgate/latgate/internal/render"
	"github.com/latgate/latgate/internal/sanitize"
	"github.com/latgate/latgate/internal/view"
)

// Reports are the report files a command was asked for: a path per
// format name (render.Format.Name: "junit", "markdown", "html",
// "summary", "openmetrics"); a format with no path, or "", writes no file.
// The job summary's Markdown (--summary) is written to a file anywhere;
// inside GitHub Actions it is also appended to $GITHUB_STEP_SUMMARY.
type Reports map[string]string

// Sink is the outputs of one command, and the files it reads: the plan the
// path rule checks (see Check).
type Sink struct {
	*Streams
	reports Reports
	formats []render.Format
	unknown []string // report formats asked for that no format writes: Check refuses them
	inputs  []File
	outputs []File // replaced atomically: probed by Check
	appends []File // the runner's files latgate appends to: not probed
	checked bool
}

// File is a file a command reads or writes, with how the user named it
// ("--out", "the config", "$GITHUB_STEP_SUMMARY").
type File struct {
	Role, Path string
}

// Sink returns the sink of a command that writes data files only (declared
// with Output).
func (s *Streams) Sink() *Sink { return &Sink{Streams: s} }

// ReportSink returns the sink of a command that publishes Documents: to
// stdout, the report files r names, and inside GitHub Actions the job
// summary, the step outputs and annotations, in every format of
// render.Formats and the extra ones given (a test's).
func (s *Streams) ReportSink(r Reports, extra ...render.Format) *Sink {
	return s.reportSink(r, append(render.Formats(), extra...))
}

// reportSink is the report sink of formats.
func (s *Streams) reportSink(r Reports, formats []render.Format) *Sink {
	k := &Sink{Streams: s, reports: r, formats: formats}
	for _, f := range k.formats {
		if f.Flag != "" {
			k.Output("--"+f.Flag, r[f.Name])
		}
	}
	for name := range r {
		if !slices.ContainsFunc(formats, func(f render.Format) bool { return f.Name == name && f.Flag != "" }) {
			k.unknown = append(k.unknown, name)
		}
	}
	slices.Sort(k.unknown)
	if g := s.github; g != nil {
		for _, f := range []File{{"$GITHUB_STEP_SUMMARY", g.summary}, {"$GITHUB_OUTPUT", g.output}} {
			if f.Path != "" {
				k.appends = append(k.appends, f)
			}
		}
	}
	return k
}

// Input declares a file the command reads ("" for none): no output may be it.
func (k *Sink) Input(role, path string) {
	if path != "" {
		k.inputs = append(k.inputs, File{role, path})
	}
}

// Output declares a data file the command writes and returns it; nil (on
// which Write does nothing) when path is "".
func (k *Sink) Output(role, path string) *File {
	if path == "" {
		return nil
	}
	f := File{role, path}
	k.outputs = append(k.outputs, f)
	return &f
}

// Files returns every file the command writes: its outputs, then the files
// it appends to.
func (k *Sink) Files() []File {
	return append(append([]File{}, k.outputs...), k.appends...)
}

// Write atomically replaces the file with data as given: a data file
// (results, a baseline) holds sanitised fields and is not redacted, which
// could break its encoding; Publish hands a report file its text already
// redacted. A nil file is not written.
func (f *File) Write(data []byte) error {
	if f == nil {
		return nil
	}
	if err := atomicfile.WriteFile(f.Path, data, 0o644); err != nil {
		return f.failed(err)
	}
	return nil
}

// failed says which output failed: "could not write --out PATH: CAUSE",
// without repeating the "write PATH: " of atomicfile's errors.
func (f File) failed(err error) error {
	if inner := errors.Unwrap(err); inner != nil && strings.HasPrefix(err.Error(), "write "+f.Path+": ") {
		err = inner
	}
	return fmt.Errorf("could not write %s %s: %w", f.Role, f.Path, err)
}

// Publish writes d to every output of the sink, in each format that
// shows its kind: stdout, the report files, and inside GitHub Actions the
// annotations, the job summary and the step outputs (verdict= and
// d.Outputs). An output that fails does not stop the others: the outcome
// reaches every output it can, and the failures come back joined, each
// naming its file. Report files and the job summary pass through the
// redaction wrapper.
func (k *Sink) Publish(d view.Document) error {
	var errs []error
	g := k.github
	for _, f := range k.formats {
		if !f.Shows(d.Kind) {
			continue
		}
		if f.Stdout {
			errs = append(errs, f.Write(k.Stdout, d))
		}
		if g != nil && f.GitHub == render.Commands {
			errs = append(errs, f.Write(k.commands, d))
		}
		// A report file and the job summary hold the same text: written
		// once, redacted once.
		var file *File
		if f.Flag != "" && k.reports[f.Name] != "" {
			file = &File{"--" + f.Flag, k.reports[f.Name]}
		}
		summary := g != nil && f.GitHub == render.StepSummary && g.summary != ""
		if file == nil && !summary {
			continue
		}
		var buf bytes.Buffer
		if err := f.Write(&buf, d); err != nil {
			errs = append(errs, fmt.Errorf("could not write the %s report: %w", f.Name, err))
			continue
		}
		text := k.Redact(buf.String())
		if file != nil {
			errs = append(errs, file.Write([]byte(text)))
		}
		if summary {
			errs = append(errs, k.appendTo(File{"$GITHUB_STEP_SUMMARY", g.summary}, text))
		}
	}
	if g != nil && g.output != "" && d.Verdict != "" {
		var b strings.Builder
		for _, o := range append([]view.Output{{Name: "verdict", Value: d.Verdict}}, d.Outputs...) {
			// One line each, redacted: a value from a history or an
			// endpoint (issue-title=) with a newline would set outputs of
			// its own (a "verdict=ok" after the real one).
			b.WriteString(o.Name + "=" + k.Redact(sanitize.Line(o.Value, 0)) + "\n")
		}
		errs = append(errs, k.appendTo(File{"$GITHUB_OUTPUT", g.output}, b.String()))
	}
	return errors.Join(errs...)
}

func (k *Sink) appendTo(f File, data string) error {
	if err := appendFile(f.Path, []byte(data)); err != nil {
		return f.failed(err)
	}
	return nil
}

func appendFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if err := f.Close(); werr == nil {
		werr = err
	}
	return werr
}

// AppendHistory appends rec to the history file, keeping its newest keep
// records (0: all), by history.Append's atomic rewrite. A nil file is not
// written.
func (f *File) AppendHistory(rec history.Record, keep int) (history.AppendResult, error) {
	if f == nil {
		return history.AppendResult{}, nil
	}
	res, err := history.Append(f.Path, rec, keep)
	if err != nil {
		return res, fmt.Errorf("the run was not added to the history %s: %w", f.Path, err)
	}
	return res, nil
}
