// Command e2echeck is the helper of scripts/e2e-ollama.sh, so that the script
// needs only bash and Go (no python3, no curl): it picks a free loopback port,
// probes an HTTP endpoint once, and asserts that a results file measured
// against a real server is sane.
//
//	e2echeck freeport
//	e2echeck probe URL
//	e2echeck results [-model M] [-max-tokens N] [-min-samples N] FILE
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/latgate/latgate/pkg/results"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

const usage = "usage: e2echeck freeport | probe URL | results [flags] FILE"

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	switch args[0] {
	case "freeport":
		port, err := freePort()
		if err != nil {
			fmt.Fprintf(stderr, "e2echeck: %v\n", err)
			return 1
		}
		fmt.Fprintln(stdout, port)
		return 0
	case "probe":
		if len(args) != 2 {
			fmt.Fprintln(stderr, usage)
			return 2
		}
		if err := probe(ctx, args[1]); err != nil {
			return 1 // silent: the caller polls
		}
		return 0
	case "results":
		return runResults(args[1:], stdout, stderr)
	}
	fmt.Fprintln(stderr, usage)
	return 2
}

// freePort returns a TCP port that was free on 127.0.0.1 a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// probe makes one GET request and succeeds on HTTP 200.
func probe(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("probe %s: %w", url, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("probe %s: %w", url, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("probe %s: %s", url, resp.Status)
	}
	return nil
}

func runResults(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("results", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var e expect
	fs.StringVar(&e.Model, "model", "stories260k", "the returned model must contain this")
	fs.IntVar(&e.MaxTokens, "max-tokens", 48, "the configured max_tokens")
	fs.IntVar(&e.MinSamples, "min-samples", 15, "fewest samples per prompt")
	fs.Float64Var(&e.MaxTTFTms, "max-ttft-ms", 2000, "every sample's TTFT must be below this")
	fs.Float64Var(&e.MaxITLP50ms, "max-itl-p50-ms", 100, "every prompt's ITL p50 must be below this")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: e2echeck results [flags] FILE")
		return 2
	}
	f, err := results.Read(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "e2echeck: %v\n", err)
		return 1
	}
	for _, t := range f.Targets {
		for _, p := range t.Prompts {
			fmt.Fprintf(stdout, "%s/%s: %s\n", t.Name, p.ID, describe(p))
		}
	}
	problems := checkResults(f, e)
	for _, p := range problems {
		fmt.Fprintf(stderr, "e2echeck: %s\n", p)
	}
	if len(problems) > 0 {
		return 1
	}
	fmt.Fprintln(stdout, "results: sane")
	return 0
}

// expect is what a sane run against the real server looks like.
type expect struct {
	Model       string
	MaxTokens   int
	MinSamples  int
	MaxTTFTms   float64
	MaxITLP50ms float64
}

// checkResults returns every way f differs from a sane run; none means sane.
func checkResults(f *results.File, e expect) []string {
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	if f.Schema != results.Schema {
		bad("schema %q, want %q", f.Schema, results.Schema)
	}
	if f.Partial {
		bad("partial run: %s", f.PartialReason)
	}
	if len(f.Targets) == 0 {
		bad("no targets")
	}
	for _, t := range f.Targets {
		if t.Errors != 0 || t.ErrorRate != 0 {
			bad("%s: %d errors (error_rate %g), want none", t.Name, t.Errors, t.ErrorRate)
		}
		if t.Params.MaxTokens != e.MaxTokens {
			bad("%s: max_tokens %d, want %d", t.Name, t.Params.MaxTokens, e.MaxTokens)
		}
		if len(t.ReturnedModels) == 0 {
			bad("%s: no returned model", t.Name)
		}
		for _, m := range t.ReturnedModels {
			if !strings.Contains(m, e.Model) {
				bad("%s: returned model %q does not contain %q", t.Name, m, e.Model)
			}
		}
		if len(t.Prompts) == 0 {
			bad("%s: no prompts", t.Name)
		}
		for _, p := range t.Prompts {
			out = append(out, checkPrompt(t.Name+"/"+p.ID, p, e)...)
		}
	}
	return out
}

func checkPrompt(name string, p results.Prompt, e expect) []string {
	var out []string
	bad := func(format string, args ...any) { out = append(out, name+": "+fmt.Sprintf(format, args...)) }
	if len(p.Samples) < e.MinSamples {
		bad("%d samples, want at least %d", len(p.Samples), e.MinSamples)
	}
	if p.Metrics.TTFT == nil || p.Metrics.TTFT.N < e.MinSamples {
		bad("ttft summary missing or with fewer than %d values", e.MinSamples)
	}
	switch itl := p.Metrics.ITL; {
	case itl == nil:
		bad("no itl summary")
	// Zero is a real gap: chunks that arrive in one socket read share a
	// stamp (seen here: Ollama at ~2,400 tokens/s coalesced most of them).
	case itl.P50 < 0 || itl.P50 >= e.MaxITLP50ms:
		bad("itl p50 %.3f ms, want in [0, %g)", itl.P50, e.MaxITLP50ms)
	}
	for _, s := range p.Samples {
		if s.TokenSource != "usage" {
			bad("sample %d: token_source %q, want \"usage\"", s.Seq, s.TokenSource)
		}
		if s.OutputTokens <= 1 || s.OutputTokens > e.MaxTokens {
			bad("sample %d: %d output tokens, want in (1, %d]", s.Seq, s.OutputTokens, e.MaxTokens)
		}
		if s.TTFT <= 0 || s.TTFT >= e.MaxTTFTms {
			bad("sample %d: ttft %.3f ms, want in (0, %g)", s.Seq, s.TTFT, e.MaxTTFTms)
		}
	}
	return out
}

// describe is a one-line summary of a prompt's figures for the log.
func describe(p results.Prompt) string {
	var b strings.Builder
	fmt.Fprintf(&b, "n=%d", len(p.Samples))
	for _, m := range []struct {
		name string
		s    *results.Summary
	}{{"ttft", p.Metrics.TTFT}, {"itl", p.Metrics.ITL}, {"total", p.Metrics.Total}} {
		if m.s != nil {
			fmt.Fprintf(&b, " %s p50=%.2fms p95=%.2fms", m.name, m.s.P50, m.s.P95)
		}
	}
	lo, hi := 0, 0
	for i, s := range p.Samples {
		if i == 0 || s.OutputTokens < lo {
			lo = s.OutputTokens
		}
		hi = max(hi, s.OutputTokens)
	}
	fmt.Fprintf(&b, " tokens=%d..%d", lo, hi)
	return b.String()
}
