package export

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/exemplar"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/latgate/latgate/internal/sanitize"
	"github.com/latgate/latgate/pkg/results"
)

// The OTLP instruments: the OpenTelemetry GenAI semantic conventions'
// client histograms (status "development": their names may still move),
// and latgate's own two, named apart so that nobody reads the convention's
// first chunk as latgate's first token.
const (
	MetricDuration       = "gen_ai.client.operation.duration"
	MetricFirstChunk     = "gen_ai.client.operation.time_to_first_chunk"
	MetricPerOutputChunk = "gen_ai.client.operation.time_per_output_chunk"
	MetricTokenUsage     = "gen_ai.client.token.usage"
	MetricFirstToken     = "latgate.client.time_to_first_token"
	MetricInterToken     = "latgate.client.inter_token_latency"
)

// Bucket boundaries, in seconds (tokens for the usage): the conventions'
// recommendations. latgate's inter-token latency takes the boundaries the
// conventions give the server's time per output token, with 1, 2.5 and 5 ms
// below them: a fast API's gaps are under the first, 10 ms.
var (
	clientSeconds = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
	tokenSeconds  = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5}
	tokenCounts   = []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}
)

// The environment variables of the OpenTelemetry SDK specification that
// decide whether and where latgate exports.
const (
	EnvEndpoint        = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvMetricsEndpoint = "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"
	EnvHeaders         = "OTEL_EXPORTER_OTLP_HEADERS"
	EnvMetricsHeaders  = "OTEL_EXPORTER_OTLP_METRICS_HEADERS"
	envSDKDisabled     = "OTEL_SDK_DISABLED"
	envMetricsExporter = "OTEL_METRICS_EXPORTER"
)

// OTLPTimeout bounds a whole export, retries included: a collector that
// hangs cannot hang the CI job.
const OTLPTimeout = 10 * time.Second

// metricsPath is where an OTLP/HTTP collector takes metrics, under its base URL.
const metricsPath = "/v1/metrics"

// OTLPEndpoint is where an export goes: URL, the collector's metrics URL
// as the exporter posts to it, and From, what named it (the flag or the
// variable), for messages. A zero OTLPEndpoint is no export.
type OTLPEndpoint struct {
	URL  string
	From string
}

// ResolveOTLP is the one rule for where latgate exports OTLP metrics: the
// flag's URL (flagName, e.g. "--otlp"), else $OTEL_EXPORTER_OTLP_METRICS_ENDPOINT
// (taken as it is), else $OTEL_EXPORTER_OTLP_ENDPOINT; none of them is no
// export, and so are $OTEL_SDK_DISABLED=true and $OTEL_METRICS_EXPORTER=none
// without the flag. The flag and OTEL_EXPORTER_OTLP_ENDPOINT are the
// collector's base URL, whose path gets /v1/metrics appended, as the
// specification says of the variable; a flag that already ends in
// /v1/metrics is taken as it is. A URL that is not http(s)://host is an
// error naming its source.
func ResolveOTLP(flag, flagName string, getenv func(string) string) (OTLPEndpoint, error) {
	if flag != "" {
		u, err := collectorURL(flag, true)
		if err != nil {
			return OTLPEndpoint{}, fmt.Errorf("%s: %w", flagName, err)
		}
		return OTLPEndpoint{URL: u, From: flagName}, nil
	}
	if strings.EqualFold(strings.TrimSpace(getenv(envSDKDisabled)), "true") || strings.EqualFold(strings.TrimSpace(getenv(envMetricsExporter)), "none") {
		return OTLPEndpoint{}, nil
	}
	for _, v := range []struct {
		name string
		base bool
	}{{EnvMetricsEndpoint, false}, {EnvEndpoint, true}} {
		s := strings.TrimSpace(getenv(v.name))
		if s == "" {
			continue
		}
		u, err := collectorURL(s, v.base)
		if err != nil {
			return OTLPEndpoint{}, fmt.Errorf("$%s: %w", v.name, err)
		}
		return OTLPEndpoint{URL: u, From: "$" + v.name}, nil
	}
	return OTLPEndpoint{}, nil
}

// collectorURL is s as the metrics URL the exporter posts to: a base URL
// (base) gets /v1/metrics appended to its path unless it ends so already;
// a per-signal URL's path is taken as it is, "/" when it has none. The
// exporter sends neither a user:pass@ nor a query, so the URL has none.
func collectorURL(s string, base bool) (string, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		shown := "" // a value that is no URL may be anything: not repeated
		if err == nil && u.Host != "" {
			shown = strconv.Quote(sanitize.URL(s)) + " is "
		}
		return "", fmt.Errorf("%snot an http(s) URL of an OTLP/HTTP collector: give its scheme and host, e.g. http://127.0.0.1:4318", shown)
	}
	p := u.Path
	switch {
	case base && !strings.HasSuffix(strings.TrimSuffix(p, "/"), metricsPath):
		p = path.Join("/", p, metricsPath)
	case p == "":
		p = "/"
	}
	// What the exporter posts to: no user:pass@, no query (it sends
	// neither; credentials go in OTEL_EXPORTER_OTLP_HEADERS).
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: p}).String(), nil
}

// OTLPOptions is what an export is given beside the runs.
type OTLPOptions struct {
	// Endpoint is the collector's metrics URL (OTLPEndpoint.URL). The
	// exporter reads its other settings from the process environment as
	// the SDK documents them: OTEL_EXPORTER_OTLP_HEADERS and
	// OTEL_EXPORTER_OTLP_METRICS_HEADERS, the timeout, compression,
	// certificates, temporality and histogram aggregation.
	Endpoint string
	// Version is latgate's version, the resource's service.version ("":
	// none).
	Version string
	// Redact is applied to every attribute value, a last line of defence
	// (nil: none; the values come redacted from the results already).
	Redact func(string) string
	// Getenv reads the TLS variables of the exporter's client (otlpClient;
	// nil: none set). The SDK reads the others from the process itself.
	Getenv func(string) string
}

// OTLP sends every measured request of sides to an OpenTelemetry collector
// as OTLP/HTTP protobuf metrics, through the OpenTelemetry Go SDK: one
// point per request (per gap for the inter-chunk histograms) in the
// histograms of the GenAI semantic conventions and latgate's own, under
// the resource service.name=latgate. It returns how many requests it recorded,
// and any error of the export. ctx bounds it, retries included (see
// OTLPTimeout).
//
// A failed request has no duration in a results file, so it is in no
// histogram; a chain's sample is its last step, as in the results file.
func OTLP(ctx context.Context, o OTLPOptions, sides []Side) (int, error) {
	hc, err := otlpClient(o.Getenv)
	if err != nil {
		return 0, err
	}
	exp, err := otlpmetrichttp.New(ctx,
		otlpmetrichttp.WithEndpointURL(o.Endpoint),
		otlpmetrichttp.WithHTTPClient(hc),
		// Short retries of a collector's 429, 502, 503 and 504, well inside
		// OTLPTimeout: a collector restarting is waited for, one that is
		// down is not.
		otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig{Enabled: true, InitialInterval: 250 * time.Millisecond, MaxInterval: time.Second, MaxElapsedTime: 2 * time.Second}))
	if err != nil {
		return 0, fmt.Errorf("otlp exporter: %w", err)
	}
	reader := sdkmetric.NewManualReader(sdkmetric.WithTemporalitySelector(exp.Temporality), sdkmetric.WithAggregationSelector(exp.Aggregation))
	res := []attribute.KeyValue{attribute.String("service.name", "latgate")}
	if o.Version != "" {
		res = append(res, attribute.String("service.version", o.Version))
	}
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader), sdkmetric.WithResource(resource.NewSchemaless(res...)),
		// No exemplars (no spans to link) and no overflow series: the
		// attribute sets are the config's targets × prompts.
		sdkmetric.WithExemplarFilter(exemplar.AlwaysOffFilter), sdkmetric.WithCardinalityLimit(0))
	n, recErr := record(ctx, provider.Meter("github.com/latgate/latgate"), o.Redact, sides)
	var rm metricdata.ResourceMetrics
	collectErr := reader.Collect(ctx, &rm)
	var sendErr error
	if recErr == nil && collectErr == nil && n > 0 {
		sendErr = exp.Export(ctx, &rm)
	}
	return n, errors.Join(recErr, collectErr, sendErr, ignoreShutdown(exp.Shutdown(ctx)), ignoreShutdown(provider.Shutdown(ctx)))
}

// ignoreShutdown drops a shutdown's context error: the export's own error
// says it already.
func ignoreShutdown(err error) error {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// instruments are the histograms one export records into.
type instruments struct {
	duration, firstChunk, perChunk, firstToken, interToken metric.Float64Histogram
	tokens                                                 metric.Int64Histogram
}

func newInstruments(m metric.Meter) (instruments, error) {
	var errs []error
	seconds := func(name, desc string, bounds []float64) metric.Float64Histogram {
		h, err := m.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(desc), metric.WithExplicitBucketBoundaries(bounds...))
		errs = append(errs, err)
		return h
	}
	in := instruments{
		duration:   seconds(MetricDuration, "GenAI operation duration: request sent to the end of the stream (latgate's total)", clientSeconds),
		firstChunk: seconds(MetricFirstChunk, "request sent to the first byte of the response, its headers (latgate's ttfb; not the first token: see latgate.client.time_to_first_token)", clientSeconds),
		perChunk:   seconds(MetricPerOutputChunk, "each gap between consecutive token-bearing chunks (latgate's itl)", clientSeconds),
		firstToken: seconds(MetricFirstToken, "request sent to the first token-bearing chunk: content, reasoning or a tool call (latgate's ttft, the metric it gates)", clientSeconds),
		interToken: seconds(MetricInterToken, "each gap between consecutive token-bearing chunks (latgate's itl, the metric it gates)", tokenSeconds),
	}
	tok, err := m.Int64Histogram(MetricTokenUsage, metric.WithUnit("{token}"), metric.WithDescription("input and output tokens of a request, as its usage reported them"),
		metric.WithExplicitBucketBoundaries(tokenCounts...))
	in.tokens = tok
	if err := errors.Join(append(errs, err)...); err != nil {
		return in, fmt.Errorf("otlp instruments: %w", err)
	}
	return in, nil
}

// record records every sample of sides and returns how many there were.
func record(ctx context.Context, m metric.Meter, redact func(string) string, sides []Side) (int, error) {
	in, err := newInstruments(m)
	if err != nil {
		return 0, err
	}
	if redact == nil {
		redact = func(s string) string { return s }
	}
	n := 0
	for _, s := range sides {
		if s.File == nil {
			continue
		}
		for _, t := range s.File.Targets {
			for _, p := range t.Prompts {
				kv := attributes(s.Name, t, p.ID, redact)
				at := metric.WithAttributeSet(attribute.NewSet(slices.Clone(kv)...))
				// NewSet sorts what it is given in place: each set gets a copy.
				tokens := func(typ string) metric.MeasurementOption {
					return metric.WithAttributeSet(attribute.NewSet(append(slices.Clip(kv), attribute.String("gen_ai.token.type", typ))...))
				}
				input, output := tokens("input"), tokens("output")
				for i := range p.Samples {
					x := &p.Samples[i]
					in.duration.Record(ctx, x.Total/1000, at)
					in.firstChunk.Record(ctx, x.TTFB/1000, at)
					in.firstToken.Record(ctx, x.TTFT/1000, at)
					for _, g := range x.ITL {
						in.perChunk.Record(ctx, g/1000, at)
						in.interToken.Record(ctx, g/1000, at)
					}
					if x.TokenSource == "usage" { // counted chunks are no usage
						if x.PromptTokens > 0 {
							in.tokens.Record(ctx, int64(x.PromptTokens), input)
						}
						in.tokens.Record(ctx, int64(x.OutputTokens), output)
					}
					n++
				}
			}
		}
	}
	return n, nil
}

// attributes are the attributes of a target × prompt's points: the
// conventions' (operation, provider, models, server) and latgate's
// (target, prompt, and region and side when they are set). Every value is
// redacted, and the server is the base URL's host and port only.
func attributes(side string, t results.Target, prompt string, redact func(string) string) []attribute.KeyValue {
	host, port := server(t.BaseURL)
	kv := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("gen_ai.provider.name", Provider(t.Params.API, host)),
	}
	str := func(k, v string) {
		if v = redact(v); v != "" {
			kv = append(kv, attribute.String(k, v))
		}
	}
	str("gen_ai.request.model", t.Model)
	if len(t.ReturnedModels) == 1 { // with several, which request got which is not recorded
		str("gen_ai.response.model", t.ReturnedModels[0])
	}
	if host != "" {
		str("server.address", host)
		kv = append(kv, attribute.Int("server.port", port))
	}
	str("latgate.target", t.Name)
	str("latgate.prompt", prompt)
	str("latgate.region", t.Region)
	str("latgate.side", side)
	return kv
}

// server is the host and port a base URL sends to (the scheme's port when
// it names none); "" for one that is not http(s), such as the simulator's
// sim:SPEC. Nothing else of the URL (user:pass@, path, query) is taken.
func server(baseURL string) (string, int) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return "", 0
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		port = 443
		if u.Scheme == "http" {
			port = 80
		}
	}
	return u.Hostname(), port
}

// Provider is gen_ai.provider.name for a target of api (results.Params.API;
// "" is chat) served by host: the conventions' well-known value of a
// provider's own host; else the API's flavour: openai for chat and
// responses (any OpenAI-compatible server), anthropic, gcp.gen_ai for the
// Gemini API elsewhere than Google's host; and the API's name (sse,
// ndjson) for an app's own stream, which names no provider.
func Provider(api, host string) string {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, h := range []struct{ domain, name string }{
		{"api.openai.com", "openai"},
		{"openai.azure.com", "azure.ai.openai"},
		{"api.anthropic.com", "anthropic"},
		{"generativelanguage.googleapis.com", "gcp.gemini"},
		{"aiplatform.googleapis.com", "gcp.vertex_ai"}, // and REGION-aiplatform.googleapis.com
		{"api.deepseek.com", "deepseek"},
		{"api.groq.com", "groq"},
		{"api.mistral.ai", "mistral_ai"},
		{"api.x.ai", "x_ai"},
		{"api.perplexity.ai", "perplexity"},
		{"api.cohere.com", "cohere"},
		{"api.cohere.ai", "cohere"},
	} {
		if host == h.domain || strings.HasSuffix(host, "."+h.domain) || strings.HasSuffix(host, "-"+h.domain) {
			return h.name
		}
	}
	if strings.HasPrefix(host, "bedrock") && strings.HasSuffix(host, ".amazonaws.com") {
		return "aws.bedrock"
	}
	switch api {
	case "", "chat", "responses":
		return "openai"
	case "anthropic":
		return "anthropic"
	case "gemini":
		return "gcp.gen_ai"
	}
	return api
}
