package cli

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/latgate/latgate/internal/app"
)

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
		stdout string
	}{
		{"unknown command", []string{"nosuch"}, ExitUsage, `unknown command "nosuch"`, ""},
		{"unknown flag", []string{"check", "--nosuch"}, ExitUsage, "flag provided but not defined: --nosuch (see latgate check --help)", ""},
		// #16: flag errors name the flag as --help shows it, with two dashes.
		{"bad flag value names the long flag", []string{"check", "--history-keep", "x"}, ExitUsage, `invalid value "x" for flag --history-keep: parse error (see latgate check --help)`, ""},
		{"bad boolean names the long flag", []string{"check", "--strict=maybe"}, ExitUsage, `for --strict: parse error`, ""},
		{"a one-letter flag keeps one dash", []string{"check", "-q=3"}, ExitUsage, `for -q: parse error`, ""},
		{"missing config", []string{"measure", "--config", "/nonexistent/latgate.yaml"}, ExitUsage, "no config at /nonexistent/latgate.yaml", ""},
		{"stray argument", []string{"measure", "latgate.yaml"}, ExitUsage, "did you mean --config latgate.yaml", ""},
		{"compare needs two files", []string{"compare", "a.json"}, ExitUsage, "BASELINE and RESULTS", ""},
		{"negative requests", []string{"measure", "--config", "../../examples/latgate.yaml", "--requests", "-1"}, ExitUsage, "--requests must be between 1 and 100000, got -1", ""},
		{"bad sim profile", []string{"measure", "--config", "../../examples/latgate.yaml", "--base-url", "sim:nosuch"}, ExitUsage, "nosuch", ""},
		{"bad sim profile blames the flag", []string{"measure", "--config", "../../examples/latgate.yaml", "--base-url", "sim:nosuch"}, ExitUsage, `latgate: --base-url "sim:nosuch": sim: unknown profile "nosuch"`, ""},
		{"bad base url blames the flag", []string{"check", "--config", "../../examples/latgate.yaml", "--base-url", "ftp://u:hunter2@x/v1"}, ExitUsage, `latgate: --base-url "ftp://x/v1" is not an http(s) URL`, ""},
		{"version", []string{"version"}, ExitPass, "", "latgate version " + readBuild().String() + "\n"},
		{"--version agrees", []string{"--version"}, ExitPass, "", "latgate version " + readBuild().String() + "\n"},
		{"did you mean a command", []string{"chek"}, ExitUsage, `unknown command "chek"; did you mean "check"?`, ""},
		{"did you mean a transposed command", []string{"blses"}, ExitUsage, `did you mean "bless"?`, ""},
		{"no suggestion for nonsense", []string{"xyzzy"}, ExitUsage, `unknown command "xyzzy": see latgate --help`, ""},
		{"did you mean a help topic", []string{"help", "chek"}, ExitUsage, "No help topic for 'chek'; did you mean \"check\"?", ""},
		{"did you mean a flag", []string{"check", "--juint", "x.xml"}, ExitUsage, "--juint; did you mean --junit? (see latgate check --help)", ""},
		{"did you mean a flag of compare", []string{"compare", "--confg", "x"}, ExitUsage, "did you mean --config?", ""},
		{"did you mean an app flag", []string{"--verison"}, ExitUsage, "did you mean --version?", ""},
		{"help command", []string{"help", "check"}, ExitPass, "", "latgate check - measure and compare"},
		{"compare flags after files", []string{"compare", "a.json", "b.json", "--junit", "x.xml"}, ExitUsage, "flags go before BASELINE and RESULTS", ""},
		{"help lists exit codes", []string{"--help"}, ExitPass, "", "EXIT CODES"},
		{"help lists the crash exit code", []string{"--help"}, ExitPass, "", "70  latgate crashed"},
		{"check help teaches the verdicts", []string{"check", "--help"}, ExitPass, "", "inconclusive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := run(t, nil, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errs)
			}
			if !strings.Contains(errs, tt.stderr) {
				t.Errorf("stderr %q does not contain %q", errs, tt.stderr)
			}
			if !strings.Contains(out, tt.stdout) {
				t.Errorf("stdout does not contain %q:\n%s", tt.stdout, out)
			}
		})
	}
}

func TestExitCode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  error
		want int
	}{
		{nil, ExitPass},
		{app.ErrRegression, ExitRegression},
		{usageErr(app.ErrRegression), ExitRegression}, // a regression stays a regression
		{usageErr(errNoise), ExitUsage},
		{app.MeasurementError(errNoise), ExitMeasurement},
		{errNoise, ExitUsage},
		// An output not written after the verdict: never a usage problem.
		{&app.OutputError{Err: errNoise, Verdict: "ok"}, ExitMeasurement},
		{&app.OutputError{Err: errNoise, Verdict: "regressed", Regressed: true}, ExitRegression},
		{fmt.Errorf("measure: %w", &app.OutputError{Err: errNoise}), ExitMeasurement},
	}
	for _, tt := range tests {
		if got := exitCode(tt.err); got != tt.want {
			t.Errorf("exitCode(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}

var errNoise = errors.ErrUnsupported
