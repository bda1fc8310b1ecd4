package measure

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/sim"
)

// counting wraps the simulator to count the streams in flight (and their
// peak) and the bytes it sent.
type counting struct {
	h                     http.Handler
	inFlight, peak, bytes atomic.Int64
}

func (c *counting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := c.inFlight.Add(1)
	defer c.inFlight.Add(-1)
	for p := c.peak.Load(); n > p && !c.peak.CompareAndSwap(p, n); p = c.peak.Load() {
	}
	c.h.ServeHTTP(countingWriter{w, &c.bytes}, r)
}

type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (w countingWriter) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	w.n.Add(int64(n))
	return n, err
}

func (w countingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter } // for Flush

// heapInUse returns the live heap after full collections (two: the first
// moves sync.Pool caches to their victim caches, the second frees them).
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestLoad streams 256 requests at a time from the simulator, each answer
// carrying a 200 KB chunk: every request succeeds, the goroutines return to
// where they started (no leaked connections or workers), and the results
// keep numbers, not text: with the results held and the connections
// closed, the live heap has grown by a small fraction of the bytes streamed.
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 100 MB")
	}
	const (
		conc     = 256
		requests = 2 * conc
	)
	p, err := sim.ParseSpec("fast?tokens=16&itl=60ms&itl_sigma=0&fault=big&fault_after=8") // streams long enough for 256 to overlap under -race
	if err != nil {
		t.Fatal(err)
	}
	startG := runtime.NumGoroutine()
	startHeap := heapInUse()

	s := sim.New(p)
	c := &counting{h: s}
	srv := httptest.NewServer(c)
	opts := runOpts(Endpoint{Target: config.Target{Name: "t", Model: "m", MaxTokens: 64, IncludeUsage: true, MaxErrorRate: 0.05}, URL: srv.URL + "/v1"}, requests)
	opts.Run.Concurrency = conc
	opts.Run.Timeout = 60 * time.Second // a generous bound for a loaded 2-core machine
	f, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	tg := f.Targets[0]
	if tg.Errors != 0 || len(tg.Prompts[0].Samples) != requests {
		t.Fatalf("%d samples, errors %v %+v; want %d samples", len(tg.Prompts[0].Samples), tg.ByClass, tg.Prompts[0].Failures[:min(3, len(tg.Prompts[0].Failures))], requests)
	}
	for _, smp := range tg.Prompts[0].Samples {
		if smp.Chunks != 16 {
			t.Fatalf("a sample has %d chunks, want 16 (one of them 200 KB)", smp.Chunks)
		}
	}
	// Most of the 256 workers streamed at once (a slow machine may not
	// overlap them all).
	if peak := c.peak.Load(); peak < conc/2 {
		t.Errorf("at most %d streams were in flight at once, want about %d", peak, conc)
	} else {
		t.Logf("peak streams in flight: %d", peak)
	}

	srv.Close()
	s.Close()
	// Idle connections close asynchronously: poll, with a generous deadline.
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > startG+2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > startG+2 {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines after the run, %d before: leaked\n%s", n, startG, buf[:runtime.Stack(buf, true)])
	}

	// Memory: everything streamed was read, none of it kept.
	streamed := uint64(c.bytes.Load())
	if streamed < requests*200<<10 {
		t.Fatalf("the simulator sent %d bytes, want over %d", streamed, requests*200<<10)
	}
	grown := int64(heapInUse()) - int64(startHeap)
	runtime.KeepAlive(f)
	t.Logf("streamed %d MB; live heap grew by %d KB with the results held", streamed>>20, grown>>10)
	if limit := int64(streamed / 20); grown > limit {
		t.Errorf("live heap grew by %d bytes holding %d samples; over 5%% of the %d bytes streamed: is text being kept?", grown, requests, streamed)
	}
}
