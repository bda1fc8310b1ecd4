package publish

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/latgate/latgate/internal/atomicfile"
	"github.com/latgate/latgate/internal/history"
)

// Reports are the report files a command was asked for ("" for none).
type Reports struct {
	JUnit, Markdown string
	// HTML is trend's page (--html).
	HTML string
	// Summary (--summary) is the job summary's Markdown, charts included,
	// written to a file anywhere (inside GitHub Actions it is also appended
	// to $GITHUB_STEP_SUMMARY).
	Summary string
	// OpenMetrics (--openmetrics) is the run's figures and checks as
	// OpenMetrics text (package export), for Prometheus and Grafana.
	OpenMetrics string
}

// Sink is the outputs of one command, and the files it reads: the plan the
// path rule checks (see Check).
type Sink struct {
	*Streams
	reports Reports
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

// ReportSink returns the sink of a command that publishes Reports: to
// stdout, the report files r names, and inside GitHub Actions the job
// summary, the step outputs and annotations.
func (s *Streams) ReportSink(r Reports) *Sink {
	k := &Sink{Streams: s, reports: r}
	k.Output("--junit", r.JUnit)
	k.Output("--markdown", r.Markdown)
	k.Output("--html", r.HTML)
	k.Output("--summary", r.Summary)
	k.Output("--openmetrics", r.OpenMetrics)
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

// Write atomically replaces the file with data (a data file: results, a
// baseline; it holds sanitised fields, and is not passed through the
// redaction of reports, which could break its encoding). A nil file is not
// written.
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

// Report is one outcome as each output shows it. A nil renderer has
// nothing for its output. Every command's outcome that reaches more than
// stdout is a Report: a gate's verdicts, a run without a baseline, a run
// that could not decide, a trend.
type Report struct {
	Text     func(io.Writer) error // stdout
	JUnit    func(io.Writer) error // --junit
	Markdown func(io.Writer) error // --markdown
	HTML     func(io.Writer) error // --html
	// Inside GitHub Actions (and Summary also to --summary anywhere):
	Summary     func(io.Writer) error // appended to $GITHUB_STEP_SUMMARY; --summary
	OpenMetrics func(io.Writer) error // --openmetrics
	Annotations func(io.Writer) error // workflow commands, on stdout
	Outputs     []Output              // appended to $GITHUB_OUTPUT
}

// Output is one step output: name=value.
type Output struct {
	Name, Value string
}

// Publish writes r to every output of the sink. An output that fails does
// not stop the others: the outcome reaches every output it can, and the
// failures come back joined, each naming its file. Report files and the job
// summary pass through the redaction wrapper.
func (k *Sink) Publish(r Report) error {
	var errs []error
	if r.Text != nil {
		errs = append(errs, r.Text(k.Stdout))
	}
	errs = append(errs,
		k.writeReport(File{"--junit", k.reports.JUnit}, r.JUnit),
		k.writeReport(File{"--markdown", k.reports.Markdown}, r.Markdown),
		k.writeReport(File{"--html", k.reports.HTML}, r.HTML),
		k.writeReport(File{"--summary", k.reports.Summary}, r.Summary),
		k.writeReport(File{"--openmetrics", k.reports.OpenMetrics}, r.OpenMetrics))
	g := k.github
	if g == nil {
		return errors.Join(errs...)
	}
	if r.Annotations != nil {
		errs = append(errs, r.Annotations(k.commands))
	}
	if r.Summary != nil && g.summary != "" {
		var buf bytes.Buffer
		if err := r.Summary(&buf); err != nil {
			errs = append(errs, err)
		} else {
			errs = append(errs, k.appendTo(File{"$GITHUB_STEP_SUMMARY", g.summary}, k.Redact(buf.String())))
		}
	}
	if len(r.Outputs) > 0 && g.output != "" {
		var b strings.Builder
		for _, o := range r.Outputs {
			b.WriteString(o.Name + "=" + o.Value + "\n")
		}
		errs = append(errs, k.appendTo(File{"$GITHUB_OUTPUT", g.output}, b.String()))
	}
	return errors.Join(errs...)
}

// writeReport writes a report file, redacted, where one was asked for.
func (k *Sink) writeReport(f File, render func(io.Writer) error) error {
	if f.Path == "" || render == nil {
		return nil
	}
	err := atomicfile.Write(f.Path, 0o644, func(w io.Writer) error {
		var buf bytes.Buffer
		if err := render(&buf); err != nil {
			return err
		}
		_, err := io.WriteString(w, k.Redact(buf.String()))
		return err
	})
	if err != nil {
		return f.failed(err)
	}
	return nil
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
