package app

import (
	"context"
	"net/url"
	"strings"

	"github.com/latgate/latgate/internal/export"
	"github.com/latgate/latgate/internal/sanitize"
)

// otlpFlag is the flag that names a collector (Run.OTLP), for messages.
const otlpFlag = "--otlp"

// exportOTLP sends the requests measured in sides to the OTLP collector
// that --otlp or the OTEL_EXPORTER_OTLP_* environment names, if any
// (export.ResolveOTLP), within export.OTLPTimeout. It never fails the
// command: a collector that is down, slow or refusing is one warning on
// stderr naming it, and the verdict and exit code are the gate's.
func (a *App) exportOTLP(ctx context.Context, r Run, sides ...export.Side) {
	a.learnOTLP(r)
	ep, err := export.ResolveOTLP(r.OTLP, otlpFlag, a.Getenv)
	if err != nil {
		a.Out.Warn("OTLP export skipped (the verdict and exit code do not depend on it): %v", err)
		return
	}
	if ep.URL == "" {
		return
	}
	if ctx.Err() != nil {
		a.Out.Note("OTLP export to %s skipped: the run was interrupted", ep.URL)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, export.OTLPTimeout)
	defer cancel()
	n, err := export.OTLP(ctx, export.OTLPOptions{Endpoint: ep.URL, Version: a.Version, Redact: a.Out.Redact, Getenv: a.Getenv}, sides)
	switch {
	case err != nil:
		a.Out.Warn("OTLP export to %s (%s) failed, so the collector may lack this run's %d requests (the verdict and exit code do not depend on it): %s",
			ep.URL, ep.From, n, sanitize.Line(err.Error(), sanitize.MaxMessage))
	case n > 0:
		a.Out.Note("OTLP: %d requests exported to %s (%s)", n, ep.URL, ep.From)
	}
}

// learnOTLP tells every output the credentials an export may carry: a
// collector URL's user:pass@ and query keys, and the values of the
// OTLP headers (an Authorization, an API key), which the exporter reads
// from the environment itself.
func (a *App) learnOTLP(r Run) {
	a.Out.Learn(sanitize.Credentials("", r.OTLP)...)
	for _, name := range []string{export.EnvEndpoint, export.EnvMetricsEndpoint} {
		a.Out.Learn(sanitize.Credentials("", a.Getenv(name))...)
	}
	for _, name := range []string{export.EnvHeaders, export.EnvMetricsHeaders} {
		for _, kv := range strings.Split(a.Getenv(name), ",") {
			_, v, ok := strings.Cut(kv, "=")
			if !ok {
				continue
			}
			v = strings.TrimSpace(v)
			a.Out.Learn(v)
			if d, err := url.PathUnescape(v); err == nil {
				a.Out.Learn(d)
			}
		}
	}
}
