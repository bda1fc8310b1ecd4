package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/results"
)

var sane = expect{Model: "stories260k", MaxTokens: 48, MinSamples: 2, MaxTTFTms: 2000, MaxITLP50ms: 100}

// saneFile returns a results file that passes checkResults with sane.
func saneFile(t *testing.T) *results.File {
	t.Helper()
	samples := []results.Sample{
		{Seq: 0, TTFT: 6, Total: 9, ITL: []float64{1, 2}, OutputTokens: 48, TokenSource: "usage"},
		{Seq: 1, TTFT: 7, Total: 11, ITL: []float64{1, 3}, OutputTokens: 30, TokenSource: "usage"},
	}
	return &results.File{
		Schema: results.Schema,
		Run:    results.Run{Requests: 2, Concurrency: 1, TimeoutMS: 60000},
		Targets: []results.Target{{
			Name:           "ollama",
			Model:          "stories260k",
			ReturnedModels: []string{"stories260k:latest"},
			Params:         results.Params{MaxTokens: 48, Stream: true},
			Requests:       2,
			Prompts: []results.Prompt{{
				ID:       "once",
				Requests: 2,
				Metrics:  results.MetricsOf(samples),
				Samples:  samples,
			}},
		}},
	}
}

func TestCheckResults(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(f *results.File)
		want   []string
	}{
		{"sane", func(*results.File) {}, nil},
		{"partial", func(f *results.File) { f.Partial, f.PartialReason = true, "interrupted" }, []string{"partial run: interrupted"}},
		{"errors", func(f *results.File) { f.Targets[0].Errors, f.Targets[0].ErrorRate = 1, 0.5 },
			[]string{"ollama: 1 errors (error_rate 0.5), want none"}},
		{"wrong model", func(f *results.File) { f.Targets[0].ReturnedModels = []string{"llama3"} },
			[]string{`ollama: returned model "llama3" does not contain "stories260k"`}},
		{"no returned model", func(f *results.File) { f.Targets[0].ReturnedModels = nil },
			[]string{"ollama: no returned model"}},
		{"max_tokens", func(f *results.File) { f.Targets[0].Params.MaxTokens = 64 },
			[]string{"ollama: max_tokens 64, want 48"}},
		{"chunk-counted tokens", func(f *results.File) { f.Targets[0].Prompts[0].Samples[1].TokenSource = "chunks" },
			[]string{`ollama/once: sample 1: token_source "chunks", want "usage"`}},
		{"one token", func(f *results.File) { f.Targets[0].Prompts[0].Samples[0].OutputTokens = 1 },
			[]string{"ollama/once: sample 0: 1 output tokens, want in (1, 48]"}},
		{"over max_tokens", func(f *results.File) { f.Targets[0].Prompts[0].Samples[0].OutputTokens = 49 },
			[]string{"ollama/once: sample 0: 49 output tokens, want in (1, 48]"}},
		{"slow ttft", func(f *results.File) { f.Targets[0].Prompts[0].Samples[0].TTFT = 2500 },
			[]string{"ollama/once: sample 0: ttft 2500.000 ms, want in (0, 2000)"}},
		{"too few samples", func(f *results.File) {
			p := &f.Targets[0].Prompts[0]
			p.Samples = p.Samples[:1]
			p.Metrics = results.MetricsOf(p.Samples)
		}, []string{
			"ollama/once: 1 samples, want at least 2",
			"ollama/once: ttft summary missing or with fewer than 2 values",
		}},
		{"slow itl", func(f *results.File) { f.Targets[0].Prompts[0].Metrics.ITL.P50 = 150 },
			[]string{"ollama/once: itl p50 150.000 ms, want in [0, 100)"}},
		{"negative itl", func(f *results.File) { f.Targets[0].Prompts[0].Metrics.ITL.P50 = -1 },
			[]string{"ollama/once: itl p50 -1.000 ms, want in [0, 100)"}},
		{"no itl", func(f *results.File) { f.Targets[0].Prompts[0].Metrics.ITL = nil },
			[]string{"ollama/once: no itl summary"}},
		{"no targets", func(f *results.File) { f.Targets = nil }, []string{"no targets"}},
		{"wrong schema", func(f *results.File) { f.Schema = "x" },
			[]string{`schema "x", want "latgate.results/v1"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := saneFile(t)
			tt.mutate(f)
			if diff := cmp.Diff(tt.want, checkResults(f, sane)); diff != "" {
				t.Errorf("checkResults (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunResultsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.json")
	if err := results.Write(path, saneFile(t)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"sane", []string{"results", "-min-samples", "2", path}, 0},
		{"too few samples", []string{"results", "-min-samples", "15", path}, 1},
		{"other model", []string{"results", "-min-samples", "2", "-model", "qwen", path}, 1},
		{"missing file", []string{"results", filepath.Join(t.TempDir(), "none.json")}, 1},
		{"no file", []string{"results"}, 2},
		{"unknown", []string{"frob"}, 2},
		{"nothing", nil, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if got := run(context.Background(), tt.args, &stdout, &stderr); got != tt.want {
				t.Errorf("exit %d, want %d; stderr:\n%s", got, tt.want, stderr.String())
			}
		})
	}
}

func TestProbeAndFreePort(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	var out bytes.Buffer
	if got := run(ctx, []string{"probe", srv.URL + "/v1/models"}, &out, &out); got != 0 {
		t.Errorf("probe of an answering endpoint: exit %d, want 0", got)
	}
	if got := run(ctx, []string{"probe", srv.URL + "/v1/other"}, &out, &out); got != 1 {
		t.Errorf("probe of a 404: exit %d, want 1", got)
	}

	var port bytes.Buffer
	if got := run(ctx, []string{"freeport"}, &port, os.Stderr); got != 0 {
		t.Fatalf("freeport: exit %d", got)
	}
	n, err := strconv.Atoi(string(bytes.TrimSpace(port.Bytes())))
	if err != nil || n <= 0 || n > 65535 {
		t.Fatalf("freeport printed %q, want a port number", port.String())
	}
	if got := run(ctx, []string{"probe", "http://127.0.0.1:" + strconv.Itoa(n) + "/v1/models"}, &out, &out); got != 1 {
		t.Errorf("probe of a free (closed) port: exit %d, want 1", got)
	}
}
