package app

import (
	"errors"
	"fmt"
)

// Class is what kind of outcome an error is. The CLI maps each class to its
// exit code, in one place; the use cases say only which class an error is.
type Class int

const (
	// Pass is no error: every check ok, improved or inconclusive.
	Pass Class = iota
	// Regression is a latency regression (or inconclusive under --strict).
	Regression
	// Usage is a usage, config or baseline problem, found before anything
	// was overwritten.
	Usage
	// Measurement is a measurement failure: the endpoint unreachable, an
	// auth failure, the error budget exceeded, an interrupted run; or an
	// output that could not be written after the run (an OutputError).
	Measurement
)

// Error is an error of a known class.
type Error struct {
	Class Class
	Err   error
	// Next is what to do about it, printed after the error as "next: …"
	// ("" for nothing more than the error says).
	Next string
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// UsageError marks err as a usage, config or baseline problem.
func UsageError(err error) error { return &Error{Class: Usage, Err: err} }

// MeasurementError marks err as a measurement failure.
func MeasurementError(err error) error { return &Error{Class: Measurement, Err: err} }

// ErrRegression is the error of a gate that failed: its report has said
// why, so the CLI prints nothing more.
var ErrRegression = errors.New("latency regression")

// OutputError is an output that could not be written after the command
// reached its verdict (the disk filled up, the directory went away): never
// a usage problem. The verdict stands and was published to every output
// that works; a regression stays a Regression, anything else is a
// Measurement failure, and the message says the verdict, so a CI log shows
// what the run found.
type OutputError struct {
	Err       error
	Verdict   string // "" for a command without one (measure, bless, merge)
	Regressed bool
}

func (e *OutputError) Error() string {
	if e.Verdict == "" {
		return e.Err.Error()
	}
	return fmt.Sprintf("%v; the verdict was %s", e.Err, e.Verdict)
}

func (e *OutputError) Unwrap() error { return e.Err }

// outputErr joins errs (nil ones are skipped) into an OutputError, or
// returns nil when there are none.
func outputErr(verdict string, regressed bool, errs ...error) error {
	if err := errors.Join(errs...); err != nil {
		return &OutputError{Err: err, Verdict: verdict, Regressed: regressed}
	}
	return nil
}

// ClassOf returns the class of err. An error of no class (a flag parsing
// error of the CLI's library) is a Usage problem.
func ClassOf(err error) Class {
	var (
		e  *Error
		oe *OutputError
	)
	switch {
	case err == nil:
		return Pass
	case errors.Is(err, ErrRegression):
		return Regression
	case errors.As(err, &oe) && oe.Regressed:
		return Regression
	case errors.As(err, &oe):
		return Measurement
	case errors.As(err, &e):
		return e.Class
	}
	return Usage
}
