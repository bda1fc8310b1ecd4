package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"

	"github.com/latgate/latgate/internal/selftest"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/sim"
)

// SelftestRequest is `latgate selftest`: latgate's own timing error on
// this machine, and what a config's checks can resolve.
type SelftestRequest struct {
	// ConfigPath, when set, has its checks assessed.
	ConfigPath string
	// Profile is the simulator spec of the fixed schedule.
	Profile string
	// Requests per run and concurrency (0: max(16, 2×concurrency)).
	Requests    int
	Concurrency []int
	Runs        int
	// JSON prints the report as JSON.
	JSON bool
}

// Selftest measures the built-in simulator through latgate's real client
// path and prints the error of every reported statistic against the
// simulator's own record.
func (a *App) Selftest(ctx context.Context, req SelftestRequest) error {
	p, err := sim.ParseSpec(req.Profile)
	if err != nil {
		return UsageError(fmt.Errorf("--profile: %w", err))
	}
	switch {
	case req.Requests < 0, req.Runs < 1:
		return UsageError(errors.New("--requests must be ≥ 0 and --runs ≥ 1"))
	case len(req.Concurrency) == 0:
		return UsageError(errors.New("--concurrency: no level given"))
	}
	var cfg *config.Config
	if req.ConfigPath != "" {
		if cfg, err = config.Load(req.ConfigPath, ConfigOptions(a.Getenv)); err != nil {
			return UsageError(err)
		}
	}
	rep, err := selftest.Run(ctx, selftest.Options{Profile: p, Spec: req.Profile, Requests: req.Requests,
		Concurrency: req.Concurrency, Runs: req.Runs, Config: cfg, Progress: a.Out.Stderr})
	if err != nil {
		return MeasurementError(err)
	}
	if req.JSON {
		enc := json.NewEncoder(a.Out.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return selftest.Write(a.Out.Stdout, rep)
}

// Sim serves the built-in simulator with profile spec on addr until ctx
// ends.
func (a *App) Sim(ctx context.Context, addr, spec string) error {
	p, err := sim.ParseSpec(spec)
	if err != nil {
		return UsageError(fmt.Errorf("--profile: %w", err))
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return UsageError(fmt.Errorf("--addr: %w", err))
	}
	fmt.Fprintf(a.Out.Stderr, "latgate sim: serving profile %q on http://%s/v1 (Ctrl-C to stop)\n", spec, ln.Addr())
	if err := sim.Serve(ctx, ln, p); err != nil && ctx.Err() == nil {
		return MeasurementError(err)
	}
	return nil
}
