package app

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/latgate/latgate/internal/sanitize"
	"github.com/latgate/latgate/internal/serve"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/measure"
	"github.com/latgate/latgate/pkg/sim"
)

// Endpoints resolves the config's targets: it starts the built-in
// simulator on 127.0.0.1 for "sim" targets (one per distinct profile) and
// reads each API key from its environment variable. stop shuts the
// simulators down.
func Endpoints(ctx context.Context, cfg *config.Config, getenv func(string) string) (eps []measure.Endpoint, stop func(), err error) {
	var running []*sim.Running
	stop = func() {
		for _, r := range running {
			r.Close()
		}
	}
	defer func() {
		if err != nil {
			stop()
		}
	}()
	sims := map[string]*sim.Running{}
	for _, t := range cfg.Targets {
		ep := measure.NewEndpoint(t, t.BaseURL, getenv)
		if t.IsSim() {
			r, ok := sims[t.SimSpec()]
			if !ok {
				p, err := sim.ParseSpec(t.SimSpec())
				if err != nil {
					return nil, stop, UsageError(fmt.Errorf("%s:%d: targets %q: base_url %q: %w", cfg.Path, t.Line, t.Name, t.BaseURL, err))
				}
				// The simulator is the endpoint: it must outlive an
				// interrupted run, or its streams would end cleanly under
				// requests being cancelled and read as truncated. stop
				// closes it.
				r, err = sim.Start(context.WithoutCancel(ctx), p)
				if err != nil {
					return nil, stop, MeasurementError(fmt.Errorf("starting the built-in simulator: %w", err))
				}
				running = append(running, r)
				sims[t.SimSpec()] = r
			}
			ep.URL = r.URLFor(t.APIName()) // the simulator speaks every API
		} else if err := checkURL(t); err != nil {
			return nil, stop, UsageError(fmt.Errorf("%s:%d: %w", cfg.Path, t.Line, err))
		} else if ep.APIKey == "" && hosted(t.BaseURL) {
			return nil, stop, UsageError(fmt.Errorf("target %q: $%s is empty: export the API key in that variable (or set api_key_env in %s)", t.Name, t.APIKeyEnv, cfg.Path))
		}
		eps = append(eps, ep)
	}
	return eps, stop, nil
}

func checkURL(t config.Target) error {
	u, err := url.Parse(t.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("target %q: base_url %q is not an http(s) URL (e.g. http://127.0.0.1:11434/v1), nor \"sim\"", t.Name, sanitize.URL(t.BaseURL))
	}
	return nil
}

// hosted reports whether base is a provider's API that never answers
// without a key (OpenAI, Anthropic, Gemini).
func hosted(base string) bool {
	u, err := url.Parse(base)
	if err != nil {
		return false
	}
	h := u.Hostname()
	return strings.HasSuffix(h, "openai.com") || strings.HasSuffix(h, "anthropic.com") || h == "generativelanguage.googleapis.com"
}

// endpoints resolves cfg's targets (Start) and starts the servers of
// those with serve:, one per distinct serve: (targets with the same one
// share it), each ready before any is measured. stop stops the servers,
// then what Start started; its error is a server that exited while it was
// measured, with the last lines of its output. On an error nothing is left
// running.
func (a *App) endpoints(ctx context.Context, cfg *config.Config) (eps []measure.Endpoint, stop func() error, err error) {
	eps, stopStart, err := a.Start(ctx, cfg, a.Getenv)
	if err != nil {
		return nil, func() error { return nil }, err
	}
	var procs []*serve.Process
	stop = func() error {
		var errs []error
		for i := len(procs) - 1; i >= 0; i-- {
			errs = append(errs, procs[i].Stop())
		}
		stopStart()
		if err := errors.Join(errs...); err != nil {
			return MeasurementError(err)
		}
		return nil
	}
	started := map[string]bool{}
	for _, t := range cfg.Targets {
		if t.Serve == nil || started[t.Serve.Key()] {
			continue
		}
		started[t.Serve.Key()] = true
		begin := time.Now()
		environ, withheld, redactor := serveEnviron(a.Environ(), cfg, t.Serve.PassEnv)
		// The server is the endpoint: like the simulator it must outlive an
		// interrupted run's last requests; stop ends it.
		p, err := serve.Start(ctx, *t.Serve, serve.Options{Target: t.Name, BaseURL: t.BaseURL, Environ: environ,
			Redact: func(s string) string { return redactor.Redact(a.Out.Redact(s)) }})
		if err != nil {
			stop()
			if ctx.Err() != nil {
				return nil, func() error { return nil }, MeasurementError(fmt.Errorf("interrupted: %w", err))
			}
			return nil, func() error { return nil }, MeasurementError(fmt.Errorf("%s:%d: %w", t.Serve.Path, t.Serve.Line, err))
		}
		procs = append(procs, p)
		held := ""
		if len(withheld) > 0 {
			held = fmt.Sprintf("; withheld from it: %s (serve.pass_env passes what it needs)", strings.Join(withheld, ", "))
		}
		a.Out.Note("target %s: its server is ready (serve: %s, pid %d, %s%s)", t.Name, t.Serve.Command[0], p.Pid(), time.Since(begin).Round(time.Millisecond), held)
	}
	return eps, stop, nil
}

// serveEnviron is the environment a serve: process gets: latgate's,
// without the variables cfg's targets send as credentials and those whose
// names say they hold one (withheld: their names), but for pass
// (serve.pass_env); and a redactor
// for its output: pass's values and the password of every URL in what it
// gets. The values stay out of the run's other outputs' redactor, so
// that a passed path or "true" does not blank file names everywhere.
func serveEnviron(environ []string, cfg *config.Config, pass []string) (out, withheld []string, r *sanitize.Redactor) {
	sent := map[string]bool{}
	for _, t := range cfg.Targets {
		for _, name := range measure.SecretEnv(t) {
			sent[name] = true
		}
	}
	r = sanitize.NewRedactor()
	for _, kv := range environ {
		name, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		switch passed := slices.Contains(pass, name); {
		case passed:
			r.Add(sanitize.Credentials(v, "")...)
		case sent[name] || config.SecretName(name):
			withheld = append(withheld, name)
			continue
		}
		if u, err := url.Parse(v); err == nil && u.User != nil {
			if pw, ok := u.User.Password(); ok {
				r.Add(pw, url.QueryEscape(pw))
			}
		}
		out = append(out, kv)
	}
	return out, withheld, r
}
