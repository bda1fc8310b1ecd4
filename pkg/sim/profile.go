package sim

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// Dist is a latency distribution: fixed when Sigma is 0, otherwise lognormal
// with the given median and log-space standard deviation (σ of ln X); with
// probability Spike a draw is multiplied by SpikeX (a slow outlier: a GC
// pause, a noisy neighbour, a cache miss).
type Dist struct {
	Median time.Duration
	Sigma  float64
	Spike  float64 // probability of a spike, in [0, 1]
	SpikeX float64 // a spike's factor (0 means 4)
}

// Draw returns one delay from d, using r only when Sigma or Spike is not 0
// (a profile without spikes draws exactly what it drew before spikes were).
func (d Dist) Draw(r *rand.Rand) time.Duration {
	if d.Median <= 0 || d.Sigma == 0 && d.Spike == 0 {
		return d.Median
	}
	v := float64(d.Median)
	if d.Sigma != 0 {
		v *= math.Exp(d.Sigma * r.NormFloat64())
	}
	if d.Spike > 0 && r.Float64() < d.Spike {
		v *= d.spikeX()
	}
	if v >= math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	return time.Duration(v)
}

func (d Dist) spikeX() float64 {
	if d.SpikeX == 0 {
		return 4
	}
	return d.SpikeX
}

// String describes d, for example "40ms σ0.25", "40ms σ0.3 2% spikes ×4" or
// "50ms fixed".
func (d Dist) String() string {
	s := d.Median.String() + " fixed"
	if d.Sigma != 0 {
		s = fmt.Sprintf("%v σ%g", d.Median, d.Sigma)
	}
	if d.Spike > 0 {
		s += fmt.Sprintf(" %g%% spikes ×%g", 100*d.Spike, d.spikeX())
	}
	return s
}

// Faults, the values of Profile.Fault.
const (
	FaultNone        = ""
	Fault429         = "429"          // HTTP 429 with Retry-After and an OpenAI error body
	Fault500         = "500"          // HTTP 500 with an OpenAI error body
	Fault401         = "401"          // HTTP 401 with an OpenAI error body
	Fault403         = "403"          // HTTP 403 with an OpenAI error body
	FaultCut         = "cut"          // TCP connection aborted mid-stream
	FaultNoDone      = "no_done"      // body ends cleanly with no finish_reason and no [DONE]
	FaultStall       = "stall"        // no more tokens until the client goes or the server closes
	FaultMalformed   = "malformed"    // a `data: {not json` frame, then the stream goes on
	FaultErrorFrame  = "error_frame"  // data: {"error":{...}} (OpenAI/vLLM shape), then [DONE]
	FaultErrorString = "error_string" // data: {"error":"..."} (Ollama shape), then the body ends
	FaultSplit       = "split"        // every data line written in two flushed writes
	FaultBig         = "big"          // one 200 KB content chunk
	FaultZero        = "zero"         // no content tokens, finish_reason "stop"
	FaultEchoKey     = "echo_key"     // HTTP 401 whose body echoes the Authorization header
	FaultOverloaded  = "overloaded"   // HTTP 529 overloaded_error on the Anthropic API, 503 on the others
)

// Faults lists the valid non-empty values of Profile.Fault.
func Faults() []string {
	fs := faultHelp()
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f[0]
	}
	return out
}

func faultHelp() [][2]string {
	return [][2]string{
		{Fault429, "HTTP 429 with Retry-After and an OpenAI error body"},
		{Fault500, "HTTP 500 with an OpenAI error body"},
		{Fault401, "HTTP 401 with an OpenAI error body"},
		{Fault403, "HTTP 403 with an OpenAI error body"},
		{FaultCut, "the TCP connection is aborted mid-stream"},
		{FaultNoDone, "the body ends cleanly with no finish_reason and no [DONE]"},
		{FaultStall, "no more tokens until the client goes or the server closes"},
		{FaultMalformed, "a `data: {not json` frame, then the stream goes on"},
		{FaultErrorFrame, `data: {"error":{...}} (OpenAI/vLLM shape), then [DONE]`},
		{FaultErrorString, `data: {"error":"..."} (Ollama shape), then the body ends`},
		{FaultSplit, "every data line written in two flushed writes"},
		{FaultBig, "one 200 KB content chunk"},
		{FaultZero, `no content tokens, finish_reason "stop"`},
		{FaultEchoKey, "HTTP 401 whose body echoes the Authorization header"},
		{FaultOverloaded, "HTTP 529 overloaded_error (Anthropic API), 503 (the others)"},
	}
}

// Styles of the stream, the values of Profile.Style.
const (
	// StyleOpenAI: an optional role-only first chunk, content deltas without
	// role, a final chunk with an empty delta and the finish_reason.
	StyleOpenAI = "openai"
	// StyleOllama: every chunk repeats "role":"assistant"; the finish_reason
	// rides on a last chunk whose content is "".
	StyleOllama = "ollama"
)

// Reasoning fields, the values of Profile.ReasoningField.
const (
	ReasoningContent = "reasoning_content" // DeepSeek, vLLM < 0.9, go-openai
	ReasoningPlain   = "reasoning"         // vLLM ≥ 0.9, Ollama
)

// Profile describes how the simulator answers. The zero value is usable but
// bare (no delays, no tokens, no usage); start from a preset (see ParseSpec).
// Every delay is multiplied by Slowdown, the TTFT also by TTFTFactor.
type Profile struct {
	// TTFT is the time from the request's arrival to the first token chunk
	// (reasoning or content). It includes HeaderDelay: when HeaderDelay is the
	// longer, the first token follows the headers at once.
	TTFT Dist
	// ITL is the gap between consecutive token chunks.
	ITL Dist
	// ITLRequestSigma is the σ of a per-request lognormal factor on every
	// token gap of one answer (a busy decode batch slows a whole stream), so
	// that the gaps of one stream are correlated as on a real server; 0
	// leaves them independent, and the draws are then exactly those of a
	// profile without it.
	ITLRequestSigma float64
	// Slow adds slow periods: runs of consecutive requests, by arrival,
	// during which every delay is multiplied (a noisy neighbour, a
	// rebalancing cluster): latency correlated in time, across prompts.
	Slow SlowPeriods
	// Cold is a cold start: the first Cold requests the server serves, by
	// arrival, are slower, every delay multiplied by a factor falling
	// evenly from ColdX (default 3) at the first to 1 at the Coldth (a cold
	// process, weights still paging in); 0: none.
	Cold  int
	ColdX float64
	// Level makes the endpoint's level jump with wall time (a provider's
	// load shifting under a run): every delay of a request is multiplied
	// by the level at its arrival (PlanAt).
	Level LevelJumps
	// Serial serves one chat request at a time, as Ollama does by default
	// (OLLAMA_NUM_PARALLEL=1): a request that arrives while another is
	// served waits for it, and its schedule (Plan) starts when it is
	// admitted, so its TTFB and TTFT include the wait.
	Serial bool
	// Capacity is how many chat requests the server serves at once, the
	// others waiting in a first-come queue, as an inference server with a
	// fixed batch size does (Serial is Capacity 1): under load a request's
	// TTFT includes its wait, and the server shows a knee, the arrival rate
	// above which the queue grows without bound. 0: no limit.
	Capacity int
	// BatchITL makes a busy server decode slower: a request admitted while
	// n others are served has every token gap multiplied by 1 + BatchITL×n,
	// as a decode batch slows each of its streams as it grows. 0: none.
	BatchITL float64
	// Stall and StallAt are a server stall: from StallAt after the server's
	// first request for Stall, nothing is sent (every header, token and
	// finish due in that window goes out at its end), as a process paused
	// by a GC or a swap does. 0: none.
	Stall, StallAt time.Duration
	// Tokens is the number of content tokens (one per chunk) of an answer,
	// capped by the request's max_completion_tokens or max_tokens (then
	// finish_reason is "length", else "stop").
	Tokens int
	// Reasoning is the number of reasoning chunks sent before the content;
	// they count toward the max_tokens cap and completion_tokens.
	Reasoning int
	// ReasoningField is the delta field of reasoning chunks:
	// "reasoning_content" or "reasoning"; by default "reasoning" in the
	// ollama style, "reasoning_content" otherwise.
	ReasoningField string
	// Style is the chunk shape: "openai" (default) or "ollama".
	Style string
	// RoleChunk sends {"delta":{"role":"assistant","content":""}} with the
	// headers: it marks the TTFB, not the TTFT.
	RoleChunk bool
	// HeaderDelay is the delay before the response headers.
	HeaderDelay Dist
	// KeepAlive, when not 0, sends a ": keep-alive" SSE comment whenever the
	// stream has been silent that long (before the first token, between
	// tokens, before an error frame, during a stall).
	KeepAlive time.Duration
	// Buffer holds every event after the opening ones and flushes them
	// together at the end of the stream, as a buffering proxy between a
	// client and a model does: the headers come at once, every token at the
	// end (TTFT ≈ total). The flush record stamps each token when the held
	// events were flushed.
	Buffer bool
	// Usage sends the usage chunk (choices: []) before [DONE] when the request
	// asks for it with stream_options.include_usage, and the usage object of
	// non-streamed answers.
	Usage bool
	// CachedTokens is reported as usage.prompt_tokens_details.cached_tokens
	// (at most the prompt tokens) when Cache is "".
	CachedTokens int
	// Cache is the prompt cache (cache.go): "" reports CachedTokens, "on"
	// keeps a prefix cache of the prompts seen, "off" caches nothing.
	Cache string
	// Prefill is the time each prompt token not served from the cache adds
	// to the TTFT (0: none, the TTFT is the profile's alone).
	Prefill time.Duration
	// ChainStep and ChainStepDelay add ChainStepDelay to the TTFT of step
	// ChainStep (counted from 1) of every agent chain: a request holding
	// ChainStep−1 assistant turns (chain.go). 0: none.
	ChainStep      int
	ChainStepDelay time.Duration
	// Swap is what a request for another model than the one served last
	// adds to its TTFT: a server that holds one model at a time and
	// reloads on every switch (Ollama with two option sets of one model).
	// 0: none.
	Swap time.Duration
	// Slowdown multiplies every delay (0 means 1).
	Slowdown float64
	// TTFTFactor multiplies the TTFT only (0 means 1).
	TTFTFactor float64
	// Seed seeds the delays: request n draws from PCG(Seed, n), so the same
	// profile gives the same schedule for the same request number.
	Seed uint64
	// Spin, when not 0, busy-waits (yielding) the last Spin of every wait
	// instead of sleeping: Go timers on Linux wake 0.2–1 ms late, spinning
	// hits the schedule within microseconds at the cost of CPU.
	Spin time.Duration
	// RequireKey, when set, answers 401 unless the request carries
	// "Authorization: Bearer <RequireKey>".
	RequireKey string
	// Fault is one of Faults() or "" for none.
	Fault string
	// FaultEvery applies the fault to every Nth request, counting requests
	// from 1 (N = 5: the 5th, 10th, …); 0 and 1 mean every request.
	FaultEvery int
	// FaultAfter is the number of token chunks sent before a mid-stream
	// fault (cut, no_done, stall, malformed, error_frame, error_string) and
	// the index of the big chunk. A mid-stream fault happens at the moment
	// the next token was due, after at most all tokens.
	FaultAfter int
	// RetryAfter is the Retry-After header of a 429, in whole seconds
	// rounded up (0 means 1s).
	RetryAfter time.Duration
}

// SlowPeriods describes slow periods: requests are grouped by arrival into
// blocks of Len (the blocks' phase drawn from the profile's seed), and a
// block is slow with probability Prob, drawn from the seed and the block
// alone, so a request's fate depends only on its number. Every delay of a
// request in a slow block is multiplied by X. After, when not 0, makes
// every request after the After-th slow too: a server that slows down for
// good in the middle of a run (a step, not a period). The zero value has
// none.
type SlowPeriods struct {
	Prob  float64 // probability that a block is slow, in [0, 1]
	Len   int     // requests per block (0 means 20)
	X     float64 // factor on every delay of a slow request (0 means 1.5)
	After int     // requests after this one are all slow (0: none)
}

// factor returns the slow-period factor of request seq under seed.
func (s SlowPeriods) factor(seed uint64, seq int) float64 {
	if s.After > 0 && seq > s.After {
		return cmp.Or(s.X, 1.5)
	}
	if s.Prob <= 0 {
		return 1
	}
	n := uint64(cmp.Or(s.Len, 20))
	phase := rand.New(rand.NewPCG(seed, slowStream)).Uint64N(n)
	block := (uint64(max(seq, 0)) + phase) / n
	if rand.New(rand.NewPCG(seed^slowStream, block)).Float64() >= s.Prob {
		return 1
	}
	return cmp.Or(s.X, 1.5)
}

// LevelJumps is a level that jumps with wall time: wall time is cut into
// periods of Period counted from the Unix epoch, and in every odd period
// each delay is multiplied by X, so the level jumps between ×1 and ×X every
// Period. The phase is the wall clock's, not the server's start, so two
// simulators (one per side of `latgate ab`) share it, as two models behind
// one provider share its load. The zero value has none.
type LevelJumps struct {
	X      float64       // the level of odd periods (0 or 1: no jumps)
	Period time.Duration // the length of one level (0 means 1.5s)
}

// DefaultLevelPeriod is LevelJumps.Period when it is 0.
const DefaultLevelPeriod = 1500 * time.Millisecond

// At returns the level at wall time t: 1, or X in an odd period.
func (l LevelJumps) At(t time.Time) float64 {
	if l.X == 0 || l.X == 1 {
		return 1
	}
	per := int64(cmp.Or(l.Period, DefaultLevelPeriod))
	if (t.UnixNano()/per)%2 != 0 {
		return l.X
	}
	return 1
}

// slowStream separates the slow periods' random stream from the delays'.
const slowStream = 0x51_0e_9e_71_0d

// maxTokens bounds Tokens and Reasoning so that a typo cannot exhaust memory.
const maxTokens = 1_000_000

// Validate reports every invalid field of p.
func (p Profile) Validate() error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	for _, d := range []struct {
		name string
		d    Dist
	}{{"ttft", p.TTFT}, {"itl", p.ITL}, {"header_delay", p.HeaderDelay}} {
		check(d.d.Median >= 0, "%s: negative median %v", d.name, d.d.Median)
		check(d.d.Sigma >= 0 && d.d.Sigma <= 3, "%s: sigma %v outside [0, 3]", d.name, d.d.Sigma)
		check(d.d.Spike >= 0 && d.d.Spike <= 1, "%s: spike probability %v outside [0, 1]", d.name, d.d.Spike)
		check(d.d.SpikeX == 0 || d.d.SpikeX >= 1 && d.d.SpikeX <= 1000, "%s: spike factor %v outside [1, 1000]", d.name, d.d.SpikeX)
	}
	check(p.ITLRequestSigma >= 0 && p.ITLRequestSigma <= 3, "itl_request_sigma: %v outside [0, 3]", p.ITLRequestSigma)
	check(p.Slow.Prob >= 0 && p.Slow.Prob <= 1, "slow_prob: %v outside [0, 1]", p.Slow.Prob)
	check(p.Slow.Len >= 0 && p.Slow.Len <= 1e6, "slow_len: %d outside [0, 1000000]", p.Slow.Len)
	check(p.Slow.X == 0 || p.Slow.X >= 1 && p.Slow.X <= 1000, "slow_x: %v outside [1, 1000]", p.Slow.X)
	check(p.Level.X == 0 || p.Level.X >= 0.01 && p.Level.X <= 100, "level_jump: %v outside [0.01, 100]", p.Level.X)
	check(p.Level.Period == 0 || p.Level.Period >= time.Millisecond, "level_period: %v is under 1ms", p.Level.Period)
	check(p.Slow.After >= 0, "slow_after: negative %d", p.Slow.After)
	check(p.Tokens >= 0 && p.Tokens <= maxTokens, "tokens: %d outside [0, %d]", p.Tokens, maxTokens)
	check(p.Reasoning >= 0 && p.Reasoning <= maxTokens, "reasoning: %d outside [0, %d]", p.Reasoning, maxTokens)
	check(slices.Contains([]string{"", ReasoningContent, ReasoningPlain}, p.ReasoningField),
		"reasoning_field: %q is not %s or %s", p.ReasoningField, ReasoningContent, ReasoningPlain)
	check(slices.Contains([]string{"", StyleOpenAI, StyleOllama}, p.Style),
		"style: %q is not %s or %s", p.Style, StyleOpenAI, StyleOllama)
	check(p.KeepAlive == 0 || p.KeepAlive >= time.Millisecond, "keepalive: %v is under 1ms", p.KeepAlive)
	check(p.CachedTokens >= 0, "cached_tokens: negative %d", p.CachedTokens)
	check(slices.Contains([]string{CacheFixed, CacheOn, CacheOff}, p.Cache), "cache: %q is not on or off", p.Cache)
	check(p.Prefill >= 0 && p.Prefill <= time.Second, "prefill: %v outside [0, 1s] per token", p.Prefill)
	check(p.ChainStep >= 0 && p.ChainStep <= 1000, "chain_step: %d outside [0, 1000]", p.ChainStep)
	check(p.ChainStepDelay >= 0 && p.ChainStepDelay <= time.Minute, "chain_step_delay: %v outside [0, 1m]", p.ChainStepDelay)
	check(p.Swap >= 0 && p.Swap <= time.Minute, "swap: %v outside [0, 1m]", p.Swap)
	check(p.Slowdown >= 0 && !math.IsInf(p.Slowdown, 0), "slowdown: %v is not a finite factor ≥ 0", p.Slowdown)
	check(p.Cold >= 0 && p.Cold <= 1_000_000, "cold: %v is not a request count from 0 to 1000000", p.Cold)
	check(p.ColdX == 0 || p.ColdX >= 1 && p.ColdX <= 100, "cold_x: %v is not a factor from 1 to 100", p.ColdX)
	check(p.TTFTFactor >= 0 && !math.IsInf(p.TTFTFactor, 0), "ttft_factor: %v is not a finite factor ≥ 0", p.TTFTFactor)
	check(p.Capacity >= 0 && p.Capacity <= 1_000_000, "capacity: %d is not a request count from 0 to 1000000", p.Capacity)
	check(p.BatchITL >= 0 && p.BatchITL <= 10, "batch_itl: %v outside [0, 10]", p.BatchITL)
	check(p.Stall >= 0 && p.Stall <= time.Hour, "stall: %v outside [0, 1h]", p.Stall)
	check(p.StallAt >= 0, "stall_at: negative %v", p.StallAt)
	check(p.Spin >= 0, "spin: negative %v", p.Spin)
	check(p.Fault == "" || slices.Contains(Faults(), p.Fault),
		"fault: unknown %q (valid: %s)", p.Fault, strings.Join(Faults(), ", "))
	check(p.FaultEvery >= 0, "fault_every: negative %d", p.FaultEvery)
	check(p.FaultAfter >= 0, "fault_after: negative %d", p.FaultAfter)
	check(p.RetryAfter >= 0, "retry_after: negative %v", p.RetryAfter)
	if len(errs) > 0 {
		return fmt.Errorf("sim profile: %w", errors.Join(errs...))
	}
	return nil
}

// Plan is the schedule of one request: offsets from its arrival.
type Plan struct {
	Header time.Duration   // response headers (and the role chunk)
	Tokens []time.Duration // each token chunk, reasoning first
	// Finish is when the finish chunk is due: the last token's offset, or
	// the TTFT when there are no tokens.
	Finish time.Duration
}

// Plan returns the schedule of request number seq (counted from 1) with the
// given number of token chunks. Delays are drawn in a fixed order (header
// delay, TTFT, the request's ITL factor when ITLRequestSigma is set, then
// each gap) from PCG(p.Seed, seq), so a shorter plan is a prefix of a longer
// one and the same seq always gives the same plan. A request in a slow
// period (Slow) has every delay multiplied by its factor. Plan leaves out
// the level jumps (Level), which depend on the arrival time: see PlanAt.
func (p Profile) Plan(seq, tokens int) Plan { return p.plan(seq, tokens, 1) }

// PlanAt is Plan for a request arriving at wall time at: with every delay
// multiplied by the level at that time (Level), as the server plans it.
func (p Profile) PlanAt(seq, tokens int, at time.Time) Plan {
	return p.plan(seq, tokens, p.Level.At(at))
}

// coldFactor is the cold start's factor on request seq (1-based by
// arrival): ColdX at the first, falling evenly to 1 at the Coldth.
func (p Profile) coldFactor(seq int) float64 {
	if p.Cold <= 0 || seq > p.Cold || seq < 1 {
		return 1
	}
	x := p.ColdX
	if x == 0 {
		x = 3
	}
	return 1 + (x-1)*float64(p.Cold-seq)/float64(max(p.Cold-1, 1))
}

func (p Profile) plan(seq, tokens int, level float64) Plan {
	r := rand.New(rand.NewPCG(p.Seed, uint64(seq)))
	slow := level * factor(p.Slowdown) * p.Slow.factor(p.Seed, seq) * p.coldFactor(seq)
	scale := func(d time.Duration, f float64) time.Duration { return time.Duration(float64(d) * f) }
	hd := scale(p.HeaderDelay.Draw(r), slow)
	first := max(hd, scale(p.TTFT.Draw(r), slow*factor(p.TTFTFactor)))
	pl := Plan{Header: hd, Finish: first}
	if tokens <= 0 {
		return pl
	}
	gap := slow
	if p.ITLRequestSigma > 0 {
		gap *= math.Exp(p.ITLRequestSigma * r.NormFloat64())
	}
	pl.Tokens = make([]time.Duration, tokens)
	at := first
	for k := range pl.Tokens {
		if k > 0 {
			at += scale(p.ITL.Draw(r), gap)
		}
		pl.Tokens[k] = at
	}
	pl.Finish = at
	return pl
}

// stretch multiplies every token gap of plan by f (BatchITL): the first
// token stays where it is.
func stretch(plan *Plan, f float64) {
	if f == 1 || len(plan.Tokens) == 0 {
		return
	}
	first := plan.Tokens[0]
	for k := range plan.Tokens {
		plan.Tokens[k] = first + time.Duration(float64(plan.Tokens[k]-first)*f)
	}
	plan.Finish = plan.Tokens[len(plan.Tokens)-1]
}

// faulty reports whether request seq gets the profile's fault.
func (p Profile) faulty(seq int) bool {
	return p.Fault != "" && (p.FaultEvery <= 1 || seq%p.FaultEvery == 0)
}

func (p Profile) reasoningField() string {
	switch {
	case p.ReasoningField != "":
		return p.ReasoningField
	case p.Style == StyleOllama:
		return ReasoningPlain
	}
	return ReasoningContent
}

func factor(f float64) float64 {
	if f == 0 {
		return 1
	}
	return f
}

var errClosed = errors.New("sim: server closed")
