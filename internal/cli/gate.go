package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/internal/atomicfile"
	"github.com/latgate/latgate/pkg/baseline"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/measure"
	"github.com/latgate/latgate/pkg/report"
	"github.com/latgate/latgate/pkg/results"
)

// gateFlags are the report flags shared by check and compare.
type gateFlags struct {
	Junit    string
	Markdown string
	Strict   bool
	// StrictBaseline refuses (exit 2) a baseline that measured anything
	// other than this config, instead of gating the change and labelling it.
	StrictBaseline bool
}

func gateFlagDefs() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "junit", Usage: "write a JUnit XML report to `FILE` (one testcase per prompt × metric × statistic)", TakesFile: true},
		&ucli.StringFlag{Name: "markdown", Usage: "write the verdicts as Markdown to `FILE` (for a PR comment)", TakesFile: true},
		&ucli.BoolFlag{Name: "strict", Usage: "fail (exit 1) on inconclusive checks too"},
		&ucli.BoolFlag{Name: "strict-baseline", Usage: "refuse (exit 2) a baseline that measured another model, endpoint, parameter or prompt set, instead of gating the change and labelling it"},
	}
}

func parseGateFlags(c *ucli.Context) gateFlags {
	return gateFlags{Junit: c.String("junit"), Markdown: c.String("markdown"), Strict: c.Bool("strict"), StrictBaseline: c.Bool("strict-baseline")}
}

// loadBaseline loads the baseline, mapping every problem to exit code 2.
func loadBaseline(path string) (*baseline.File, error) {
	b, err := baseline.Load(path)
	if err != nil {
		return nil, usageErr(err)
	}
	return b, nil
}

func side(run results.Run, targets []results.Target) compare.Side {
	return compare.Side{Run: run, Targets: targets}
}

// planned is what a run of cfg will measure, before measuring.
func planned(cfg *config.Config) compare.Side {
	s := compare.Side{Run: results.Run{Requests: cfg.Run.Requests, Warmup: cfg.Run.Warmup, Concurrency: cfg.Run.Concurrency}}
	for _, t := range cfg.Targets {
		s.Targets = append(s.Targets, measure.Describe(t, cfg.Prompts))
	}
	return s
}

// mismatchError refuses a comparison: the header, then every difference.
func mismatchError(header string, ms []compare.Mismatch) error {
	var b strings.Builder
	b.WriteString(header)
	for _, m := range ms {
		b.WriteString("\n  - ")
		b.WriteString(m.Message())
	}
	return usageErr(errors.New(b.String()))
}

// gateOutcome turns a report into the command's result: nil, errRegression,
// or, when some output could not be written (outErrs), an outputError that
// says the verdict.
func gateOutcome(rep compare.Report, strict bool, outErrs ...error) error {
	fails := rep.Verdict.Fails(strict)
	if err := outputErr(string(rep.Verdict), fails, outErrs...); err != nil {
		return err
	}
	if fails {
		return errRegression
	}
	return nil
}

// writeReport writes a report file, redacted, where one was asked for
// (path is not empty); role is how the user named it ("--junit").
func writeReport(env Env, role, path string, render func(io.Writer) error) error {
	if path == "" {
		return nil
	}
	if err := atomicfile.Write(path, 0o644, redacted(env, render)); err != nil {
		return couldNotWrite(role, path, err)
	}
	return nil
}

// couldNotWrite says which output failed: "could not write --junit PATH:
// CAUSE", without repeating the "write PATH: " of atomicfile's errors.
func couldNotWrite(role, path string, err error) error {
	if inner := errors.Unwrap(err); inner != nil && strings.HasPrefix(err.Error(), "write "+path+": ") {
		err = inner
	}
	return fmt.Errorf("could not write %s %s: %w", role, path, err)
}

// appendGitHub appends to the GitHub Actions file $name, when the runner
// set one.
func appendGitHub(env Env, name string, data []byte) error {
	p := env.Getenv(name)
	if p == "" {
		return nil
	}
	if err := appendFile(p, data); err != nil {
		return couldNotWrite("$"+name, p, err)
	}
	return nil
}

// publish writes the verdicts everywhere they were asked for: stdout, the
// JUnit and Markdown files, and, inside GitHub Actions, the job summary,
// workflow annotations and the step's verdict output. An output that fails
// does not stop the others: the verdict reaches every output it can, and
// the failures come back joined.
func publish(env Env, rep compare.Report, g gateFlags, opts report.Options, locate func(target, prompt string) (string, int)) error {
	errs := []error{
		report.Verdicts(env.Stdout, rep, opts),
		writeReport(env, "--junit", g.Junit, func(w io.Writer) error { return report.JUnit(w, rep, opts) }),
		writeReport(env, "--markdown", g.Markdown, func(w io.Writer) error { return report.Markdown(w, rep, opts) }),
	}
	if env.Getenv("GITHUB_ACTIONS") != "true" {
		return errors.Join(errs...)
	}
	errs = append(errs, report.Annotations(env.commandWriter(), rep, locate))
	var buf bytes.Buffer
	if err := report.GitHubSummary(&buf, rep, opts); err != nil {
		errs = append(errs, err)
	} else {
		errs = append(errs, appendGitHub(env, "GITHUB_STEP_SUMMARY", []byte(env.redact.Redact(buf.String()))))
	}
	errs = append(errs, appendGitHub(env, "GITHUB_OUTPUT", []byte("verdict="+string(rep.Verdict)+"\n")))
	return errors.Join(errs...)
}

// redacted renders into a buffer and writes it with the targets'
// credentials redacted: the last line of defence of every report file.
func redacted(env Env, render func(io.Writer) error) func(io.Writer) error {
	return func(w io.Writer) error {
		var buf bytes.Buffer
		if err := render(&buf); err != nil {
			return err
		}
		_, err := io.WriteString(w, env.redact.Redact(buf.String()))
		return err
	}
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

// locator points annotations at each prompt's line in the config.
func locator(cfg *config.Config) func(target, prompt string) (string, int) {
	return func(target, prompt string) (string, int) {
		if cfg == nil {
			return "", 0
		}
		for _, p := range cfg.Prompts {
			if p.ID == prompt {
				return cfg.Path, p.Line
			}
		}
		for _, t := range cfg.Targets {
			if t.Name == target {
				return cfg.Path, t.Line
			}
		}
		return cfg.Path, 0
	}
}

// plan adds the files a gate command reports to: --junit, --markdown and
// the GitHub Actions files.
func (g gateFlags) plan(p *ioPlan, env Env) {
	p.out("--junit", g.Junit)
	p.out("--markdown", g.Markdown)
	p.githubFiles(env)
}

// publishFailureIfSafe is the deferred error report of a gate command
// whose files are plan: an error report is written only where no input can
// be hit (the plan has passed its check, or passes it now).
func publishFailureIfSafe(env Env, g gateFlags, plan *ioPlan, err error) {
	var oe *outputError
	switch {
	case errors.As(err, &oe):
		// The verdict was published; only say what was not written.
		if env.Getenv("GITHUB_ACTIONS") == "true" {
			_ = report.Command(env.commandWriter(), "error", "latgate: output not written", annotationText(env.redact.Redact(err.Error())))
		}
	case err != nil && exitCode(err) != ExitRegression && (plan.checked || plan.check() == nil):
		publishFailure(env, g, err)
	}
}

// publishFailure reports a check that could not decide (exit 2 or 3) where
// its reports were asked for, so a CI job shows why instead of a missing file:
// an errored JUnit testcase, a Markdown note, and inside GitHub Actions the
// job summary and verdict=error.
func publishFailure(env Env, g gateFlags, cause error) {
	msg := env.redact.Redact(cause.Error())
	write := func(path string, render func(io.Writer) error) {
		if path != "" {
			_ = atomicfile.Write(path, 0o644, redacted(env, render)) // best effort: the exit code tells
		}
	}
	write(g.Junit, func(w io.Writer) error { return report.JUnitFailure(w, msg) })
	write(g.Markdown, func(w io.Writer) error { return report.MarkdownFailure(w, msg) })
	if env.Getenv("GITHUB_ACTIONS") != "true" {
		return
	}
	_ = report.Command(env.commandWriter(), "error", failureTitle(cause), failureAnnotation(cause, msg))
	if p := env.Getenv("GITHUB_STEP_SUMMARY"); p != "" {
		var buf bytes.Buffer
		if report.MarkdownFailure(&buf, msg) == nil {
			_ = appendFile(p, []byte(env.redact.Redact(buf.String())))
		}
	}
	if p := env.Getenv("GITHUB_OUTPUT"); p != "" {
		_ = appendFile(p, []byte("verdict=error\n"))
	}
}

// failureTitle is the title of the ::error annotation of a run that could
// not decide: what kind of failure its exit code says it is.
func failureTitle(err error) string {
	if exitCode(err) == ExitMeasurement {
		return "latgate: measurement failed"
	}
	return "latgate: could not gate"
}

// failureAnnotation is the text of that annotation. A usage, config or
// baseline problem is latgate's own words; a measurement failure quotes the
// endpoint (an error body, a frame), which no annotation carries, so it
// points to the reports that say why.
func failureAnnotation(err error, msg string) string {
	if exitCode(err) == ExitMeasurement {
		return "the measurement failed, so nothing was gated (exit 3): why, in the endpoint's words too, is in the log, the job summary and the JUnit and Markdown reports"
	}
	return annotationText(msg)
}

// annotationText is msg as an annotation carries it: latgate's words only;
// the endpoint's are in the report and the log.
func annotationText(msg string) string {
	if before, _, ok := strings.Cut(msg, results.SaidSep); ok {
		return before + " (the endpoint's messages are in the log)"
	}
	return msg
}
