package cli

import (
	"errors"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/internal/publish"
	"github.com/latgate/latgate/pkg/baseline"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/measure"
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

// sink is the outputs of a gate command: stdout, --junit, --markdown and
// the GitHub Actions files.
func (g gateFlags) sink(env Env) *publish.Sink {
	return env.out.ReportSink(publish.Reports{JUnit: g.Junit, Markdown: g.Markdown})
}

// publishFailed is the deferred error report of a gate command: a run that
// could not decide (exit 2 or 3) says why in every report it was asked for
// (publish.Sink.PublishFailure); a run whose verdict was published but not
// written everywhere says what was not written.
func publishFailed(env Env, sink *publish.Sink, err error) {
	var oe *outputError
	switch {
	case errors.As(err, &oe):
		env.out.AnnotateError("latgate: output not written", err)
	case err != nil && exitCode(err) != ExitRegression:
		sink.PublishFailure(err, exitCode(err) == ExitMeasurement)
	}
}
