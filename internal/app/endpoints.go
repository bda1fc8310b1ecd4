package app

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/latgate/latgate/internal/sanitize"
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
