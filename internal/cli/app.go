// Package cli is latgate's command line, a shell over internal/app: the
// urfave/cli wiring and help text (one file per command), flags turned into
// each command's request, and the one mapping from an error's class to an
// exit code.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/internal/app"
	"github.com/latgate/latgate/internal/publish"
	"github.com/latgate/latgate/internal/suggest"
	"github.com/latgate/latgate/pkg/compare"
)

// Exit codes: the contract CI jobs build on. Documented in README and --help.
const (
	ExitPass        = 0 // ok, improved, or inconclusive without --strict
	ExitRegression  = 1 // a latency regression (or inconclusive with --strict)
	ExitUsage       = 2 // usage, config or baseline problem
	ExitMeasurement = 3 // endpoint unreachable, auth failure, error budget exceeded, interrupted
)

// Version, when set at link time with
// -ldflags "-X github.com/latgate/latgate/internal/cli.Version=v1.2.3"
// (scripts/release.sh does), overrides the module version that the Go build
// info records; see version.go.
var Version = ""

// Env is what a command may touch of the outside world.
type Env struct {
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Environ is the whole environment, which a target's serve: process
	// inherits (default os.Environ).
	Environ func() []string
	// StderrIsTerminal turns on the progress bar (plain lines otherwise).
	StderrIsTerminal bool
	// Rules are gate rules beyond the five built in, for a build of
	// latgate that adds its own (compare.RuleDef; app.Deps.Rules).
	Rules []compare.RuleDef
}

// usageErr marks a problem with how latgate was called.
func usageErr(err error) error { return app.UsageError(err) }

// exitCode is the one place errors become exit codes: the class the
// application gave the error (a flag error of urfave/cli has none, and is
// a usage problem).
func exitCode(err error) int {
	switch app.ClassOf(err) {
	case app.Pass:
		return ExitPass
	case app.Regression:
		return ExitRegression
	case app.Measurement:
		return ExitMeasurement
	}
	return ExitUsage
}

// Main runs latgate with args (args[0] is the program name) and returns the
// process exit code. Errors are printed to env.Stderr.
func Main(ctx context.Context, args []string, env Env) (code int) {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	if env.Environ == nil {
		env.Environ = os.Environ
	}
	seen := &secrets{getenv: env.Getenv}
	env.Getenv = seen.get
	// Every byte printed passes through publish's writers: the credentials
	// of the targets are redacted, and no line is a workflow command unless
	// a Report's annotations write it.
	out := publish.New(publish.Options{Stdout: env.Stdout, Stderr: env.Stderr, Getenv: env.Getenv, StderrIsTerminal: env.StderrIsTerminal})
	defer out.Flush() // after the crash report below
	defer func() {
		if r := recover(); r != nil {
			code = crashed(out.Stderr, r, debug.Stack(), seen)
		}
	}()
	cmd := newApp(out, env)
	err := cmd.RunContext(ctx, args)
	code = exitCode(err)
	if err != nil && !errors.Is(err, app.ErrRegression) {
		out.Say(fmt.Sprintf("latgate: %v%s", err, helpTopicSuggestion(cmd, err)))
		if next := app.NextOf(err); next != "" {
			out.Say("next: " + next)
		}
	}
	return code
}

// ExitCrash is returned after a panic: a bug in latgate, not a verdict.
const ExitCrash = 70

// secrets remembers the values latgate read from the environment, so that a
// crash report can be scrubbed of them (API keys are read only from there).
type secrets struct {
	getenv func(string) string
	mu     sync.Mutex
	values []string
}

func (s *secrets) get(name string) string {
	v := s.getenv(name)
	if len(v) >= 6 && !strings.HasPrefix(name, "GITHUB_") {
		s.mu.Lock()
		s.values = append(s.values, v)
		s.mu.Unlock()
	}
	return v
}

// crashed reports a panic with its stack, every environment value latgate
// read replaced by [REDACTED], and returns ExitCrash.
func crashed(w io.Writer, r any, stack []byte, s *secrets) int {
	msg := fmt.Sprintf("latgate: internal error (a bug, please report it): %v\n%s", r, stack)
	s.mu.Lock()
	for _, v := range s.values {
		msg = strings.ReplaceAll(msg, v, "[REDACTED]")
	}
	s.mu.Unlock()
	fmt.Fprint(w, msg)
	return ExitCrash
}

const exitCodesHelp = `EXIT CODES:
   0  pass: every check ok, improved, or inconclusive (without --strict);
      also check without a baseline file ("no baseline: nothing was gated")
   1  latency regression (or inconclusive with --strict); also requests so
      slow the run stopped: timed out at 20x the baseline's total P99
   2  usage, config or baseline problem (nothing was overwritten): also a
      baseline with nothing in common with the config, any difference from
      it under --strict-baseline, no baseline under --require-baseline
   3  measurement failure: endpoint unreachable, auth failure, error budget
      exceeded or out of reach (given up early), or the run was interrupted;
      also a result that could not be written after the gate decided (the
      message says the verdict; a regression stays 1)
  70  latgate crashed (a bug: please report it)`

// Exit codes of ab, which measures both sides and needs no baseline file.
const abExitHelp = `EXIT CODES:
   0  pass: every check ok, improved, or inconclusive (without --strict);
      also verdict=unchanged under --if-changed, and skipped under
      --skip-without-key
   1  the candidate is slower than the gate allows (or inconclusive with
      --strict)
   2  usage or config problem (nothing was overwritten): a config that does
      not load, --targets naming no target, two configs with no target and
      prompt in common
   3  measurement failure: endpoint unreachable, auth failure, error budget
      exceeded or out of reach (given up early), or the run was interrupted;
      also a result that could not be written after the gate decided (the
      message says the verdict; a regression stays 1)
  70  latgate crashed (a bug: please report it)`

// Exit codes of compare, which gates saved files and measures nothing.
const compareExitHelp = `EXIT CODES:
   0  pass: every check ok, improved, or inconclusive (without --strict)
   1  latency regression (or inconclusive with --strict)
   2  a file is unreadable or not what it claims (config, baseline, results),
      a partial (interrupted) run, or the two files have no target and prompt
      in common (or any difference under --strict-baseline)
   3  the results are of a run that failed: over its error budget, or given
      up early; or a report could not be written after the gate decided (the
      message says the verdict; a regression stays 1)
  70  latgate crashed (a bug: please report it)`

// Exit codes of the commands that measure but do not gate.
const measureExitHelp = `EXIT CODES:
   0  measured, within every target's error budget
   2  usage or config problem (nothing was written)
   3  measurement failure: endpoint unreachable, auth failure, error budget
      exceeded, or the run was interrupted; or a complete run's results or
      history record could not be written`

const blessExitHelp = `EXIT CODES:
   0  the baseline was written
   2  usage, config or results problem, or a run bless refuses (nothing was written)
   3  measurement failure: endpoint unreachable, auth failure, error budget
      exceeded, or the run was interrupted; or the baseline could not be
      written (nothing was written)`

const mergeExitHelp = `EXIT CODES:
   0  merged
   2  a file is unreadable, or the files cannot be merged (nothing was written)
   3  the merged file could not be written`

// newApp wires the commands to the application on out and the
// environment (its Getenv, Environ and Rules).
func newApp(out *publish.Streams, env Env) *ucli.App {
	build := readBuild()
	a := app.New(app.Deps{Out: out, Getenv: env.Getenv, Environ: env.Environ, Commit: gitHead, Version: build.Version, Rules: env.Rules})
	cmd := &ucli.App{
		Name:    "latgate",
		Usage:   "a CI latency regression gate for streaming LLM APIs",
		Version: build.String(),
		Description: `latgate streams a fixed prompt set against the API you ship on
(api: in latgate.yaml): OpenAI-compatible chat completions (OpenAI, vLLM,
llama.cpp, Ollama, gateways; the default), the OpenAI Responses API,
Anthropic Messages, Gemini, your own app's SSE stream, or newline-delimited
JSON (api: ndjson; Ollama's native /api/chat). It measures time
to first token (TTFT), inter-token latency (ITL) and total time at P50 and
the tail, and compares them with a committed baseline: it fails the CI job
when latency drifts beyond the tolerances, and stays green on noise.

Start with:  latgate check --config examples/latgate.yaml
(base_url: sim runs the built-in simulator: no key, no network.)

` + exitCodesHelp,
		// urfave/cli adds --help only beside its own help command, which
		// helpCommand stands in for.
		Flags:                []ucli.Flag{ucli.HelpFlag},
		Writer:               out.Stdout,
		ErrWriter:            out.Stderr,
		EnableBashCompletion: false,
		ExitErrHandler:       func(*ucli.Context, error) {}, // Main maps errors to codes
		OnUsageError: func(c *ucli.Context, err error, _ bool) error {
			return usageErr(fmt.Errorf("%s%s (see %s --help)", longFlags(err.Error()), flagSuggestion(c, err), strings.TrimSpace(c.Command.HelpName)))
		},
		Commands: []*ucli.Command{
			checkCommand(a),
			blessCommand(a),
			compareCommand(a),
			abCommand(a),
			measureCommand(a),
			sweepCommand(a),
			mergeCommand(a),
			trendCommand(a),
			historyCommand(a),
			tuneCommand(a),
			initCommand(a),
			selftestCommand(a),
			simCommand(a),
			versionCommand(out, build),
			helpCommand(false), // last, where urfave/cli would list its own
		},
	}
	cmd.Action = func(c *ucli.Context) error {
		if c.NArg() > 0 {
			return unknownCommand(c.Args().First(), c.App.Commands, "latgate")
		}
		return ucli.ShowAppHelp(c)
	}
	for _, c := range cmd.Commands {
		c.OnUsageError = cmd.OnUsageError // a short error, not the whole help
		// Not urfave/cli's "help" subcommand, which it would share among
		// every App and write to (see helpflag.go): a command of
		// subcommands gets one of its own (latgate history help export),
		// the others none (latgate help check and check --help remain).
		c.HideHelpCommand = true
		if len(c.Subcommands) > 0 {
			c.Subcommands = append(c.Subcommands, helpCommand(true))
		}
	}
	return cmd
}

// gitHead returns the commit checked out in dir (git rev-parse HEAD), ""
// when git cannot tell within two seconds.
func gitHead(ctx context.Context, dir string) string {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// commandNames lists every name a command answers to.
func commandNames(cmds []*ucli.Command) []string {
	var names []string
	for _, c := range cmds {
		names = append(names, c.Names()...)
	}
	return names
}

// helpTopicSuggestion is "; did you mean "check"?" after urfave/cli's
// "No help topic for 'chek'" (check --help chek), else "". The help
// command's own error (showHelp) says it already.
func helpTopicSuggestion(app *ucli.App, err error) string {
	var theirs ucli.ExitCoder
	if !errors.As(err, &theirs) {
		return ""
	}
	topic, ok := strings.CutPrefix(err.Error(), "No help topic for '")
	if !ok {
		return ""
	}
	if s := suggest.Closest(strings.TrimSuffix(topic, "'"), commandNames(app.Commands)); s != "" {
		return fmt.Sprintf("; did you mean %q?", s)
	}
	return ""
}

// goFlagName is a flag name in the errors of Go's flag package, which
// urfave/cli passes on: "-history-keep" in "invalid value "x" for flag
// -history-keep: …" or "flag provided but not defined: -nosuch".
var goFlagName = regexp.MustCompile(`(^|: |for flag |for )-([A-Za-z0-9][A-Za-z0-9-]+)`)

// longFlags writes the long flags of a flag-parsing error as users type
// them and --help shows them: --history-keep, not -history-keep (one-letter
// flags such as -q keep their one dash).
func longFlags(msg string) string {
	return goFlagName.ReplaceAllString(msg, "${1}--${2}")
}

// flagSuggestion is " ; did you mean --NAME?" for an unknown flag close to
// one of the command's flags, else "".
func flagSuggestion(c *ucli.Context, err error) string {
	const prefix = "flag provided but not defined: "
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) || c.Command == nil {
		return ""
	}
	given := strings.TrimLeft(strings.TrimPrefix(msg, prefix), "-")
	var names []string
	for _, f := range c.Command.Flags {
		names = append(names, f.Names()...)
	}
	if c.Command.Name == "" || len(c.Command.Flags) == 0 { // the app itself
		for _, f := range c.App.Flags {
			names = append(names, f.Names()...)
		}
	}
	names = append(names, "help")
	s := suggest.Closest(given, names)
	if s == "" {
		return ""
	}
	if len(s) == 1 {
		return fmt.Sprintf("; did you mean -%s?", s)
	}
	return fmt.Sprintf("; did you mean --%s?", s)
}
