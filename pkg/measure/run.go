package measure

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/latgate/latgate/internal/sanitize"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// Options configures a run.
type Options struct {
	Endpoints []Endpoint
	Prompts   []config.Prompt
	Run       config.Run
	// Observer receives progress; calls are serialized. Nil for none.
	Observer Observer
	// Version, ConfigPath and ConfigHash go into the results provenance.
	Version    string
	ConfigPath string
	ConfigHash string
	// MaxRetries bounds retries of a 429 answer (default 3; -1 for none).
	MaxRetries int
	// MaxRetryWait caps one wait between retries (default 30s).
	MaxRetryWait time.Duration
	// Before holds what earlier runs of the same measurement (check's
	// earlier rounds) measured, or nil: the give-up rule "the error budget
	// can no longer be met" counts their requests and failures too.
	Before *results.File
	// OverBudget measures every planned request even when the error
	// budget can no longer be met (bless --force, which blesses such a
	// run anyway, so stopping early would leave it nothing to bless). The
	// other give-ups (every warmup failed, a run of failures of one
	// class: an endpoint that is down) still stop. The results record the
	// target's own max_error_rate either way.
	OverBudget bool

	// spin, when not 0, replaces the arrival-rate generator's spinWindow
	// (a negative value: none), for its benchmark.
	spin time.Duration
}

// Observer is told about each finished request: the per-request hook for
// progress displays and for tools that check latgate's own timing against a
// server's records (internal/selftest).
type Observer interface {
	Progress(Progress)
}

// ObserverFunc adapts a function to an Observer.
type ObserverFunc func(Progress)

// Progress calls f(p).
func (f ObserverFunc) Progress(p Progress) { f(p) }

// Progress describes one finished request.
type Progress struct {
	Target, Prompt string
	Warmup         bool
	// Done and Total count this target's requests, warmup included.
	Done, Total int
	// Failure is non-nil when the request failed.
	Failure *results.Failure
	// TTFTMS is the request's time to first token in milliseconds when it
	// succeeded, else 0 (progress shows a running median of it).
	TTFTMS float64
	// Sample is the request's measurement when it succeeded (nil on
	// failure); the observer must not modify it. Its times count from Sent,
	// the monotonic time the request was sent; ResponseID is the stream's
	// first chunk id. Together they let a caller match a measured request to
	// a server's own record of it.
	Sample     *results.Sample
	Sent       time.Time
	ResponseID string
}

// ErrInterrupted is returned (wrapped) when the context was cancelled before
// the run finished: the returned file holds what was measured, marked partial.
var ErrInterrupted = errors.New("measurement interrupted")

// AuthError is returned when an endpoint refused the credentials: latgate
// stops at the first 401/403 instead of burning the whole run.
type AuthError struct {
	Target string
	EnvVar string
	Status int
	Msg    string
}

func (e *AuthError) Error() string {
	// Msg is the failure's own message, which already names $EnvVar.
	return fmt.Sprintf("target %q: the endpoint refused the credentials: %s", e.Target, e.Msg)
}

type job struct {
	prompt int
	seq    int // 1-based order among measured requests; 0 for warmup
}

// RunOf is what a results file records of run settings r: what must match
// between a baseline and a current run.
func RunOf(r config.Run) results.Run {
	return results.Run{Requests: r.Requests, Warmup: r.Warmup, Concurrency: r.Concurrency, TimeoutMS: ms(r.Timeout), Order: r.Order, Seed: r.Seed,
		Rate: r.Rate, Arrival: r.Arrival, MaxInFlight: r.MaxInFlight}
}

// Run measures every endpoint in turn and returns the results. The file is
// returned even with an error (partial on interruption or auth failure).
func Run(ctx context.Context, opts Options) (*results.File, error) {
	if opts.MaxRetries == 0 {
		opts.MaxRetries = 3
	}
	if opts.MaxRetryWait == 0 {
		opts.MaxRetryWait = 30 * time.Second
	}
	f := &results.File{
		Schema:     results.Schema,
		Version:    opts.Version,
		StartedAt:  time.Now().UTC().Truncate(time.Millisecond),
		ConfigPath: opts.ConfigPath,
		ConfigHash: opts.ConfigHash,
		Run:        RunOf(opts.Run),
	}
	runStart := time.Now()
	var obsMu sync.Mutex
	observe := func(p Progress) {
		if opts.Observer != nil {
			obsMu.Lock()
			opts.Observer.Progress(p)
			obsMu.Unlock()
		}
	}
	var err error
	for _, ep := range opts.Endpoints {
		var t results.Target
		t, err = runTarget(ctx, ep, opts, runStart, observe)
		f.Targets = append(f.Targets, t)
		if err != nil {
			break
		}
	}
	f.FinishedAt = time.Now().UTC().Truncate(time.Millisecond)
	if err != nil {
		f.Partial = true
		f.PartialReason = err.Error()
		var gu *GiveUpError
		f.GaveUp = errors.As(err, &gu)
	}
	return f, err
}

func runTarget(ctx context.Context, ep Endpoint, opts Options, runStart time.Time, observe func(Progress)) (results.Target, error) {
	conc := max(opts.Run.Concurrency, 1)
	p := paceOf(opts.Run)
	conns := conc
	if p != nil {
		conns = p.maxInFlight
		if opts.spin != 0 {
			p.spin = max(opts.spin, 0)
		}
	}
	hc, closeIdle := newHTTPClient(conns)
	defer closeIdle()
	warm := schedule(len(opts.Prompts), opts.Run.Warmup, opts.Run.Order, opts.Run.Seed, false)
	meas := schedule(len(opts.Prompts), opts.Run.Requests, opts.Run.Order, opts.Run.Seed, true)
	prime := primeJobs(opts.Prompts, opts.Run.Warmup) // warm prompts' cache, when no warmup primes it
	l, err := newLane(ep, hc, opts, len(prime)+len(warm), meas)
	if err != nil {
		return results.Target{Name: ep.Name}, err
	}
	warm, solo := soloRound(warm, len(opts.Prompts), conc)
	var plan [phases][]task
	plan[phasePrime], plan[phaseWarm], plan[phaseSolo] = tasks(0, prime, false), tasks(0, warm, false), tasks(0, solo, false)
	plan[phaseMeasured] = tasks(0, meas, true)
	x := &executor{lanes: []*lane{l}, conc: conc, start: runStart, observe: observe, pace: p}
	stopped := x.run(ctx, plan)
	t := x.result(l)
	if e := x.authErr.Load(); e != nil {
		return t, e
	}
	if err := l.gu.err(ep.Name); err != nil {
		return t, err
	}
	if stopped != nil {
		return t, fmt.Errorf("%w: %d of %d requests to target %q done", ErrInterrupted, int(x.done.Load()), x.total, ep.Name)
	}
	return t, nil
}

// schedule orders rounds × prompts so each round visits every prompt once:
// slow drift during a run spreads evenly over the prompts. "shuffle" permutes
// each round with a seeded generator.
func schedule(prompts, rounds int, order string, seed int64, measured bool) []job {
	jobs := make([]job, 0, prompts*rounds)
	perm := make([]int, prompts)
	for r := range rounds {
		for i := range perm {
			perm[i] = i
		}
		if order == "shuffle" {
			rng := rand.New(rand.NewPCG(uint64(seed), uint64(r)))
			rng.Shuffle(len(perm), func(a, b int) { perm[a], perm[b] = perm[b], perm[a] })
		}
		for _, p := range perm {
			j := job{prompt: p}
			if measured {
				j.seq = len(jobs) + 1
			}
			jobs = append(jobs, j)
		}
	}
	return jobs
}

// do runs one request, retrying a 429 after Retry-After (or a jittered
// exponential backoff), at most MaxRetries times, and not once gu has given
// the target up (every 429 answer counts toward its consecutive-failure
// rule). The request's budget is run.timeout: its attempts and the waits
// between them together stay within it, so a wait that would pass it is not
// waited, and the 429 is the request's rate_limit failure at once (a storm of
// huge Retry-After values gives up in the time the timeout allows, not in
// MaxRetries × MaxRetryWait). A retried request keeps the timings of its last
// attempt and says how many retries it took.
//
// A chain's prompt runs its steps, each step one request of this kind
// (chain.go).
func (c *client) do(ctx context.Context, prompt int, opts Options, buf []byte, gu *giveUp) outcome {
	if prompt >= 0 && prompt < len(c.prompts) && c.prompts[prompt].IsChain() {
		return c.chain(ctx, prompt, opts, buf, gu)
	}
	return c.attempts(ctx, prompt, nil, nil, opts, buf, gu)
}

// attempts is do's request: prompt's, or with conv a chain's step.
func (c *client) attempts(ctx context.Context, prompt int, conv []config.Message, answer *answerText, opts Options, buf []byte, gu *giveUp) outcome {
	first := time.Now()
	timeout, lim := c.limit(opts, prompt)
	for retry := 0; ; retry++ {
		if answer != nil {
			answer.b, answer.over = answer.b[:0], false // a retried step's answer is its last attempt's
		}
		o := c.stream(ctx, prompt, conv, answer, timeout, buf)
		limited := o.failure != nil && o.failure.Class == results.ErrRateLimit
		wait, over := time.Duration(0), false
		if limited && retry < opts.MaxRetries {
			wait = retryWait(o.retryAfter, retry, opts.MaxRetryWait)
			if left := timeout - time.Since(first); timeout > 0 && wait > left {
				o.failure.Message += fmt.Sprintf(" (not retried: waiting %s for the retry would pass the request's %s budget, %s)",
					wait.Round(time.Millisecond), timeout, lim.budget())
				over = true
			}
		}
		stop := limited && gu != nil && gu.rateLimited(*o.failure)
		if !limited || retry >= opts.MaxRetries || stop || over {
			o.sample.Retries = retry
			if o.failure != nil {
				o.failure.Retries = retry
			}
			lim.mark(&o)
			return o
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			// Interrupted while waiting to retry: not the endpoint's
			// rate_limit failure, but a request the run stopped under.
			t.Stop()
			o.failure.Class, o.failure.Message = results.ErrCanceled, fmt.Sprintf("canceled while waiting to retry a 429 (%s)", o.failure.Message)
			o.failure.Retries = retry
			return o
		case <-t.C:
		}
	}
}

// retryWait honours Retry-After (seconds or an HTTP date), else backs off
// 0.5 s × 2^retry; both get up to 20% jitter and are capped.
func retryWait(retryAfter string, retry int, limit time.Duration) time.Duration {
	d := time.Duration(500*(1<<min(retry, 10))) * time.Millisecond
	secs, err := strconv.ParseInt(strings.TrimSpace(retryAfter), 10, 64)
	switch {
	case err == nil && secs >= 0:
		d = time.Duration(min(secs, int64(limit/time.Second)+1)) * time.Second // no overflow
	case errors.Is(err, strconv.ErrRange) && secs > 0: // more seconds than int64 holds
		d = limit
	default:
		if t, perr := http.ParseTime(retryAfter); perr == nil {
			d = time.Until(t) // negative for a date in the past (clock skew)
		}
	}
	d = min(max(d, 0), limit)
	d += time.Duration(rand.Int64N(int64(d/5) + 1)) // up to 20% jitter
	return min(d, limit)
}

// Describe returns what a target's results will say about it before any
// request: name, region, the base URL as recorded (credentials removed; a
// simulator spec as written), model, request parameters, and its prompts' ids
// and hashes. check uses it to refuse a mismatched baseline before measuring.
func Describe(t config.Target, prompts []config.Prompt) results.Target {
	rt := results.Target{
		Name:    t.Name,
		Region:  t.Region,
		BaseURL: sanitize.URL(t.BaseURL), // no credentials, no query string (it may carry keys)
		Model:   t.Model,
		// the budget the run is held to travels with its results
		MaxErrorRate: t.MaxErrorRate,
		Params: results.Params{
			API:         describedAPI(t),
			MaxTokens:   t.MaxTokens,
			Temperature: t.Temperature,
			Stream:      true,
			ExtraHash:   t.ParamsHash(),
		},
		Prompts: make([]results.Prompt, len(prompts)),
	}
	if t.IsSim() {
		rt.BaseURL = t.BaseURL
	}
	for i, p := range prompts {
		rt.Prompts[i] = results.Prompt{ID: p.ID, Hash: p.Hash, Cache: p.Cache}
		if p.IsChain() {
			rt.Prompts[i].Steps = len(p.Steps)
		}
		if o := config.SLOFor(t, p); o != nil {
			r := o.Results()
			rt.Prompts[i].SLO = &r
		}
	}
	return rt
}

// describedAPI is the API a results file records: "" for chat, so that
// files of chat targets are what they were before other APIs.
func describedAPI(t config.Target) string {
	if api := t.APIName(); api != config.APIChat {
		return api
	}
	return ""
}

// aggregate builds the target's results from its measured outcomes.
func aggregate(ep Endpoint, opts Options, meas []job, outcomes []outcome, ran []bool, at []float64) results.Target {
	t := Describe(ep.Target, opts.Prompts)
	prompts := t.Prompts
	models, fps := map[string]bool{}, map[string]bool{}
	var all []results.Sample
	for i, j := range meas {
		if !ran[i] {
			continue
		}
		o := &outcomes[i]
		p := &prompts[j.prompt]
		p.Requests++
		t.Requests++
		if o.failure != nil {
			fl := *o.failure
			fl.Seq, fl.AtMS = j.seq, round3(at[i])
			p.Failures = append(p.Failures, fl)
			p.Errors++
			t.Errors++
			p.ByClass = inc(p.ByClass, fl.Class)
			t.ByClass = inc(t.ByClass, fl.Class)
			t.Retries += fl.Retries
			continue
		}
		s := o.sample
		s.Seq, s.AtMS = j.seq, round3(at[i])
		p.Samples = append(p.Samples, s)
		t.Retries += s.Retries
		if o.model != "" {
			models[o.model] = true
		}
		if o.fp != "" {
			fps[o.fp] = true
		}
	}
	for i := range prompts {
		prompts[i].Metrics = results.MetricsOf(prompts[i].Samples)
		all = append(all, prompts[i].Samples...)
	}
	t.Prompts = prompts
	t.Overall = results.Prompt{ID: "overall", Requests: t.Requests, Errors: t.Errors, ByClass: t.ByClass, Metrics: results.MetricsOf(all)}
	if t.Requests > 0 {
		t.ErrorRate = float64(t.Errors) / float64(t.Requests)
	}
	t.ReturnedModels = sortedKeys(models)
	t.SystemFingerprints = sortedKeys(fps)
	return t
}

func round3(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }

func inc(m map[string]int, k string) map[string]int {
	if m == nil {
		m = map[string]int{}
	}
	m[k]++
	return m
}

func sortedKeys(m map[string]bool) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// span is when one request was in flight, in ms since the run started.
type span struct{ from, to float64 }

// busy is the total time during which at least one of spans was in flight:
// the length of their union, so overlapping concurrent requests count once.
func busy(spans []span) float64 {
	sorted := slices.SortedFunc(slices.Values(spans), func(a, b span) int { return cmp.Compare(a.from, b.from) })
	total, end := 0.0, math.Inf(-1)
	for _, s := range sorted {
		if s.from > end {
			total += s.to - s.from
			end = s.to
		} else if s.to > end {
			total += s.to - end
			end = s.to
		}
	}
	return total
}

// extent is the time from the first span's start to the last one's end.
func extent(spans []span) float64 {
	if len(spans) == 0 {
		return 0
	}
	from, to := math.Inf(1), math.Inf(-1)
	for _, s := range spans {
		from, to = min(from, s.from), max(to, s.to)
	}
	return to - from
}
