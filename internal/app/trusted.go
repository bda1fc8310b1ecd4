package app

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/latgate/latgate/internal/inputfile"
	"github.com/latgate/latgate/internal/publish"
	"github.com/latgate/latgate/internal/sanitize"
	"github.com/latgate/latgate/internal/view"
	"github.com/latgate/latgate/pkg/config"
)

// This file holds the two guards of a run on a pull request: the key goes
// only to endpoints the default branch's config already sends it to
// (--trusted-config), and a pull request that gets no secrets (a fork's,
// Dependabot's) is skipped, not failed (--skip-without-key). The rules are
// pkg/config's (Endpoints, TrustedEndpoints, Untrusted); this applies them.

// refuseUntrusted returns a usage error when a target of cfg would send a
// value from the environment (its api_key_env's key, or an sse.headers_env
// header's) to an endpoint the config at trustedPath does not send that
// variable to; nothing has been sent yet. A trustedPath that does not exist
// (the default branch has no config yet) trusts no endpoint. A serve:
// command the trusted config does not run (config.UnreviewedServes) is
// refused the same way.
func (a *App) refuseUntrusted(cfg *config.Config, trustedPath string) error {
	var trusted []config.Endpoint
	var targets []config.Target
	data, err := inputfile.Read(trustedPath, inputfile.MaxConfig)
	why := ""
	switch {
	case errors.Is(err, fs.ErrNotExist):
		why = fmt.Sprintf("%s does not exist (the default branch has no latgate config yet), so no endpoint is trusted", trustedPath)
	case err != nil:
		return UsageError(fmt.Errorf("--trusted-config %s: %w", trustedPath, err))
	default:
		targets, err = config.TrustedTargets(data, trustedPath, ConfigOptions(a.Getenv))
		if err != nil {
			return UsageError(fmt.Errorf("--trusted-config %s: its targets do not parse, so no endpoint can be trusted: %w", trustedPath, err))
		}
		trusted = (&config.Config{Targets: targets}).Endpoints()
	}
	if bad := config.UnreviewedServes(cfg.Targets, targets); len(bad) > 0 {
		var b strings.Builder
		for _, t := range bad {
			fmt.Fprintf(&b, "\n  %s:%d: target %q would run %s", cfg.Path, t.Serve.Line, t.Name, sanitize.Line(strings.Join(t.Serve.Command, " "), 200))
		}
		return UsageError(fmt.Errorf("refusing to run a serve: command the trusted config %s does not run; nothing was started:%s\n"+
			"a pull request cannot add a command to the runner's job by editing the config: land the serve: (same command, dir and env under the same target name) on the default branch first", trustedPath, b.String()))
	}
	var sending []config.Endpoint
	for _, e := range cfg.Endpoints() {
		if a.Getenv(e.KeyEnv) != "" { // an empty variable sends nothing
			sending = append(sending, e)
		}
	}
	bad := config.Untrusted(sending, trusted)
	if len(bad) == 0 {
		return nil
	}
	var b strings.Builder
	for _, e := range bad {
		fmt.Fprintf(&b, "\n  %s:%d: target %q would send $%s (in header %s) to %s", cfg.Path, e.Line, e.Target, e.KeyEnv, e.Header, e.Origin)
	}
	if why == "" {
		why = fmt.Sprintf("the trusted config %s never sends that variable there", trustedPath)
	}
	return UsageError(fmt.Errorf("refusing to send a secret from the environment to an endpoint the trusted config does not send it to; nothing was sent:%s\n"+
		"%s. A pull request cannot point a key or a headers_env value at a new endpoint: to approve one, land the change on the default branch first "+
		"(a maintainer merges it; from then on its config is the trusted one)", b.String(), why))
}

// SkippedVerdict is what a run skipped by --skip-without-key writes as its
// verdict to $GITHUB_OUTPUT.
const SkippedVerdict = view.SkippedVerdict

// skipWithoutKey reports whether cfg has a target that is not the simulator
// and names a variable it sends (api_key_env, sse or ndjson headers_env) or passes
// to its server (serve.pass_env) that is empty; a target that names none sends nothing secret and is measured. If
// so it publishes that nothing was
// measured (stdout; in Actions a ::notice, the job summary and
// verdict=skipped; no JUnit or Markdown report, so nothing is published as
// a check run or comment), for the caller to stop before measuring.
func (a *App) skipWithoutKey(sink *publish.Sink, cfg *config.Config) (bool, error) {
	var empty []string
	for _, e := range cfg.Endpoints() {
		if a.Getenv(e.KeyEnv) == "" {
			empty = append(empty, "$"+e.KeyEnv+" (target "+e.Target+")")
		}
	}
	for _, t := range cfg.Targets { // the secrets a serve: process gets are the run's too
		if t.Serve != nil {
			for _, name := range t.Serve.PassEnv {
				if a.Getenv(name) == "" {
					empty = append(empty, "$"+name+" (target "+t.Name+"'s serve.pass_env)")
				}
			}
		}
	}
	if len(empty) == 0 {
		return false, nil
	}
	return true, sink.Publish(view.Skipped(empty))
}
