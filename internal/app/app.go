// Package app holds latgate's use cases: check with its sequential rounds,
// compare, bless, measure, merge, trend, tune, init, selftest and sim. Each
// takes a request (the options a command was given, no flags), does its
// work through the packages that own the data (config, measure, compare,
// baseline, history, trend, report), publishes through internal/publish,
// and returns an error of a Class that says which exit code it means.
//
// It touches the outside world only through Deps: the clock, the
// environment, git, the endpoints it measures and every output. The rules
// it applies belong to the packages that own the data; what stays here is
// the joining: which files a command reads and writes, in which order the
// steps run, and what is published when one fails.
package app

import (
	"context"
	"strings"
	"time"

	"github.com/latgate/latgate/internal/publish"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/measure"
	"github.com/latgate/latgate/pkg/results"
)

// Deps are what the use cases may touch of the outside world. New fills
// the nil ones with the real thing.
type Deps struct {
	// Out is every output (required).
	Out *publish.Streams
	// Getenv reads the environment: API keys, the runner's identity,
	// $GITHUB_SHA.
	Getenv func(string) string
	// Environ is the whole environment, which the process of a target's
	// serve: inherits (default: none).
	Environ func() []string
	// Now is the clock of provenance, staleness and progress.
	Now func() time.Time
	// Commit returns the git commit checked out in dir, "" when unknown
	// (default: always unknown); $GITHUB_SHA, when set, is asked first.
	Commit func(ctx context.Context, dir string) string
	// Start resolves a config's targets to endpoints, starting the built-in
	// simulator for "sim" targets; stop releases them (default: Endpoints).
	Start func(ctx context.Context, cfg *config.Config, getenv func(string) string) (eps []measure.Endpoint, stop func(), err error)
	// Measure runs a measurement (default: measure.Run).
	Measure func(ctx context.Context, o measure.Options) (*results.File, error)
	// MeasureAB runs an interleaved A/B measurement (default: measure.RunAB).
	MeasureAB func(ctx context.Context, o measure.ABOptions) (base, cand *results.File, err error)
	// Version is latgate's version, recorded in every results file.
	Version string
	// Rules are gate rules beyond the five built in (compare.RuleDef),
	// decided by check and compare beside the config's checks (default:
	// none; a rule is added in one file, docs/architecture.md).
	Rules []compare.RuleDef
}

// App runs the use cases with its Deps.
type App struct {
	Deps
}

// New returns an App on d, with defaults for the nil dependencies.
func New(d Deps) *App {
	if d.Getenv == nil {
		d.Getenv = func(string) string { return "" }
	}
	if d.Environ == nil {
		d.Environ = func() []string { return nil }
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Commit == nil {
		d.Commit = func(context.Context, string) string { return "" }
	}
	if d.Start == nil {
		d.Start = Endpoints
	}
	if d.Measure == nil {
		d.Measure = measure.Run
	}
	if d.MeasureAB == nil {
		d.MeasureAB = measure.RunAB
	}
	return &App{Deps: d}
}

// commit returns the commit being measured or blessed: $GITHUB_SHA in
// Actions, else the checkout's in dir; "" when unknown.
func (a *App) commit(ctx context.Context, dir string) string {
	if sha := a.Getenv("GITHUB_SHA"); sha != "" {
		return sha
	}
	return a.Commit(ctx, dir)
}

// commitURL is commit's web page when the CI says where the repository is:
// GitHub Actions ($GITHUB_SERVER_URL/$GITHUB_REPOSITORY/commit/SHA) or
// GitLab CI ($CI_PROJECT_URL/-/commit/SHA); "" elsewhere.
func (a *App) commitURL(commit string) string {
	if commit == "" || strings.ContainsAny(commit, "/?#") {
		return ""
	}
	if server, repo := a.Getenv("GITHUB_SERVER_URL"), a.Getenv("GITHUB_REPOSITORY"); server != "" && repo != "" {
		return strings.TrimSuffix(server, "/") + "/" + repo + "/commit/" + commit
	}
	if project := a.Getenv("CI_PROJECT_URL"); project != "" {
		return strings.TrimSuffix(project, "/") + "/-/commit/" + commit
	}
	return ""
}
