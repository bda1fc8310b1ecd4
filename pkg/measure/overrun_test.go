//go:build unix

package measure

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/latgate/latgate/pkg/results"
)

// runawayTokens is what the runaway endpoint streams per request, whatever
// max_tokens asks for.
const runawayTokens = 200_000

// runawayServer streams runawayTokens content chunks per request, ignoring
// max_tokens, then a finish and [DONE]; it counts the chunks it wrote.
func runawayServer(sent *atomic.Int64) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		frame := []byte(`data: {"id":"c","choices":[{"index":0,"delta":{"content":"runaway "},"finish_reason":null}]}` + "\n\n")
		for i := range runawayTokens {
			if _, err := w.Write(frame); err != nil {
				return // the client stopped the stream
			}
			sent.Add(1)
			if i%16 == 0 {
				w.(http.Flusher).Flush()
			}
		}
		fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
}

// runawayChildEnv makes the test binary run the measurement of
// TestRunawayStream in a process of its own, so that its peak memory is the
// measurement's alone.
const runawayChildEnv = "LATGATE_RUNAWAY_URL"

// TestRunawayStream: an endpoint that ignores max_tokens (64 asked, 200,000
// streamed per request, 6 requests) is stopped: every request ends as an
// overrun failure saying so, the target is given up, and the measuring
// process's peak memory and the results file stay small (before the bound:
// 195 MB of RSS and a 43 MB file). The measurement runs in a child process
// (this test binary, TestRunawayChild) so that its peak RSS is its own.
func TestRunawayStream(t *testing.T) {
	var sent atomic.Int64
	srv := runawayServer(&sent)
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "results.json")
	cmd := exec.Command(os.Args[0], "-test.run=^TestRunawayChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), runawayChildEnv+"="+srv.URL, "LATGATE_RUNAWAY_OUT="+out)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, b)
	}
	figs := map[string]int64{}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "runaway-figures "); ok {
			for _, kv := range strings.Fields(rest) {
				k, v, _ := strings.Cut(kv, "=")
				figs[k], _ = strconv.ParseInt(v, 10, 64)
			}
		}
	}
	if len(figs) == 0 {
		t.Fatalf("the child printed no figures:\n%s", b)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	tg := f.Targets[0]
	t.Logf("endpoint wrote %d chunks in all (%d requests × up to %d); peak RSS %.1f MB, Go runtime memory %.1f MB, results file %.1f KB; %s",
		sent.Load(), tg.Requests, runawayTokens, float64(figs["maxrss_kb"])/1024, float64(figs["sys"])/(1<<20), float64(figs["file"])/1024, f.PartialReason)

	if !f.Partial || !f.GaveUp {
		t.Errorf("results partial %v, gave up %v; want a run given up", f.Partial, f.GaveUp)
	}
	if tg.Requests == 0 || tg.ByClass[results.ErrOverrun] != tg.Requests {
		t.Errorf("%d requests, by class %v; want every one an overrun", tg.Requests, tg.ByClass)
	}
	for _, fl := range tg.Prompts[0].Failures {
		if !strings.Contains(fl.Message, "far past max_tokens 64") {
			t.Errorf("failure message %q does not say the stream ran past max_tokens", fl.Message)
		}
	}
	const limitMB = 150
	if mb := float64(figs["sys"]) / (1 << 20); mb > limitMB/3 {
		t.Errorf("the measuring process's Go runtime took %.1f MB from the OS; want far below %d MB", mb, limitMB)
	}
	// The race detector's shadow memory multiplies the RSS: there the Go
	// runtime's figure above is the bound, the RSS only printed.
	if mb := float64(figs["maxrss_kb"]) / 1024; !raceEnabled && mb > limitMB/2 {
		t.Errorf("peak RSS %.1f MB; want far below %d MB", mb, limitMB)
	}
	if figs["file"] > 10<<20/10 {
		t.Errorf("results file %d bytes; want far below 10 MB", figs["file"])
	}
	if n := sent.Load(); n >= int64(tg.Requests)*runawayTokens {
		t.Errorf("the endpoint wrote all %d chunks: no stream was stopped", n)
	}
}

// TestRunawayChild is not a test: it is the child process of
// TestRunawayStream, measuring the runaway endpoint and printing its figures.
func TestRunawayChild(t *testing.T) {
	url := os.Getenv(runawayChildEnv)
	if url == "" {
		t.Skip("helper process for TestRunawayStream")
	}
	ep := endpoint(url)
	ep.MaxTokens = 64
	ep.MaxErrorRate = 1 // only the consecutive-failure rule gives up
	opts := runOpts(ep, 6)
	opts.Run.Timeout = 2 * time.Minute // the bound must stop the streams, not the timeout
	f, err := Run(context.Background(), opts)
	var gu *GiveUpError
	if err != nil && !errors.As(err, &gu) {
		t.Fatalf("Run: %v", err)
	}
	out := os.Getenv("LATGATE_RUNAWAY_OUT")
	if err := results.Write(out, f); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("runaway-figures maxrss_kb=%d sys=%d file=%d\n", peakRSS(t), ms.Sys, st.Size())
}

// peakRSS returns this process's peak resident set size in KB: VmHWM on
// Linux. getrusage's ru_maxrss is no use in a child: Linux carries the
// parent's high-water mark across the fork and exec.
func peakRSS(t *testing.T) int64 {
	t.Helper()
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
				if err == nil {
					return kb
				}
			}
		}
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss) / 1024 // bytes there
	}
	return int64(ru.Maxrss)
}

// TestOverrunByBytes: a stream of events that carry no token (empty deltas)
// is stopped at byteLimit, not left to run until the timeout.
func TestOverrunByBytes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		frame := []byte(`data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n")
		for {
			if _, err := w.Write(frame); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	ep := endpoint(srv.URL)
	ep.MaxTokens = 1
	opts := runOpts(ep, 1)
	opts.Run.Timeout = time.Minute
	f, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	fl := f.Targets[0].Prompts[0].Failures
	if len(fl) != 1 || fl[0].Class != results.ErrOverrun || !strings.Contains(fl[0].Message, "bytes and 0 token chunks") {
		t.Fatalf("failures = %+v, want one overrun by bytes", fl)
	}
	t.Log(fl[0].Message)
}
