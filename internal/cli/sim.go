package cli

import (
	"context"
	"fmt"
	"net"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/pkg/sim"
)

type simOptions struct {
	Addr    string
	Profile string
}

func simCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "sim",
		Usage:     "serve the built-in simulated OpenAI-compatible streaming endpoint",
		UsageText: "latgate sim [--addr 127.0.0.1:8089] [--profile 'default?ttft=80ms&slowdown=1.5']",
		Description: `Serves POST /v1/chat/completions (streamed or not) and GET /v1/models with a
latency profile: dry-run your CI wiring, rehearse a regression or a fault.
In a config, base_url: sim (or sim:PROFILE) runs the same server in-process.

` + sim.Describe(),
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "addr", Value: "127.0.0.1:8089", Usage: "listen address (keep it on loopback)"},
			&ucli.StringFlag{Name: "profile", Aliases: []string{"p"}, Value: "default", Usage: "preset name with optional ?key=value overrides"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usageErr(fmt.Errorf("sim takes no arguments, got %q", c.Args().First()))
			}
			return runSim(c.Context, env, simOptions{Addr: c.String("addr"), Profile: c.String("profile")})
		},
	}
}

func runSim(ctx context.Context, env Env, opts simOptions) error {
	p, err := sim.ParseSpec(opts.Profile)
	if err != nil {
		return usageErr(fmt.Errorf("--profile: %w", err))
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return usageErr(fmt.Errorf("--addr: %w", err))
	}
	fmt.Fprintf(env.Stderr, "latgate sim: serving profile %q on http://%s/v1 (Ctrl-C to stop)\n", opts.Profile, ln.Addr())
	if err := sim.Serve(ctx, ln, p); err != nil && ctx.Err() == nil {
		return measurementErr(err)
	}
	return nil
}
