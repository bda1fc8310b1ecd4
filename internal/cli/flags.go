package cli

import (
	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/internal/app"
	"github.com/latgate/latgate/internal/publish"
	"github.com/latgate/latgate/internal/render"
	"github.com/latgate/latgate/internal/view"
)

// The flags several commands share, each turned into the part of a
// request it sets.

func runFlagDefs() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "config", Aliases: []string{"c"}, Value: app.DefaultConfig, Usage: "the latgate.yaml to run", TakesFile: true},
		&ucli.StringFlag{Name: "base-url", Usage: "override every target's base_url (e.g. http://127.0.0.1:8000/v1, or sim:default?ttft_factor=1.6 to rehearse a regression)"},
		&ucli.IntFlag{Name: "requests", DefaultText: "from config", Usage: "override run.requests (measured requests per target × prompt)"},
		&ucli.IntFlag{Name: "warmup", DefaultText: "from config", Usage: "override run.warmup"},
		&ucli.IntFlag{Name: "concurrency", DefaultText: "from config", Usage: "override run.concurrency"},
		&ucli.DurationFlag{Name: "timeout", DefaultText: "from config", Usage: "override run.timeout (per request)"},
		&ucli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress on stderr"},
		&ucli.StringFlag{Name: "otlp", Usage: "export every measured request to the OpenTelemetry collector at `URL` as OTLP/HTTP metrics: the GenAI conventions' histograms (gen_ai.client.operation.duration, …) and latgate.client.time_to_first_token (e.g. http://127.0.0.1:4318, /v1/metrics appended; $OTEL_EXPORTER_OTLP_ENDPOINT does the same without the flag, $OTEL_EXPORTER_OTLP_HEADERS adds headers). A collector that is down is a warning, never a failed gate (docs/opentelemetry.md)"},
		&ucli.StringFlag{Name: "trusted-config", Usage: "send each secret from the environment (api_key_env, sse or ndjson headers_env) only to the origins this `FILE` (the default branch's config) sends that variable to; refuse, before any request, a target that would send one elsewhere (the action passes it on pull requests)", TakesFile: true},
	}
}

func parseRunFlags(c *ucli.Context) app.Run {
	r := app.Run{ConfigPath: c.String("config"), BaseURL: c.String("base-url"), Quiet: c.Bool("quiet"), TrustedConfig: c.String("trusted-config"), OTLP: c.String("otlp")}
	intFlag := func(name string) *int {
		if !c.IsSet(name) {
			return nil
		}
		v := c.Int(name)
		return &v
	}
	r.Requests, r.Warmup, r.Concurrency = intFlag("requests"), intFlag("warmup"), intFlag("concurrency")
	if c.IsSet("timeout") {
		d := c.Duration("timeout")
		r.Timeout = &d
	}
	return r
}

// gateFlagDefs are the report flags of check and compare: the formats
// that show a gate (render.Formats), then the gate's own.
func gateFlagDefs() []ucli.Flag {
	return append(reportFlagDefs(view.KindGate),
		&ucli.BoolFlag{Name: "strict", Usage: "fail (exit 1) on inconclusive checks too"},
		&ucli.BoolFlag{Name: "strict-baseline", Usage: "refuse (exit 2) a baseline that measured another model, endpoint, parameter or prompt set, instead of gating the change and labelling it"},
		wideFlag(),
	)
}

// reportFlagDefs are the report file flags of a command whose outcome is
// kind: one per format with a flag that shows it, in render.Formats'
// order (then extra's, a test's), with the format's own help.
func reportFlagDefs(kind view.Kind, extra ...render.Format) []ucli.Flag {
	var out []ucli.Flag
	for _, f := range append(render.Formats(), extra...) {
		if f.Offers(kind) {
			out = append(out, &ucli.StringFlag{Name: f.Flag, Usage: f.Usage(kind), TakesFile: true})
		}
	}
	return out
}

// parseReports is the report files the flags of kind (and of extra's
// formats) name, by format.
func parseReports(c *ucli.Context, kind view.Kind, extra ...render.Format) publish.Reports {
	r := publish.Reports{}
	for _, f := range append(render.Formats(), extra...) {
		if f.Offers(kind) {
			r[f.Name] = c.String(f.Flag)
		}
	}
	return r
}

// wideFlag is --wide: every column of the text tables, however wide.
func wideFlag() ucli.Flag {
	return &ucli.BoolFlag{Name: "wide", Usage: "keep every column of the tables on stdout, however wide (by default a table fits 100 columns: its widest optional column moves onto lines under its rows, then each target heads its rows)"}
}

func parseGateFlags(c *ucli.Context) app.Gate {
	return app.Gate{Reports: parseReports(c, view.KindGate),
		Strict: c.Bool("strict"), StrictBaseline: c.Bool("strict-baseline"), Wide: c.Bool("wide")}
}

// defaultHistoryKeep bounds the history: about three years of nightly runs,
// some 5 MB with 10 prompts.
const defaultHistoryKeep = 1000

// historyFlagDefs are the history flags of check and measure.
func historyFlagDefs() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "history", Usage: "append this run's summary to the history `FILE` (JSON Lines; default: the config's history:)", TakesFile: true},
		&ucli.IntFlag{Name: "history-keep", Value: defaultHistoryKeep, Usage: "keep at most `N` runs in the history, dropping the oldest (0: keep all)"},
	}
}

func parseHistoryFlags(c *ucli.Context) app.History {
	return app.History{Path: c.String("history"), Keep: c.Int("history-keep")}
}
