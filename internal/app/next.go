package app

import (
	"errors"
	"maps"
	"slices"

	"github.com/latgate/latgate/pkg/measure"
	"github.com/latgate/latgate/pkg/results"
)

// A failed measurement ends, like a failed gate, with what to do next (#23):
// the error says what happened, in the endpoint's words; the next step says
// which setting or which side to look at, by the class of failure that
// stopped the run, and the command that tries the endpoint again without the
// gate. An interrupted run has none: whoever interrupted it knows why.

// measurementErr marks err, a failed or partial measurement of the config
// at cfgPath, as a measurement failure with its next step.
func measurementErr(err error, cfgPath string) error {
	// The try command names the config; an overridden base_url is not in
	// it, so it is named in words.
	try := "latgate measure --config " + shellQuote(cfgPath) + " --requests 5 (with the same --base-url, if you gave one)"
	return &Error{Class: Measurement, Err: err, Next: nextStep(err, try)}
}

// abMeasurementErr is measurementErr for latgate ab, whose failure may be
// either side's: the try command names both configs.
func abMeasurementErr(err error, base, candidate string) error {
	try := "latgate measure --config " + shellQuote(base) + " --requests 5, and the same with --config " + shellQuote(candidate)
	return &Error{Class: Measurement, Err: err, Next: nextStep(err, try)}
}

// nextStep is the next step after a measurement failure err, ending with
// the command try that tries the endpoint again; "" when there is nothing
// more to say than the error.
func nextStep(err error, try string) string {
	if errors.Is(err, measure.ErrInterrupted) {
		return ""
	}
	var auth *measure.AuthError
	if errors.As(err, &auth) {
		return "fix the key as the message says, then try the endpoint without the gate: " + try
	}
	byClass := map[string]int{}
	var gu *measure.GiveUpError
	var be *results.BudgetError
	switch {
	case errors.As(err, &gu):
		maps.Copy(byClass, gu.ByClass)
	case errors.As(err, &be):
		for _, t := range be.Over {
			for k, v := range t.ByClass {
				byClass[k] += v
			}
		}
	default:
		return ""
	}
	what := "fix what the endpoint said above"
	switch dominant(byClass) {
	case results.ErrConnect:
		what = "nothing answered at base_url: start the endpoint (a local server: is it running, on that port?) or fix base_url"
	case results.ErrTimeout:
		what = "the endpoint did not finish within run.timeout: check that it serves the model (a model still loading, a starved or swapping server), or raise run.timeout if its answers are that long"
	case results.ErrSlow:
		what = "the requests were far slower than the baseline allows: find why the endpoint is this much slower"
	case results.ErrRateLimit:
		what = "the endpoint rate-limits this run: lower run.concurrency, measure fewer requests, or use a key with a higher limit"
	case results.ErrServer:
		what = "the endpoint failed with server errors (5xx): check its health and logs, or the provider's status page"
	case results.ErrHTTP, results.ErrAuth:
		what = "fix the request the endpoint refused, as the message says (base_url, model, key)"
	case results.ErrTruncated, results.ErrMalformed, results.ErrStreamErr, results.ErrEmpty, results.ErrOverrun:
		what = "the endpoint's stream is not what its API promises: check the target's api: and base_url (docs/endpoints.md), or the server's logs"
	}
	return what + "; then try it without the gate: " + try
}

// dominant is the class with the most failures (ties: the first by name),
// "" for none.
func dominant(byClass map[string]int) string {
	best, n := "", 0
	for _, k := range slices.Sorted(maps.Keys(byClass)) {
		if byClass[k] > n {
			best, n = k, byClass[k]
		}
	}
	return best
}

// NextOf is the next step carried by err (an *Error's Next), "" for none.
func NextOf(err error) string {
	for err != nil {
		var e *Error
		if !errors.As(err, &e) {
			return ""
		}
		if e.Next != "" {
			return e.Next
		}
		err = e.Err
	}
	return ""
}
