package selftest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/measure"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/sim"
	"github.com/latgate/latgate/pkg/stats"
)

// defaultProfile returns the schedule Accuracy uses by default: the "fixed"
// preset (TTFT 50 ms, ITL 5 ms, 64 tokens, no jitter) without spinning. The
// truth is the server's recorded flush time, so a late server costs no
// accuracy, while spinning server goroutines would starve the client of the
// CPU and of network polling, adding error that no real server causes.
func defaultProfile() sim.Profile {
	p, err := sim.Preset("fixed")
	if err != nil {
		panic(err) // the preset is built in
	}
	p.Spin = 0
	return p
}

// AccuracyOptions configures Accuracy.
type AccuracyOptions struct {
	// Profile is the simulator's schedule; the zero value means the "fixed"
	// preset without spinning. Faults are not allowed: every request must succeed.
	Profile sim.Profile
	// Concurrency is the number of closed-loop workers (default 1).
	Concurrency int
	// Requests is the number of measured requests.
	Requests int
	// Warmup requests run first and are not compared.
	Warmup int
}

// AccuracyStats are the statistics latgate gates on, in milliseconds.
type AccuracyStats struct {
	TTFTP50, TTFTP95, ITLP50, ITLP95 float64
}

func (a AccuracyStats) sub(b AccuracyStats) AccuracyStats {
	return AccuracyStats{a.TTFTP50 - b.TTFTP50, a.TTFTP95 - b.TTFTP95, a.ITLP50 - b.ITLP50, a.ITLP95 - b.ITLP95}
}

// AccuracyReport compares the times latgate stamped on the client with the
// simulator's flush times of the same tokens. Both sides run in one process
// and read one monotonic clock, so a token's client stamp minus its server
// flush is exactly the delay the delivery and the client path added.
type AccuracyReport struct {
	Concurrency int
	// Requests and Tokens count the measured requests and token chunks
	// compared with the server's records.
	Requests, Tokens int
	// ChunkRate is the token chunks per second the run delivered, from the
	// first measured request's arrival to its last token's flush.
	ChunkRate float64
	// Reported holds the statistics latgate reported; Truth the same from
	// the server's flush times (TTFT: first flush − the client's send; ITL:
	// gaps between flushes); Error is Reported − Truth.
	Reported, Truth, Error AccuracyStats
	// Delay summarizes every token's delay: client stamp − server flush (ms).
	Delay stats.Summary
	// Delays holds, per request, each token's delay in ms, first token first:
	// the raw noise of the client path (see Noise).
	Delays [][]float64
}

// Accuracy starts the simulator in-process with its recorder on, runs a
// measurement against it through Run (the real client path, over loopback),
// and matches every measured request to the server's record of it by the
// chunk id ("chatcmpl-sim-<n>").
func Accuracy(ctx context.Context, opts AccuracyOptions) (AccuracyReport, error) {
	p := opts.Profile
	if p == (sim.Profile{}) {
		p = defaultProfile()
	}
	if p.Fault != sim.FaultNone {
		return AccuracyReport{}, fmt.Errorf("accuracy: the profile has fault %q; every request must succeed", p.Fault)
	}
	if opts.Requests <= 0 {
		return AccuracyReport{}, errors.New("accuracy: requests must be positive")
	}
	conc := max(opts.Concurrency, 1)
	srv, err := sim.Start(ctx, p)
	if err != nil {
		return AccuracyReport{}, fmt.Errorf("accuracy: %w", err)
	}
	defer srv.Close()
	srv.Server().Record(true)

	type got struct {
		id    string
		start time.Time
		ttft  float64
		itl   []float64
	}
	var (
		mu   sync.Mutex
		outs = make([]got, 0, opts.Requests)
	)
	ep := measure.Endpoint{
		Target: config.Target{Name: "selftest", BaseURL: "sim", Model: "sim", APIKeyEnv: "LATGATE_SELFTEST_KEY",
			MaxTokens: max(p.Tokens+p.Reasoning, 1), IncludeUsage: true},
		URL: srv.URL(),
	}
	f, err := measure.Run(ctx, measure.Options{
		Endpoints: []measure.Endpoint{ep},
		Prompts:   []config.Prompt{{ID: "selftest", Messages: []config.Message{{Role: "user", Content: "Count to sixty-four."}}}},
		Run: config.Run{Requests: opts.Requests, Warmup: opts.Warmup, Concurrency: conc,
			Timeout: time.Minute, Order: "interleave", Seed: 1},
		MaxRetries: -1,
		Observer: measure.ObserverFunc(func(pr measure.Progress) {
			if pr.Warmup || pr.Sample == nil {
				return
			}
			mu.Lock()
			outs = append(outs, got{pr.ResponseID, pr.Sent, pr.Sample.TTFT, pr.Sample.ITL})
			mu.Unlock()
		}),
	})
	if err != nil {
		return AccuracyReport{}, fmt.Errorf("accuracy: %w", err)
	}
	if t := f.Targets[0]; t.Errors > 0 {
		return AccuracyReport{}, fmt.Errorf("accuracy: %d of %d requests failed: %s", t.Errors, t.Requests, firstFailure(t))
	}
	// Close waits for the handlers to return, so every record is saved.
	if err := srv.Close(); err != nil {
		return AccuracyReport{}, fmt.Errorf("accuracy: %w", err)
	}
	recs := map[int]sim.Record{}
	for _, r := range srv.Server().Records() {
		recs[r.Seq] = r
	}

	rep := AccuracyReport{Concurrency: conc, Delays: make([][]float64, 0, len(outs))}
	var (
		ttft, trueTTFT, itl, trueITL, all []float64
		first, last                       time.Time
	)
	for _, o := range outs {
		seq, ok := sim.SeqFromID(o.id)
		r, found := recs[seq]
		if !ok || !found {
			return AccuracyReport{}, fmt.Errorf("accuracy: no server record for response id %q", o.id)
		}
		delete(recs, seq) // each record matches one request
		if len(r.Tokens) != 1+len(o.itl) {
			return AccuracyReport{}, fmt.Errorf("accuracy: request %d: server flushed %d tokens, client stamped %d", seq, len(r.Tokens), 1+len(o.itl))
		}
		// The client's stamps, rebuilt from what it reported.
		at := o.start.Add(fromMS(o.ttft))
		d := make([]float64, len(r.Tokens))
		for k, flushed := range r.Tokens {
			if k > 0 {
				at = at.Add(fromMS(o.itl[k-1]))
				trueITL = append(trueITL, ms(flushed.Sub(r.Tokens[k-1])))
			}
			d[k] = ms(at.Sub(flushed))
		}
		ttft = append(ttft, o.ttft)
		trueTTFT = append(trueTTFT, ms(r.Tokens[0].Sub(o.start)))
		itl = append(itl, o.itl...)
		all = append(all, d...)
		rep.Delays = append(rep.Delays, d)
		rep.Requests++
		rep.Tokens += len(d)
		if first.IsZero() || r.Start.Before(first) {
			first = r.Start
		}
		if end := r.Tokens[len(r.Tokens)-1]; end.After(last) {
			last = end
		}
	}
	if rep.Requests == 0 {
		return AccuracyReport{}, errors.New("accuracy: no request to compare")
	}
	rep.Reported = statsOf(ttft, itl)
	rep.Truth = statsOf(trueTTFT, trueITL)
	rep.Error = rep.Reported.sub(rep.Truth)
	rep.Delay = stats.Summarize(all)
	if span := last.Sub(first); span > 0 {
		rep.ChunkRate = float64(rep.Tokens) / span.Seconds()
	}
	return rep, nil
}

func firstFailure(t results.Target) string {
	for _, p := range t.Prompts {
		for _, fl := range p.Failures {
			return fl.Class + ": " + fl.Message
		}
	}
	return "unknown"
}

func fromMS(v float64) time.Duration { return time.Duration(math.Round(v * 1e6)) }

// ms converts a duration to milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// statsOf sorts ttft and itl in place and returns their P50 and P95.
func statsOf(ttft, itl []float64) AccuracyStats {
	slices.Sort(ttft)
	slices.Sort(itl)
	return AccuracyStats{
		TTFTP50: stats.Quantile(ttft, 0.50), TTFTP95: stats.Quantile(ttft, 0.95),
		ITLP50: stats.Quantile(itl, 0.50), ITLP95: stats.Quantile(itl, 0.95),
	}
}

// Noise returns, per request, the error the client path adds to one
// metric's values, in ms, for MinDetectable: the first token's delay for
// ttft (and for ttfct, ttfb and total, one stamp each, which it stands in
// for); each gap's error (client gap − server gap) for itl; the error of the
// decode time per token for tpot; the largest gap error for max_stall (an
// upper bound). It reports false for other metrics.
func (r AccuracyReport) Noise(metric string) ([][]float64, bool) {
	out := make([][]float64, 0, len(r.Delays))
	for _, d := range r.Delays {
		var v []float64
		switch metric {
		case results.TTFT, results.TTFCT, results.TTFB, results.Total:
			v = []float64{d[0]}
		case results.ITL:
			v = make([]float64, 0, len(d)-1)
			for k := 1; k < len(d); k++ {
				v = append(v, d[k]-d[k-1])
			}
		case results.TPOT:
			if len(d) > 1 {
				v = []float64{(d[len(d)-1] - d[0]) / float64(len(d)-1)}
			}
		case results.MaxStall:
			worst := 0.0
			for k := 1; k < len(d); k++ {
				worst = max(worst, d[k]-d[k-1])
			}
			v = []float64{worst}
		default:
			return nil, false
		}
		if len(v) > 0 {
			out = append(out, v)
		}
	}
	return out, true
}

// MinDetectable returns the smallest change in a statistic that two runs of
// n requests each can tell apart from noise at confidence conf (0.95): the
// conf-quantile of |stat(A) − stat(B)| over the given number of resamples,
// where A and B are independent draws of n whole requests (with
// replacement) from perRequest, each request's values pooled. Drawing whole
// requests keeps the correlation of values within one request (the gaps of
// one stream), as the gate's bootstrap does. A true change smaller than the
// result is, at that confidence, indistinguishable from two runs of the same
// thing. stat gets the pooled values sorted ascending. The draws come from
// PCG(seed, n), so the result is deterministic. It returns NaN when
// perRequest holds no value or n < 1.
func MinDetectable(perRequest [][]float64, n int, conf float64, resamples int, seed uint64, stat func(sorted []float64) float64) float64 {
	var total int
	for _, v := range perRequest {
		total += len(v)
	}
	if total == 0 || n < 1 || resamples < 1 || !(conf > 0 && conf < 1) {
		return math.NaN()
	}
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	buf := make([]float64, 0, n*(total/len(perRequest)+1))
	draw := func() float64 {
		buf = buf[:0]
		for range n {
			buf = append(buf, perRequest[rng.IntN(len(perRequest))]...)
		}
		if len(buf) == 0 {
			return math.NaN()
		}
		slices.Sort(buf)
		return stat(buf)
	}
	diffs := make([]float64, 0, resamples)
	for range resamples {
		a := draw()
		b := draw()
		if d := math.Abs(a - b); !math.IsNaN(d) {
			diffs = append(diffs, d)
		}
	}
	if len(diffs) == 0 {
		return math.NaN()
	}
	slices.Sort(diffs)
	return stats.Quantile(diffs, conf)
}
