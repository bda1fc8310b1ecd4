package export

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/latgate/latgate/internal/testkit"
	"github.com/latgate/latgate/pkg/results"
)

const sentinel = "SENTINEL-0123456789"

// otlpFile is a run of two targets: an OpenAI one whose base URL carries a
// user:pass@ and a query key (a results file never does: the export must
// take the host only anyway), with usage on one prompt and counted chunks
// on the other; and an Anthropic one on the simulator, from a region.
func otlpFile() *results.File {
	usage := func(ttfb, ttft, total float64, itl ...float64) results.Sample {
		return results.Sample{TTFB: ttfb, TTFT: ttft, Total: total, ITL: itl, TokenSource: "usage", PromptTokens: 12, OutputTokens: len(itl) + 1}
	}
	return &results.File{Version: "v9.9.9", Targets: []results.Target{
		{Name: "primary", BaseURL: "https://latgateuser:" + sentinel + "@api.openai.com/v1?api-key=" + sentinel, Model: "gpt-x",
			ReturnedModels: []string{"gpt-x-2026 " + sentinel},
			Prompts: []results.Prompt{
				{ID: "greeting", Samples: []results.Sample{usage(50, 120, 400, 10, 20, 30), usage(60, 130, 410, 10, 20, 30)}},
				{ID: "summary", Samples: []results.Sample{{TTFB: 70, TTFT: 150, Total: 300, ITL: []float64{5}, TokenSource: "chunks", OutputTokens: 2}}},
			}},
		{Name: "claude", Region: "eu", BaseURL: "sim:fast", Model: "claude-x", ReturnedModels: []string{"a", "b"}, Params: results.Params{API: "anthropic"},
			Prompts: []results.Prompt{{ID: "greeting", Samples: []results.Sample{{TTFB: 1, TTFT: 2, Total: 3, TokenSource: "usage", OutputTokens: 1}}}}},
	}}
}

// TestOTLP (#32): an export over the real wire to a collector on loopback
// holds every named histogram with its unit, one point per request (per
// gap for the inter-chunk ones), the conventions' and latgate's
// attributes, the first token apart from the first chunk, token usage only
// where usage was reported, service.name=latgate, and no secret.
func TestOTLP(t *testing.T) {
	t.Parallel()
	col := testkit.NewCollector(t, http.StatusOK)
	redact := func(s string) string { return strings.ReplaceAll(s, sentinel, "[REDACTED]") }
	n, err := OTLP(context.Background(), OTLPOptions{Endpoint: col.URL + "/v1/metrics", Version: "v9.9.9", Redact: redact}, []Side{{File: otlpFile()}})
	if err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Errorf("exported %d requests, want 4", n)
	}
	posts := col.Posts()
	if len(posts) != 1 {
		t.Fatalf("%d posts, want one export", len(posts))
	}
	if strings.Contains(string(posts[0].Body), sentinel) {
		t.Errorf("the export carries the secret %q", sentinel)
	}
	openai := map[string]string{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-x",
		"gen_ai.response.model": "gpt-x-2026 [REDACTED]", "server.address": "api.openai.com", "server.port": "443", "latgate.target": "primary"}
	with := func(base map[string]string, kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	greeting, summary := with(openai, "latgate.prompt", "greeting"), with(openai, "latgate.prompt", "summary")
	// Several returned models: which request got which is not recorded,
	// so there is no gen_ai.response.model; the simulator has no host.
	claude := map[string]string{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "anthropic", "gen_ai.request.model": "claude-x",
		"latgate.target": "claude", "latgate.prompt": "greeting", "latgate.region": "eu"}
	type pt struct {
		Metric, Unit string
		Attrs        map[string]string
		Count        uint64
		Sum          float64
	}
	want := []pt{
		{MetricDuration, "s", greeting, 2, 0.81}, {MetricDuration, "s", summary, 1, 0.3}, {MetricDuration, "s", claude, 1, 0.003},
		{MetricFirstChunk, "s", greeting, 2, 0.11}, {MetricFirstChunk, "s", summary, 1, 0.07}, {MetricFirstChunk, "s", claude, 1, 0.001},
		{MetricFirstToken, "s", greeting, 2, 0.25}, {MetricFirstToken, "s", summary, 1, 0.15}, {MetricFirstToken, "s", claude, 1, 0.002},
		{MetricPerOutputChunk, "s", greeting, 6, 0.12}, {MetricPerOutputChunk, "s", summary, 1, 0.005},
		{MetricInterToken, "s", greeting, 6, 0.12}, {MetricInterToken, "s", summary, 1, 0.005},
		{MetricTokenUsage, "{token}", with(greeting, "gen_ai.token.type", "input"), 2, 24},
		{MetricTokenUsage, "{token}", with(greeting, "gen_ai.token.type", "output"), 2, 8},
		{MetricTokenUsage, "{token}", with(claude, "gen_ai.token.type", "output"), 1, 1},
	}
	var got []pt
	for _, p := range testkit.Points(posts) {
		if diff := cmp.Diff(map[string]string{"service.name": "latgate", "service.version": "v9.9.9"}, p.Resource); diff != "" {
			t.Errorf("%s: resource (-want +got):\n%s", p.Metric, diff)
		}
		if !p.Histogram {
			t.Errorf("%s is no histogram", p.Metric)
		}
		got = append(got, pt{p.Metric, p.Unit, p.Attrs, p.Count, p.Sum})
	}
	key := func(p pt) string {
		return p.Metric + " " + p.Attrs["latgate.target"] + " " + p.Attrs["latgate.prompt"] + " " + p.Attrs["gen_ai.token.type"]
	}
	sortPts := cmpopts.SortSlices(func(a, b pt) bool { return key(a) < key(b) })
	if diff := cmp.Diff(want, got, sortPts, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("points (-want +got):\n%s", diff)
	}
}

// TestOTLPSides: ab's two sides are two series, latgate.side apart.
func TestOTLPSides(t *testing.T) {
	t.Parallel()
	col := testkit.NewCollector(t, http.StatusOK)
	f := &results.File{Targets: []results.Target{{Name: "sim", BaseURL: "http://127.0.0.1:18081/v1", Model: "m",
		Prompts: []results.Prompt{{ID: "p", Samples: []results.Sample{{TTFB: 1, TTFT: 2, Total: 3}}}}}}}
	if _, err := OTLP(context.Background(), OTLPOptions{Endpoint: col.URL + "/v1/metrics"}, []Side{{Name: "base", File: f}, {Name: "candidate", File: f}}); err != nil {
		t.Fatal(err)
	}
	var sides []string
	for _, p := range testkit.Points(col.Posts()) {
		if p.Metric == MetricDuration {
			sides = append(sides, p.Attrs["latgate.side"]+" "+p.Attrs["server.address"]+":"+p.Attrs["server.port"])
		}
	}
	slices.Sort(sides)
	if diff := cmp.Diff([]string{"base 127.0.0.1:18081", "candidate 127.0.0.1:18081"}, sides); diff != "" {
		t.Errorf("duration series (-want +got):\n%s", diff)
	}
}

// TestOTLPCollectorDown: a collector that answers 503, refuses the
// connection, or hangs past the context's deadline is an error of the
// export (the application warns), returned within the deadline.
func TestOTLPCollectorDown(t *testing.T) {
	t.Parallel()
	stop := make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // then the server sees the client go
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	t.Cleanup(hung.Close)
	t.Cleanup(func() { close(stop) }) // first: the handler returns, Close does not wait
	closed := testkit.NewCollector(t, http.StatusOK)
	closed.Close()
	for _, tt := range []struct {
		name, url string
		timeout   time.Duration
	}{
		{"503", testkit.NewCollector(t, http.StatusServiceUnavailable).URL, OTLPTimeout},
		{"500", testkit.NewCollector(t, http.StatusInternalServerError).URL, OTLPTimeout},
		{"connection refused", closed.URL, OTLPTimeout},
		{"hung", hung.URL, 300 * time.Millisecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), tt.timeout)
			defer cancel()
			n, err := OTLP(ctx, OTLPOptions{Endpoint: tt.url + "/v1/metrics"}, []Side{{File: otlpFile()}})
			if err == nil {
				t.Fatalf("no error from an export to a collector that is down (%s)", tt.name)
			}
			if n != 4 {
				t.Errorf("%d requests recorded, want 4", n)
			}
		})
	}
}

// TestOTLPHeadersFromTheEnvironment: the SDK's exporter sends
// $OTEL_EXPORTER_OTLP_HEADERS itself, and $OTEL_EXPORTER_OTLP_METRICS_HEADERS
// in their stead when both are set (not parallel: it sets the process
// environment, which the SDK reads).
func TestOTLPHeadersFromTheEnvironment(t *testing.T) {
	for _, tt := range []struct {
		name    string
		env     map[string]string
		headers map[string]string
	}{
		{"generic", map[string]string{EnvHeaders: "authorization=Bearer%20tok-1,x-tenant=ci"}, map[string]string{"Authorization": "Bearer tok-1", "X-Tenant": "ci"}},
		{"metrics first", map[string]string{EnvHeaders: "x-tenant=generic", EnvMetricsHeaders: "x-tenant=metrics"}, map[string]string{"X-Tenant": "metrics"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			col := testkit.NewCollector(t, http.StatusOK)
			if _, err := OTLP(context.Background(), OTLPOptions{Endpoint: col.URL + "/v1/metrics"}, []Side{{File: otlpFile()}}); err != nil {
				t.Fatal(err)
			}
			posts := col.Posts()
			if len(posts) != 1 {
				t.Fatalf("%d posts, want 1", len(posts))
			}
			got := map[string]string{}
			for k := range tt.headers {
				got[k] = posts[0].Header.Get(k)
			}
			if diff := cmp.Diff(tt.headers, got); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
		})
	}
}

// TestResolveOTLP: the flag, else the metrics variable as it is, else the
// generic one with /v1/metrics; OTEL_SDK_DISABLED and
// OTEL_METRICS_EXPORTER=none turn the variables off, not the flag; a URL
// that is no http(s) URL is an error naming where it came from, without
// its credentials; the URL never keeps a user:pass@ or a query.
func TestResolveOTLP(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, flag string
		env        map[string]string
		want       OTLPEndpoint
		err        string
	}{
		{name: "nothing"},
		{name: "flag, a base URL", flag: "http://127.0.0.1:4318", want: OTLPEndpoint{"http://127.0.0.1:4318/v1/metrics", "--otlp"}},
		{name: "flag with a path", flag: "https://otel.example.com/otlp/", want: OTLPEndpoint{"https://otel.example.com/otlp/v1/metrics", "--otlp"}},
		{name: "flag, the metrics URL", flag: "http://c:4318/v1/metrics", want: OTLPEndpoint{"http://c:4318/v1/metrics", "--otlp"}},
		{name: "flag over the variables", flag: "http://flag:4318", env: map[string]string{EnvEndpoint: "http://env:4318", envSDKDisabled: "true"},
			want: OTLPEndpoint{"http://flag:4318/v1/metrics", "--otlp"}},
		{name: "generic variable", env: map[string]string{EnvEndpoint: "http://env:4318"}, want: OTLPEndpoint{"http://env:4318/v1/metrics", "$" + EnvEndpoint}},
		{name: "metrics variable as it is", env: map[string]string{EnvEndpoint: "http://env:4318", EnvMetricsEndpoint: "http://m:9000/ingest"},
			want: OTLPEndpoint{"http://m:9000/ingest", "$" + EnvMetricsEndpoint}},
		{name: "metrics variable without a path", env: map[string]string{EnvMetricsEndpoint: "http://m:9000"}, want: OTLPEndpoint{"http://m:9000/", "$" + EnvMetricsEndpoint}},
		{name: "sdk disabled", env: map[string]string{EnvEndpoint: "http://env:4318", envSDKDisabled: "TRUE"}},
		{name: "metrics exporter none", env: map[string]string{EnvEndpoint: "http://env:4318", envMetricsExporter: "none"}},
		{name: "credentials dropped", flag: "https://u:" + sentinel + "@otel.example.com?key=" + sentinel, want: OTLPEndpoint{"https://otel.example.com/v1/metrics", "--otlp"}},
		{name: "bad flag", flag: "127.0.0.1:4318", err: `--otlp: not an http(s) URL of an OTLP/HTTP collector: give its scheme and host`},
		{name: "no host", flag: "http:///v1/metrics", err: `--otlp: not an http(s) URL`},
		{name: "bad variable", env: map[string]string{EnvEndpoint: "grpc://u:" + sentinel + "@c:4317"}, err: `$OTEL_EXPORTER_OTLP_ENDPOINT: "grpc://c:4317" is not an http(s) URL`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ResolveOTLP(tt.flag, "--otlp", func(k string) string { return tt.env[k] })
			switch {
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("error %v, want one saying %q", err, tt.err)
			case tt.err == "" && err != nil:
				t.Fatal(err)
			case err != nil && strings.Contains(err.Error(), sentinel):
				t.Errorf("the error carries the secret: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("endpoint (-want +got):\n%s", diff)
			}
		})
	}
}

// TestProvider: the conventions' well-known provider of a provider's own
// host, else the API's flavour.
func TestProvider(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ api, host, want string }{
		{"", "api.openai.com", "openai"},
		{"", "127.0.0.1", "openai"},
		{"responses", "", "openai"},
		{"", "my-resource.openai.azure.com", "azure.ai.openai"},
		{"anthropic", "api.anthropic.com", "anthropic"},
		{"anthropic", "", "anthropic"},
		{"gemini", "generativelanguage.googleapis.com", "gcp.gemini"},
		{"", "generativelanguage.googleapis.com", "gcp.gemini"},
		{"gemini", "us-central1-aiplatform.googleapis.com", "gcp.vertex_ai"},
		{"gemini", "127.0.0.1", "gcp.gen_ai"},
		{"", "api.deepseek.com", "deepseek"},
		{"", "api.groq.com", "groq"},
		{"", "API.MISTRAL.AI.", "mistral_ai"},
		{"", "bedrock-runtime.us-east-1.amazonaws.com", "aws.bedrock"},
		{"sse", "127.0.0.1", "sse"},
		{"ndjson", "localhost", "ndjson"},
	} {
		if got := Provider(tt.api, tt.host); got != tt.want {
			t.Errorf("Provider(%q, %q) = %q, want %q", tt.api, tt.host, got, tt.want)
		}
	}
}

// TestOTLPRedirects: a collector's redirect is followed within its origin
// only. To another origin (another port of the same host keeps even
// Authorization in net/http's own policy) the export fails naming where
// it pointed, and nothing reaches the other origin: neither the headers of
// OTEL_EXPORTER_OTLP_HEADERS nor the metrics. Not parallel: it sets the
// process environment, which the SDK reads.
func TestOTLPRedirects(t *testing.T) {
	t.Setenv(EnvHeaders, "authorization=Bearer%20"+sentinel+",x-honeycomb-team="+sentinel)
	other := testkit.NewCollector(t, http.StatusOK)
	redirect := func(to string) *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			if r.URL.Path == "/moved/v1/metrics" {
				http.Redirect(w, r, to, http.StatusTemporaryRedirect)
				return
			}
			http.Error(w, "not here", http.StatusNotFound)
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	for _, tt := range []struct {
		name, to string
		status   int
	}{
		{"307 to another port", other.URL + "/v1/metrics", http.StatusTemporaryRedirect},
		{"308 to another host name", strings.Replace(other.URL, "127.0.0.1", "localhost", 1) + "/v1/metrics", http.StatusPermanentRedirect},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := redirect(tt.to)
			_, err := OTLP(context.Background(), OTLPOptions{Endpoint: srv.URL + "/moved/v1/metrics"}, []Side{{File: otlpFile()}})
			if err == nil || !strings.Contains(err.Error(), "redirected to another origin") {
				t.Errorf("export through a redirect to another origin: %v, want the redirect refused", err)
			}
			if err != nil && strings.Contains(err.Error(), sentinel) {
				t.Errorf("the error holds the header's secret: %v", err)
			}
		})
	}
	if n := len(other.Posts()); n != 0 {
		t.Errorf("%d exports reached the other origin", n)
	}

	// Within the collector's origin a redirect is followed.
	col := testkit.NewCollector(t, http.StatusOK)
	mux := http.NewServeMux()
	same := httptest.NewServer(mux)
	t.Cleanup(same.Close)
	proxy := func(w http.ResponseWriter, r *http.Request) {
		// The collector double checks its path: hand the request on.
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, col.URL+"/v1/metrics", r.Body)
		req.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}
	mux.HandleFunc("/v1/metrics", proxy)
	mux.HandleFunc("/old/v1/metrics", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		http.Redirect(w, r, "/v1/metrics", http.StatusTemporaryRedirect)
	})
	if _, err := OTLP(context.Background(), OTLPOptions{Endpoint: same.URL + "/old/v1/metrics"}, []Side{{File: otlpFile()}}); err != nil {
		t.Errorf("a redirect within the collector's origin: %v", err)
	}
	if posts := col.Posts(); len(posts) != 1 || posts[0].Header.Get("Authorization") != "Bearer "+sentinel {
		t.Errorf("%d exports through the same-origin redirect, want 1 with its Authorization", len(posts))
	}
}

// TestOTLPCertificate: the exporter's own client reads the SDK's TLS
// variables, so a collector behind a private CA is reached with
// OTEL_EXPORTER_OTLP_CERTIFICATE (the metrics one in its stead), refused
// without it, and a variable naming a file that holds no certificate is an
// error naming the variable.
func TestOTLPCertificate(t *testing.T) {
	t.Parallel()
	col := testkit.NewTLSCollector(t, http.StatusOK)
	ca := col.CAFile(t)
	junk := filepath.Join(t.TempDir(), "junk.pem")
	if err := os.WriteFile(junk, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		env  map[string]string
		want string // "" succeeds, else in the error
	}{
		{"the CA", map[string]string{envCertificate: ca}, ""},
		{"the metrics CA in the generic one's stead", map[string]string{envCertificate: junk, envMetricsCertificate: ca}, ""},
		{"no CA", nil, "certificate"},
		{"a file with no certificate", map[string]string{envCertificate: junk}, "$" + envCertificate + ": " + junk + " holds no PEM certificate"},
		{"a missing file", map[string]string{envCertificate: junk + ".gone"}, "$" + envCertificate + ": "},
		{"a client certificate without its key", map[string]string{envCertificate: ca, envClientCert: ca}, "go together"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			getenv := func(k string) string { return tt.env[k] }
			n, err := OTLP(context.Background(), OTLPOptions{Endpoint: col.URL + "/v1/metrics", Getenv: getenv}, []Side{{File: otlpFile()}})
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("export: %v", err)
			case tt.want == "" && n != 4:
				t.Errorf("exported %d requests, want 4", n)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("export: %v, want an error with %q", err, tt.want)
			}
		})
	}
}
