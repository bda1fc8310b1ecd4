package cli

import (
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/internal/app"
	"github.com/latgate/latgate/pkg/sim"
)

func simCommand(a *app.App) *ucli.Command {
	return &ucli.Command{
		Name:      "sim",
		Usage:     "serve the built-in simulated streaming endpoint (every API latgate speaks)",
		UsageText: "latgate sim [--addr 127.0.0.1:8089] [--profile 'default?ttft=80ms&slowdown=1.5']",
		Description: `EXAMPLES:
   # A standalone endpoint for another client or a CI dry run
   latgate sim --addr 127.0.0.1:8089 --profile 'default?ttft=80ms'

   # Ollama's default: one request at a time (the others queue)
   latgate sim --profile 'ollama?serial=true'

Serves every API latgate measures, with its real event sequence and a latency
profile: POST /v1/chat/completions (streamed or not) and GET /v1/models,
POST /v1/responses, POST /v1/messages (Anthropic), POST
/v1beta/models/MODEL:streamGenerateContent (Gemini), POST /app/chat (an
app's own stream: status, delta, done events) and POST /api/chat (Ollama's
native NDJSON). Dry-run your CI wiring,
rehearse a regression or a fault. In a config, base_url: sim (or
sim:PROFILE) runs the same server in-process, for a target of any api.

` + sim.Describe(),
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "addr", Value: "127.0.0.1:8089", Usage: "listen address (keep it on loopback)"},
			&ucli.StringFlag{Name: "profile", Aliases: []string{"p"}, Value: "default", Usage: "preset name with optional ?key=value overrides"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usageErr(fmt.Errorf("sim takes no arguments, got %q", c.Args().First()))
			}
			return a.Sim(c.Context, c.String("addr"), c.String("profile"))
		},
	}
}
