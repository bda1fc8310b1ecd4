package cli

import (
	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/internal/app"
	"github.com/latgate/latgate/internal/publish"
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
		&ucli.StringFlag{Name: "trusted-config", Usage: "send each secret from the environment (api_key_env, sse.headers_env) only to the origins this `FILE` (the default branch's config) sends that variable to; refuse, before any request, a target that would send one elsewhere (the action passes it on pull requests)", TakesFile: true},
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

// gateFlagDefs are the report flags of check and compare.
func gateFlagDefs() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "junit", Usage: "write a JUnit XML report to `FILE` (one testcase per prompt × metric × statistic)", TakesFile: true},
		&ucli.StringFlag{Name: "markdown", Usage: "write the verdicts as Markdown to `FILE` (for a PR comment)", TakesFile: true},
		summaryFlag(),
		&ucli.StringFlag{Name: "openmetrics", Usage: "write the run's latencies and the checks as OpenMetrics text to `FILE` (for Prometheus: the textfile collector, promtool backfill; docs/observability.md)", TakesFile: true},
		&ucli.BoolFlag{Name: "strict", Usage: "fail (exit 1) on inconclusive checks too"},
		&ucli.BoolFlag{Name: "strict-baseline", Usage: "refuse (exit 2) a baseline that measured another model, endpoint, parameter or prompt set, instead of gating the change and labelling it"},
		wideFlag(),
	}
}

// wideFlag is --wide: every column of the text tables, however wide.
func wideFlag() ucli.Flag {
	return &ucli.BoolFlag{Name: "wide", Usage: "keep every column of the tables on stdout, however wide (by default a table fits 100 columns: its widest optional column moves onto lines under its rows, then each target heads its rows)"}
}

// summaryFlag is --summary: the job summary's Markdown, outside Actions too.
func summaryFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "summary", Usage: "write the GitHub job summary's Markdown (tables and Mermaid charts) to `FILE`, in or outside Actions (GitLab, a local preview)", TakesFile: true}
}

func parseGateFlags(c *ucli.Context) app.Gate {
	return app.Gate{Reports: publish.Reports{JUnit: c.String("junit"), Markdown: c.String("markdown"), Summary: c.String("summary"), OpenMetrics: c.String("openmetrics")},
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
