//go:build unix

package measure

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/sim"
	"github.com/latgate/latgate/pkg/stats"
)

// benchTokens is the token chunks of one benchmarked answer.
const benchTokens = 64

// benchSpec is the simulator of the benchmarks for answers of n tokens: no
// delays at all, so the stream runs as fast as the processes allow.
func benchSpec(n int) string { return fmt.Sprintf("fixed?ttft=0s&itl=0s&spin=0s&tokens=%d", n) }

// simFrames returns the SSE body the simulator sends for one answer of n
// tokens (role chunk, n content chunks, finish, usage, [DONE]), one frame
// per element, as captured from a real simulator response.
func simFrames(tb testing.TB, n int) [][]byte {
	tb.Helper()
	p, err := sim.ParseSpec(benchSpec(n))
	if err != nil {
		tb.Fatal(err)
	}
	r, err := sim.Start(context.Background(), p)
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	req := fmt.Sprintf(`{"model":"sim","stream":true,"stream_options":{"include_usage":true},"max_tokens":%d,"messages":[{"role":"user","content":"hi"}]}`, n)
	resp, err := http.Post(r.URL()+"/chat/completions", "application/json", strings.NewReader(req))
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		tb.Fatalf("simulator answered %d: %v: %s", resp.StatusCode, err, body)
	}
	var frames [][]byte
	for _, f := range bytes.SplitAfter(body, []byte("\n\n")) {
		if len(f) > 0 {
			frames = append(frames, f)
		}
	}
	return frames
}

// frameReader delivers one frame per Read, as a socket does when the server
// flushes each chunk and the client keeps up. It starts over after the last.
type frameReader struct {
	frames [][]byte
	i      int
}

func (r *frameReader) Close() error { return nil }

func (r *frameReader) Read(p []byte) (int, error) {
	if r.i == len(r.frames) {
		return 0, io.EOF
	}
	n := copy(p, r.frames[r.i])
	if n < len(r.frames[r.i]) {
		panic("frame larger than the read buffer")
	}
	r.i++
	return n, nil
}

// BenchmarkChunk measures what latgate spends on each streamed chunk.
//
//   - parse: parseFrame on one simulator content frame (one op = one frame).
//   - read: the client's read loop (line splitting, stamping, parsing,
//     bookkeeping) over an in-memory body that delivers one frame per Read,
//     as a socket does (one op = one token chunk; the role, finish, usage
//     and [DONE] frames of each answer are included in the cost).
//   - loopback/tokens=N: the whole client path (post, net/http, the
//     read loop) against the simulator in a child process over loopback,
//     with no delays: one op is one answer of N token chunks; ns/chunk is
//     wall time, cpu-ns/chunk this process's CPU time (user + system, the
//     client's alone, since the server runs elsewhere), allocs/chunk and
//     B/chunk its allocations, all divided by the token chunks. N=64 is
//     the answer length; N=512 shows the marginal cost of a chunk,
//     with the request's own setup spread thin.
func BenchmarkChunk(b *testing.B) {
	b.Run("parse", func(b *testing.B) {
		frames := simFrames(b, 2)
		data := bytes.TrimPrefix(bytes.TrimSpace(frames[1]), []byte("data:"))
		var f frame
		b.ReportAllocs()
		b.SetBytes(int64(len(frames[1])))
		for b.Loop() {
			parseFrame(data, &f)
		}
		if !f.content {
			b.Fatalf("frame %q has no content token", data)
		}
	})
	b.Run("read", func(b *testing.B) {
		frames := simFrames(b, benchTokens)
		ep := endpoint("http://127.0.0.1:1")
		ep.MaxTokens = benchTokens
		c, err := newClient(ep, http.DefaultClient, benchPrompts())
		if err != nil {
			b.Fatal(err)
		}
		buf := make([]byte, 32<<10)
		ctx := context.Background()
		r := &frameReader{frames: frames}
		a := &attempt{body: r, start: time.Now()}
		b.ReportAllocs()
		chunks := 0
		for chunks < b.N {
			r.i = 0
			o := c.read(ctx, a, buf)
			if o.failure != nil {
				b.Fatalf("read: %s", o.failure.Message)
			}
			chunks += o.sample.Chunks
		}
	})
	for _, api := range otherAPIs {
		b.Run("read/"+api, func(b *testing.B) {
			c, r := apiReader(b, api, benchTokens)
			buf := make([]byte, 32<<10)
			ctx := context.Background()
			a := &attempt{body: r, start: time.Now()}
			b.ReportAllocs()
			chunks := 0
			for chunks < b.N {
				r.i = 0
				o := c.read(ctx, a, buf)
				if o.failure != nil {
					b.Fatalf("read: %s", o.failure.Message)
				}
				chunks += o.sample.Chunks
			}
		})
	}
	b.Run("read/ratio", benchReadRatio)
	for _, tokens := range []int{benchTokens, 512} {
		b.Run(fmt.Sprintf("loopback/tokens=%d", tokens), func(b *testing.B) { benchLoopback(b, config.APIChat, tokens) })
	}
	for _, api := range otherAPIs {
		b.Run(fmt.Sprintf("loopback/%s/tokens=%d", api, benchTokens), func(b *testing.B) { benchLoopback(b, api, benchTokens) })
	}
}

// otherAPIs are the APIs besides chat, each benchmarked against it.
var otherAPIs = []string{config.APIResponses, config.APIAnthropic, config.APIGemini, config.APISSE, config.APINDJSON}

// apiReader returns a client of api and a reader that delivers the
// simulator's answer of n tokens in that API's shapes, one event per Read.
func apiReader(tb testing.TB, api string, n int) (*client, *frameReader) {
	tb.Helper()
	p, err := sim.ParseSpec(benchSpec(n))
	if err != nil {
		tb.Fatal(err)
	}
	srv, err := sim.Start(context.Background(), p)
	if err != nil {
		tb.Fatal(err)
	}
	defer srv.Close()
	t := apiTarget(api)
	t.MaxTokens = n
	var body bytes.Buffer
	tr := http.DefaultTransport.(*http.Transport).Clone()
	defer tr.CloseIdleConnections()
	c, err := newClient(NewEndpoint(t, srv.URLFor(api), func(string) string { return "k" }), &http.Client{Transport: tee{tr, &body}}, benchPrompts())
	if err != nil {
		tb.Fatal(err)
	}
	if o := c.stream(context.Background(), 0, nil, nil, time.Minute, make([]byte, 32<<10)); o.failure != nil {
		tb.Fatalf("%s: %s", api, o.failure.Message)
	}
	sep := []byte("\n\n")
	switch api {
	case config.APIGemini:
		sep = []byte("\r\n\r\n")
	case config.APINDJSON:
		sep = []byte("\n")
	}
	var frames [][]byte
	for _, f := range bytes.SplitAfter(body.Bytes(), sep) {
		if len(f) > 0 {
			frames = append(frames, f)
		}
	}
	return c, &frameReader{frames: frames}
}

// benchReadRatio runs the read loop of every API in turn, an answer each,
// and reports each API's ns per token chunk and its ratio to chat's,
// measured in the same run (the machine's load shifts them all alike). The
// figure of an API is the median over its answers of the answer's time per
// chunk: an answer the scheduler preempted is one outlier, not a shift of
// the sum.
func benchReadRatio(b *testing.B) {
	apis := append([]string{config.APIChat}, otherAPIs...)
	type side struct {
		c      *client
		r      *frameReader
		a      *attempt
		per    []float64 // ns per chunk of each answer
		chunks int
	}
	sides := make([]*side, len(apis))
	for i, api := range apis {
		var c *client
		var r *frameReader
		if api == config.APIChat {
			ep := endpoint("http://127.0.0.1:1")
			ep.MaxTokens = benchTokens
			var err error
			if c, err = newClient(ep, http.DefaultClient, benchPrompts()); err != nil {
				b.Fatal(err)
			}
			r = &frameReader{frames: simFrames(b, benchTokens)}
		} else {
			c, r = apiReader(b, api, benchTokens)
		}
		sides[i] = &side{c: c, r: r, a: &attempt{body: r, start: time.Now()}}
	}
	buf := make([]byte, 32<<10)
	ctx := context.Background()
	done := 0
	for done < b.N {
		for _, sd := range sides {
			sd.r.i = 0
			start := time.Now()
			o := sd.c.read(ctx, sd.a, buf)
			el := time.Since(start)
			if o.failure != nil {
				b.Fatalf("read: %s", o.failure.Message)
			}
			sd.per = append(sd.per, float64(el.Nanoseconds())/float64(o.sample.Chunks))
			sd.chunks += o.sample.Chunks
		}
		done = sides[0].chunks
	}
	median := func(xs []float64) float64 {
		slices.Sort(xs)
		return stats.Quantile(xs, 0.5)
	}
	chat := median(sides[0].per)
	for i, sd := range sides {
		per := median(sd.per)
		b.ReportMetric(per, apis[i]+"-ns/chunk")
		if i > 0 {
			b.ReportMetric(per/chat, apis[i]+"/chat")
		}
	}
}

func benchLoopback(b *testing.B, api string, tokens int) {
	url, stop := startSimProcess(b, benchSpec(tokens))
	defer stop()
	host := strings.TrimSuffix(url, "/v1")
	ep := endpoint(host)
	if api != config.APIChat {
		url = map[string]string{config.APIGemini: host + "/v1beta", config.APISSE: host + "/app/chat", config.APINDJSON: host + "/api/chat"}[api]
		if url == "" {
			url = host + "/v1"
		}
		ep = NewEndpoint(apiTarget(api), url, func(string) string { return "k" })
	}
	ep.MaxTokens = tokens
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DisableCompression = true // as runTarget
	defer tr.CloseIdleConnections()
	c, err := newClient(ep, &http.Client{Transport: tr}, benchPrompts())
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	buf := make([]byte, 32<<10)
	for range 3 { // warm the connection and the heap
		if o := c.stream(ctx, 0, nil, nil, time.Minute, buf); o.failure != nil {
			b.Fatalf("warmup: %s", o.failure.Message)
		}
	}
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	cpu0 := cpuTime(b)
	start := time.Now()
	chunks := 0
	for b.Loop() {
		o := c.stream(ctx, 0, nil, nil, time.Minute, buf)
		if o.failure != nil {
			b.Fatalf("stream: %s", o.failure.Message)
		}
		chunks += o.sample.Chunks
	}
	wall := time.Since(start)
	cpu := cpuTime(b) - cpu0
	runtime.ReadMemStats(&ms1)
	n := float64(max(chunks, 1))
	b.ReportMetric(float64(wall.Nanoseconds())/n, "ns/chunk")
	b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/chunk")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/n, "allocs/chunk")
	b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/n, "B/chunk")
}

func benchPrompts() []config.Prompt {
	return []config.Prompt{{ID: "bench", Messages: []config.Message{{Role: "user", Content: "Count to sixty-four."}}}}
}

// cpuTime returns this process's CPU time so far, user plus system.
func cpuTime(tb testing.TB) time.Duration {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// simHelperEnv makes the test binary serve the simulator (TestSimProcess).
const simHelperEnv = "LATGATE_BENCH_SIM_SPEC"

// startSimProcess runs the simulator with the given spec in a child process
// (this test binary running TestSimProcess) and returns its base URL.
func startSimProcess(tb testing.TB, spec string) (url string, stop func()) {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSimProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), simHelperEnv+"="+spec)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	stop = func() {
		stdin.Close() // the child serves until its stdin closes
		_ = cmd.Wait()
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "sim-url "); ok {
			go io.Copy(io.Discard, stdout)
			return u, stop
		}
	}
	stop()
	tb.Fatalf("the simulator child process printed no URL: %v", sc.Err())
	return "", nil
}

// TestSimProcess is not a test: it is the child process of startSimProcess.
func TestSimProcess(t *testing.T) {
	spec := os.Getenv(simHelperEnv)
	if spec == "" {
		t.Skip("helper process for the loopback benchmark")
	}
	p, err := sim.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	fmt.Printf("sim-url http://%s/v1\n", ln.Addr())
	if err := sim.Serve(ctx, ln, p); err != nil {
		t.Fatal(err)
	}
}
