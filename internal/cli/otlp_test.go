package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/latgate/latgate/internal/export"
	"github.com/latgate/latgate/internal/testkit"
	"github.com/latgate/latgate/pkg/baseline"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/sim"
)

// simEndpoint is the simulator (profile spec) on 127.0.0.1 behind
// httptest, so that its base URL is a real host and port.
func simEndpoint(t *testing.T, spec string) *httptest.Server {
	t.Helper()
	p, err := sim.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	s := sim.New(p)
	srv := httptest.NewServer(s)
	t.Cleanup(func() { srv.Close(); s.Close() })
	return srv
}

// otlpConfig measures two prompts at base (with its credentials: a
// user:pass@ and a query key, and the sentinel key in $LATGATE_TEST_KEY).
func otlpConfig(base string) string {
	return fmt.Sprintf(`targets:
  - {name: sim, base_url: %q, api_key_env: LATGATE_TEST_KEY, model: sim, max_tokens: 8}
prompts:
  - {id: greeting, messages: [{role: user, content: "Say hello."}]}
  - {id: summarize, messages: [{role: user, content: "Summarize: latency hides in averages."}]}
run: {requests: 5, bless_requests: 40, warmup: 1, concurrency: 2}
`, base)
}

// series is what a test expects of one target × prompt (× side) in the
// export, from the samples latgate recorded: the points of each histogram
// (requests; gaps for the inter-chunk ones; requests with usage) and the
// sums of the timings, in seconds.
type series struct {
	Attrs                             map[string]string
	Requests, FirstByteN, FirstTokenN uint64
	Gaps, InterTokenN, UsageOutput    uint64
	Total, FirstByte, FirstToken      float64
}

// expected is the series the measured sides (from the files latgate wrote)
// must be exported as.
func expected(sides []export.Side, port string) map[string]series {
	out := map[string]series{}
	for _, s := range sides {
		for _, t := range s.File.Targets {
			for _, p := range t.Prompts {
				a := map[string]string{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": t.Model,
					"server.address": "127.0.0.1", "server.port": port, "latgate.target": t.Name, "latgate.prompt": p.ID}
				if len(t.ReturnedModels) == 1 {
					a["gen_ai.response.model"] = t.ReturnedModels[0]
				}
				if s.Name != "" {
					a["latgate.side"] = s.Name
				}
				x := series{Attrs: a}
				for _, smp := range p.Samples {
					x.Requests++
					x.Gaps += uint64(len(smp.ITL))
					x.Total += smp.Total / 1000
					x.FirstByte += smp.TTFB / 1000
					x.FirstToken += smp.TTFT / 1000
					if smp.TokenSource == "usage" {
						x.UsageOutput++
					}
				}
				x.FirstByteN, x.FirstTokenN, x.InterTokenN = x.Requests, x.Requests, x.Gaps
				out[s.Name+"/"+t.Name+"/"+p.ID] = x
			}
		}
	}
	return out
}

// exported is the series the collector received, and each metric's unit.
func exported(t *testing.T, pts []testkit.Point) (map[string]series, map[string]string) {
	t.Helper()
	out, units := map[string]series{}, map[string]string{}
	for _, p := range pts {
		units[p.Metric] = p.Unit
		if p.Resource["service.name"] != "latgate" || p.Resource["service.version"] == "" {
			t.Errorf("%s: resource %v, want service.name latgate and a service.version", p.Metric, p.Resource)
		}
		a := map[string]string{}
		for k, v := range p.Attrs {
			if k != "gen_ai.token.type" {
				a[k] = v
			}
		}
		key := a["latgate.side"] + "/" + a["latgate.target"] + "/" + a["latgate.prompt"]
		x := out[key]
		x.Attrs = a
		switch p.Metric {
		case export.MetricDuration:
			x.Requests, x.Total = p.Count, p.Sum
		case export.MetricFirstChunk:
			x.FirstByteN, x.FirstByte = p.Count, p.Sum
		case export.MetricFirstToken:
			x.FirstTokenN, x.FirstToken = p.Count, p.Sum
		case export.MetricPerOutputChunk:
			x.Gaps = p.Count
		case export.MetricInterToken:
			x.InterTokenN = p.Count
		case export.MetricTokenUsage:
			if p.Attrs["gen_ai.token.type"] == "output" {
				x.UsageOutput = p.Count
			}
		default:
			t.Errorf("unexpected metric %s", p.Metric)
		}
		out[key] = x
	}
	return out, units
}

// TestOTLPExport (#32): check, measure, bless and ab export every measured
// request over OTLP/HTTP to a collector on loopback, named by the standard
// variable or --otlp: the GenAI conventions' histograms and latgate's own,
// in seconds and tokens, one point per request (per gap for the
// inter-chunk ones), latgate's first token (the sum of its ttft) apart
// from the convention's first chunk (of its ttfb), the attributes with
// the base URL's host and port only, and the key nowhere: not in the
// export, nor on stdout or stderr, also from an endpoint that echoes it
// back in its model name.
func TestOTLPExport(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures the simulator")
	}
	simSrv := simEndpoint(t, "fast?tokens=6")
	echo := echoServer(t, false)
	// The base URL's credentials, and a query key, as a config may hold them.
	withSecrets := func(srv *httptest.Server) string { return withCreds(srv) + "?api-key=" + sentinelKey }
	env := map[string]string{"LATGATE_TEST_KEY": sentinelKey}
	for _, tt := range []struct {
		name  string
		srv   *httptest.Server
		byEnv bool // the collector named by $OTEL_EXPORTER_OTLP_ENDPOINT, not --otlp
		args  func(dir, cfg string) []string
		sides func(t *testing.T, dir string) []export.Side
		codes []int
		usage bool // the endpoint reports usage
		// echoed: the endpoint echoes the key in its model name, which
		// latgate records redacted.
		echoed bool
		// margin is how far the sums may be from the file's: a baseline
		// keeps each timing to the microsecond, the export has it whole.
		margin float64
	}{
		{name: "check, by the environment", srv: simSrv, byEnv: true, usage: true, codes: []int{ExitPass},
			args: func(dir, cfg string) []string {
				return []string{"check", "--config", cfg, "--out", filepath.Join(dir, "r.json")}
			},
			sides: resultsSide},
		{name: "measure --otlp", srv: simSrv, usage: true, codes: []int{ExitPass},
			args: func(dir, cfg string) []string {
				return []string{"measure", "--config", cfg, "--out", filepath.Join(dir, "r.json")}
			},
			sides: resultsSide},
		{name: "bless --otlp", srv: simSrv, usage: true, codes: []int{ExitPass}, margin: 40 * 0.5e-6,
			args: func(dir, cfg string) []string {
				return []string{"bless", "--config", cfg, "--force", "--baseline", filepath.Join(dir, "b.json")}
			},
			sides: func(t *testing.T, dir string) []export.Side {
				b, err := baseline.Load(filepath.Join(dir, "b.json"))
				if err != nil {
					t.Fatal(err)
				}
				return []export.Side{{File: &results.File{Targets: b.Targets}}}
			}},
		{name: "ab --otlp", srv: simSrv, usage: true, codes: []int{ExitPass, ExitRegression},
			args: func(dir, cfg string) []string {
				cand := testkit.WriteFile(t, dir, "cand.yaml", testkit.ReadFile(t, cfg))
				return []string{"ab", "--out", filepath.Join(dir, "ab.json"), cfg, cand}
			},
			sides: func(t *testing.T, dir string) []export.Side {
				var r compare.RecordedAB
				if err := json.Unmarshal([]byte(testkit.ReadFile(t, filepath.Join(dir, "ab.json"))), &r); err != nil {
					t.Fatal(err)
				}
				return []export.Side{{Name: "base", File: r.Base}, {Name: "candidate", File: r.Candidate}}
			}},
		{name: "measure, an endpoint echoing the key", srv: echo, echoed: true, codes: []int{ExitPass},
			args: func(dir, cfg string) []string {
				return []string{"measure", "--config", cfg, "--out", filepath.Join(dir, "r.json")}
			},
			sides: resultsSide},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			col := testkit.NewCollector(t, http.StatusOK)
			dir := t.TempDir()
			cfg := writeConfig(t, t.TempDir(), otlpConfig(withSecrets(tt.srv)))
			args := tt.args(dir, cfg)
			args = append([]string{args[0], "--quiet"}, args[1:]...) // flags before ab's configs
			e := map[string]string{}
			for k, v := range env {
				e[k] = v
			}
			if tt.byEnv {
				e[export.EnvEndpoint] = col.URL
			} else {
				args = append([]string{args[0], "--otlp", col.URL}, args[1:]...)
			}
			code, stdout, stderr := run(t, e, args...)
			if !containsInt(tt.codes, code) {
				t.Fatalf("exit %d, want one of %v\nstdout:\n%s\nstderr:\n%s", code, tt.codes, stdout, stderr)
			}
			posts := col.Posts()
			if len(posts) != 1 {
				t.Fatalf("%d exports, want 1\nstderr:\n%s", len(posts), stderr)
			}
			leaks := outputs{"stdout": stdout, "stderr": stderr, "the export": string(posts[0].Body)}
			leaks.assertClean(t)
			u, _ := url.Parse(tt.srv.URL)
			want := expected(tt.sides(t, dir), u.Port())
			if !tt.usage {
				for k, x := range want {
					if x.UsageOutput != 0 {
						t.Fatalf("%s: the endpoint reported usage", k)
					}
				}
			}
			var n uint64
			for _, x := range want {
				n += x.Requests
			}
			if n == 0 {
				t.Fatal("nothing was measured")
			}
			if !strings.Contains(stderr, fmt.Sprintf("OTLP: %d requests exported to %s/v1/metrics", n, col.URL)) {
				t.Errorf("stderr does not say the export:\n%s", stderr)
			}
			got, units := exported(t, testkit.Points(posts))
			if diff := cmp.Diff(want, got, cmpopts.EquateApprox(1e-9, max(tt.margin, 1e-9))); diff != "" {
				t.Errorf("exported series (-want +got):\n%s", diff)
			}
			for k, x := range got {
				if m := x.Attrs["gen_ai.response.model"]; tt.echoed && !strings.Contains(m, "Bearer [REDACTED]") {
					t.Errorf("%s: gen_ai.response.model %q is not the endpoint's echo of the key, redacted", k, m)
				}
			}
			wantUnits := map[string]string{export.MetricDuration: "s", export.MetricFirstChunk: "s", export.MetricPerOutputChunk: "s",
				export.MetricFirstToken: "s", export.MetricInterToken: "s"}
			if tt.usage {
				wantUnits[export.MetricTokenUsage] = "{token}"
			}
			if diff := cmp.Diff(wantUnits, units); diff != "" {
				t.Errorf("metrics and units (-want +got):\n%s", diff)
			}
		})
	}
}

// resultsSide is the results file r.json in dir, as the one side of a run.
func resultsSide(t *testing.T, dir string) []export.Side {
	t.Helper()
	f, err := results.Read(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	return []export.Side{{File: f}}
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// TestOTLPCollectorDown (#32): a collector that answers 503, or is gone
// (connection refused), leaves check's verdict and exit code as they are
// (1 above the limit, 0 below it) and is one warning on stderr naming its
// URL, as is a variable that is no URL (without its password); a --otlp
// that is no URL is refused before anything is measured.
func TestOTLPCollectorDown(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures the simulator")
	}
	closed := testkit.NewCollector(t, http.StatusOK)
	closed.Close()
	failed := func(u string) string {
		return "latgate: warning: OTLP export to " + u + "/v1/metrics ($OTEL_EXPORTER_OTLP_ENDPOINT) failed, so the collector may lack this run's 20 requests"
	}
	unavailable := testkit.NewCollector(t, http.StatusServiceUnavailable).URL
	for _, tt := range []struct {
		name, collector, max string
		code                 int
		warning              string // the line's start
	}{
		{"503, a regression", unavailable, "10ms", ExitRegression, failed(unavailable)},
		{"503, a pass", unavailable, "500ms", ExitPass, failed(unavailable)},
		{"refused, a regression", closed.URL, "10ms", ExitRegression, failed(closed.URL)},
		{"refused, a pass", closed.URL, "500ms", ExitPass, failed(closed.URL)},
		{"a variable that is no URL", "grpc://u:" + sentinelPass + "@c:4317", "10ms", ExitRegression,
			`latgate: warning: OTLP export skipped (the verdict and exit code do not depend on it): $OTEL_EXPORTER_OTLP_ENDPOINT: "grpc://c:4317" is not an http(s) URL`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := writeConfig(t, t.TempDir(), limitsConfig(tt.max))
			code, stdout, stderr := run(t, map[string]string{export.EnvEndpoint: tt.collector}, "check", "--config", cfg, "--quiet")
			if code != tt.code {
				t.Fatalf("check exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			outputs{"stdout": stdout, "stderr": stderr}.assertClean(t)
			want := tt.warning
			var lines []string
			for _, l := range strings.Split(stderr, "\n") {
				if strings.Contains(l, "OTLP") {
					lines = append(lines, l)
				}
			}
			if n := len(lines); n != 1 || !strings.HasPrefix(lines[0], want) {
				t.Errorf("stderr has %d lines about OTLP, want one warning %q:\n%s", n, want, stderr)
			}
		})
	}
	t.Run("not a URL", func(t *testing.T) {
		t.Parallel()
		cfg := writeConfig(t, t.TempDir(), limitsConfig("500ms"))
		code, stdout, stderr := run(t, nil, "check", "--config", cfg, "--quiet", "--otlp", "127.0.0.1:4318")
		if code != ExitUsage || !strings.Contains(stderr, "latgate: --otlp: not an http(s) URL of an OTLP/HTTP collector") || stdout != "" {
			t.Errorf("exit %d, want %d before measuring, naming --otlp\nstdout:\n%s\nstderr:\n%s", code, ExitUsage, stdout, stderr)
		}
	})
}
