package measure

import (
	"context"
	"math"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/sim"
)

// TestOffsets: constant arrivals are evenly spaced; poisson arrivals are
// the seed's (the same seed, the same schedule), at exactly the rate over
// the run, and as irregular as exponential gaps are (their SD about their
// mean).
func TestOffsets(t *testing.T) {
	c := pace{rate: 4, arrival: config.ArrivalConstant}.offsets(5)
	if diff := cmp.Diff([]time.Duration{0, 250 * time.Millisecond, 500 * time.Millisecond, 750 * time.Millisecond, time.Second}, c); diff != "" {
		t.Errorf("constant (-want +got):\n%s", diff)
	}
	p := pace{rate: 20, arrival: config.ArrivalPoisson, seed: 7}
	a, b := p.offsets(20000), p.offsets(20000)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("poisson: the same seed gave another schedule")
	}
	p.seed = 8
	if o := p.offsets(3); o[1] == a[1] && o[2] == a[2] {
		t.Errorf("poisson: seeds 7 and 8 gave the same schedule %v", o)
	}
	var sum, sq float64
	for i := 1; i < len(a); i++ {
		g := (a[i] - a[i-1]).Seconds()
		if g < 0 {
			t.Fatalf("gap %d negative: %v", i, g)
		}
		sum, sq = sum+g, sq+g*g
	}
	n := float64(len(a) - 1)
	mean := sum / n
	sd := math.Sqrt(sq/n - mean*mean)
	if a[0] != 0 || math.Abs(mean-0.05) > 1e-9 || math.Abs(sd/mean-1) > 0.05 {
		t.Errorf("poisson at 20/s: first at %v, mean gap %.6fs (want 0.05), SD/mean %.3f (want 1 ± 0.05)", a[0], mean, sd/mean)
	}
	if o := p.offsets(1); len(o) != 1 || o[0] != 0 {
		t.Errorf("one request: %v, want [0]", o)
	}
}

// paceEndpoint starts the simulator with spec and returns an endpoint of it.
func paceEndpoint(t testing.TB, spec string) (Endpoint, *sim.Running) {
	t.Helper()
	p, err := sim.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sim.Start(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return Endpoint{Target: config.Target{Name: "sim", Model: "sim", MaxTokens: 8, APIKeyEnv: "K"}, URL: srv.URL()}, srv
}

var twoPaced = []config.Prompt{
	{ID: "a", Messages: []config.Message{{Role: "user", Content: "a"}}},
	{ID: "b", Messages: []config.Message{{Role: "user", Content: "b"}}},
}

// TestPacedRun: at a rate, the results say so, every measured request was
// sent on its schedule (Sends counts them all; none waited for a stream at
// 50/s with 256 open), and each sample's times count from its scheduled
// send: its TTFT holds its lateness and wait.
func TestPacedRun(t *testing.T) {
	ep, _ := paceEndpoint(t, "fast?ttft=10ms&itl=1ms&tokens=4")
	run := config.Run{Requests: 20, Warmup: 1, Concurrency: 1, Timeout: 10 * time.Second, Rate: 50, Arrival: config.ArrivalPoisson, Seed: 3, MaxInFlight: 256}
	f, err := Run(context.Background(), Options{Endpoints: []Endpoint{ep}, Prompts: twoPaced, Run: run})
	if err != nil {
		t.Fatal(err)
	}
	if f.Run.Rate != 50 || f.Run.Arrival != config.ArrivalPoisson || f.Run.MaxInFlight != 256 {
		t.Errorf("results run %+v: want rate 50, poisson, 256 in flight", f.Run)
	}
	tg := f.Targets[0]
	s := tg.Sends
	if s == nil || s.Scheduled != 40 || s.Queued != 0 || s.LateP50MS > s.LateP99MS || s.LateP99MS > s.LateMaxMS {
		t.Fatalf("sends %+v: want 40 scheduled, none queued, ordered quantiles", s)
	}
	for _, p := range tg.Prompts {
		for _, x := range p.Samples {
			if x.TTFT < x.LateMS+x.QueueMS || x.QueueMS != 0 {
				t.Errorf("prompt %s seq %d: ttft %v late %v queue %v: the TTFT counts from the schedule", p.ID, x.Seq, x.TTFT, x.LateMS, x.QueueMS)
			}
		}
	}
	if err := results.ValidateData(f.Run, f.Targets, true); err != nil {
		t.Errorf("results do not validate: %v", err)
	}
}

// TestPacedQueue: with one stream and requests due every 10 ms at 50 ms
// each, every request after the first waits for the one before it: each
// is counted as queued, and its wait is in its TTFT from the schedule
// (request k cannot start before k answers of 50 ms have been sent).
func TestPacedQueue(t *testing.T) {
	ep, _ := paceEndpoint(t, "fixed?ttft=50ms&itl=1ms&tokens=2")
	run := config.Run{Requests: 10, Warmup: 0, Concurrency: 1, Timeout: 10 * time.Second, Rate: 100, Arrival: config.ArrivalConstant, MaxInFlight: 1}
	f, err := Run(context.Background(), Options{Endpoints: []Endpoint{ep}, Prompts: twoPaced[:1], Run: run})
	if err != nil {
		t.Fatal(err)
	}
	tg := f.Targets[0]
	if tg.Sends == nil || tg.Sends.Queued != 9 {
		t.Fatalf("sends %+v: want 9 of 10 queued", tg.Sends)
	}
	for _, x := range tg.Prompts[0].Samples {
		k := float64(x.Seq - 1)
		if least := k*50 - k*10; x.TTFT < least+50 || x.QueueMS < least {
			t.Errorf("request %d: ttft %v ms, queue %v ms from its schedule; want ≥ %v and %v", x.Seq, x.TTFT, x.QueueMS, least+50, least)
		}
	}
}

// TestPacedStall (coordinated omission): the simulator stalls for a second
// half a second into the run. At a rate, every request that arrived during
// the stall is measured with it: its TTFT from the schedule is at least
// what was left of the stall when it arrived (by the server's own record),
// and tens of requests are. The same stall in a closed loop holds the one
// stream: only the request in flight when it began sees it, and the next
// is sent after it.
func TestPacedStall(t *testing.T) {
	const spec = "fixed?ttft=10ms&itl=1ms&tokens=2&stall=1s&stall_at=500ms"
	for _, open := range []bool{true, false} {
		ep, srv := paceEndpoint(t, spec)
		srv.Server().Record(true)
		run := config.Run{Requests: 100, Warmup: 0, Concurrency: 1, Timeout: 10 * time.Second}
		if open {
			run.Rate, run.Arrival, run.MaxInFlight = 50, config.ArrivalConstant, 256
		}
		var mu sync.Mutex
		byID := map[string]results.Sample{}
		_, err := Run(context.Background(), Options{Endpoints: []Endpoint{ep}, Prompts: twoPaced[:1], Run: run,
			Observer: ObserverFunc(func(p Progress) {
				if p.Sample != nil && !p.Warmup {
					mu.Lock()
					byID[p.ResponseID] = *p.Sample
					mu.Unlock()
				}
			})})
		if err != nil {
			t.Fatal(err)
		}
		recs := srv.Server().Records()
		first := recs[0].Start
		for _, r := range recs {
			if r.Start.Before(first) {
				first = r.Start
			}
		}
		from, to := first.Add(500*time.Millisecond), first.Add(1500*time.Millisecond)
		in, slow := 0, 0
		for _, r := range recs {
			var s results.Sample
			found := false
			for id, x := range byID {
				if seq, ok := sim.SeqFromID(id); ok && seq == r.Seq {
					s, found = x, true
				}
			}
			if !found {
				t.Fatalf("request %d of the server's record is not among the measured", r.Seq)
			}
			if s.Total >= 500 {
				slow++
			}
			if r.Start.Before(from) || !r.Start.Before(to) {
				continue
			}
			in++
			if left := ms(to.Sub(r.Start)); s.TTFT < left-0.01 {
				t.Errorf("open=%v: request %d arrived %.0f ms before the stall's end, its TTFT is %.1f ms", open, r.Seq, left, s.TTFT)
			}
		}
		switch {
		case open && in < 20:
			t.Errorf("at 50/s, %d requests arrived during the 1 s stall, want tens", in)
		case !open && in > 1:
			t.Errorf("closed loop: %d requests arrived during the stall, want at most one", in)
		case !open && slow != 1:
			t.Errorf("closed loop: %d requests took ≥ 500 ms, want the one in flight", slow)
		}
	}
}

// TestPacedStarved: a generator starved of CPU (four spinning goroutines a
// core in the same process: each wake-up waits for the scheduler's 10 ms
// preemption) sends late, and its sends say so: the schedule was not held
// (the gate then decides nothing of the target). Not parallel: the
// spinners would starve the package's other tests.
func TestPacedStarved(t *testing.T) {
	ep, _ := paceEndpoint(t, "fast?ttft=1ms&itl=1ms&tokens=2")
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 * runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				for i := 0; i < 1e6; i++ { // no call, no yield: preempted only by the runtime
				}
			}
		})
	}
	run := config.Run{Requests: 100, Warmup: 0, Concurrency: 1, Timeout: 10 * time.Second, Rate: 50, Arrival: config.ArrivalConstant, MaxInFlight: 256}
	f, err := Run(context.Background(), Options{Endpoints: []Endpoint{ep}, Prompts: twoPaced[:1], Run: run})
	close(done)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("sends %+v", f.Targets[0].Sends)
	if s := f.Targets[0].Sends; s == nil || s.Held() {
		t.Errorf("sends %+v under %d spinning goroutines: want the schedule not held (median late > %v ms)", s, 4*runtime.GOMAXPROCS(0), results.ScheduleLateMS)
	}
}
