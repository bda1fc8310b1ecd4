package results

import (
	"time"
)

// Schema is the value of the "schema" field of a results file.
const Schema = "latgate.results/v1"

// Metric names: the contract shared by results, baseline, compare and reports.
const (
	TTFB       = "ttfb"
	TTFT       = "ttft"
	TTFCT      = "ttfct"
	ITL        = "itl"
	TPOT       = "tpot"
	Total      = "total"
	MaxStall   = "max_stall"
	TokensPerS = "tokens_per_s"
)

// DurationMetrics returns the duration metrics, in report order: the ones a
// gate can check (tokens_per_s is a rate, higher is better).
func DurationMetrics() []string {
	return []string{TTFB, TTFT, TTFCT, ITL, TPOT, Total, MaxStall, ChainTotal, ChainTTFTLast}
}

// GatedMetrics returns the metrics a gate check may name: the duration
// metrics, for which larger is worse, and tokens_per_s, for which larger is
// better (HigherIsBetter).
func GatedMetrics() []string { return append(DurationMetrics(), TokensPerS) }

// HigherIsBetter reports whether a larger value of metric is an improvement:
// true for the rate tokens_per_s, false for every duration.
func HigherIsBetter(metric string) bool { return metric == TokensPerS }

// metricNames lists every metric in report order.
var metricNames = append(DurationMetrics(), TokensPerS)

// File is one run's results file.
type File struct {
	Schema     string    `json:"schema"`
	Version    string    `json:"latgate_version"`
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
	ConfigPath string    `json:"config_path,omitempty"`
	ConfigHash string    `json:"config_hash"`
	// Partial is true when the run stopped early (Ctrl-C, SIGTERM, fatal error):
	// the samples are real but fewer than configured.
	Partial       bool   `json:"partial,omitempty"`
	PartialReason string `json:"partial_reason,omitempty"`
	// GaveUp is true when a partial run stopped because it could not succeed
	// (every warmup request failed, a run of failures of one class, or the
	// error budget out of reach): a measurement failure, not an interruption.
	GaveUp  bool     `json:"gave_up,omitempty"`
	Run     Run      `json:"run"`
	Targets []Target `json:"targets"`
	// The comparison `check --out` adds is not part of File: compare, which
	// imports results, owns its type (compare.Recorded).
}

// Runner identifies where a run was measured from: latency depends on it.
// The history records it per run, and a baseline the runner it was blessed on.
type Runner struct {
	OS     string `json:"os"`
	Arch   string `json:"arch"`
	Name   string `json:"name,omitempty"`
	Labels string `json:"labels,omitempty"`
	Region string `json:"region,omitempty"`
	// Environment is "github-hosted" or "self-hosted" inside Actions.
	Environment string `json:"environment,omitempty"`
}

// String is a one-line description such as "Linux/X64 runner-3 (eu-west)".
func (r Runner) String() string {
	s := r.OS + "/" + r.Arch
	if r.Name != "" {
		s += " " + r.Name
	}
	if r.Labels != "" {
		s += " [" + r.Labels + "]"
	}
	if r.Region != "" {
		s += " (" + r.Region + ")"
	}
	return s
}

// Run holds the run settings that change latency and so must match between a
// baseline and a current run.
type Run struct {
	Requests int `json:"requests"`
	// MaxRequests is the cap of check's sequential rounds (run.max_requests
	// resolved), so an offline compare rebuilds the looks check made; 0 in
	// files from measure and bless.
	MaxRequests int     `json:"max_requests,omitempty"`
	Warmup      int     `json:"warmup"`
	Concurrency int     `json:"concurrency"`
	TimeoutMS   float64 `json:"timeout_ms"`
	Order       string  `json:"order"`
	Seed        int64   `json:"seed"`
	// Rate, Arrival and MaxInFlight are an arrival-rate run's (run.rate:
	// an open loop; 0 and "" for a closed loop, and in files from before
	// them).
	Rate        float64 `json:"rate,omitempty"`
	Arrival     string  `json:"arrival,omitempty"`
	MaxInFlight int     `json:"max_in_flight,omitempty"`
}

// OpenLoop reports whether the run sent at an arrival rate: its samples'
// times count from each request's scheduled send.
func (r Run) OpenLoop() bool { return r.Rate > 0 }

// Target is one endpoint × model: its provenance, per-prompt results and an
// overall summary across prompts.
type Target struct {
	Name string `json:"name"`
	// Region labels a target measured from one runner or region; merge keeps it.
	Region string `json:"region,omitempty"`
	// BaseURL never carries credentials (user:pass@ and query strings are removed).
	BaseURL            string   `json:"base_url"`
	Model              string   `json:"model"`
	ReturnedModels     []string `json:"returned_models,omitempty"`
	SystemFingerprints []string `json:"system_fingerprints,omitempty"`
	Params             Params   `json:"params"`
	Prompts            []Prompt `json:"prompts"`
	Overall            Prompt   `json:"overall"`
	// MaxErrorRate is the target's error budget (max_error_rate), so a
	// results file says by itself whether its run was good enough to compare.
	MaxErrorRate float64 `json:"max_error_rate"`
	// Requests, Errors and ErrorRate count measured (non-warmup) requests.
	Requests  int            `json:"requests"`
	Errors    int            `json:"errors"`
	ErrorRate float64        `json:"error_rate"`
	ByClass   map[string]int `json:"errors_by_class,omitempty"`
	// WallMS is the target's wall time: from its first request's send to
	// its last request's end, warmup included (0 in files from before it).
	WallMS  float64 `json:"wall_ms,omitempty"`
	Retries int     `json:"retries,omitempty"`
	// Usage is the tokens of every request the run sent to the target,
	// priming and warmup included (nil in files from before it);
	// RoundsUsage the part of it sent by check's sequential rounds after
	// the first (nil when there were none).
	Usage       *Usage `json:"usage,omitempty"`
	RoundsUsage *Usage `json:"rounds_usage,omitempty"`
	// Lateness is how late latgate's own runner woke while measuring the
	// target (nil in files from before it): see Lateness.
	Lateness *Lateness `json:"runner_lateness,omitempty"`
	// Sends is how an arrival-rate run held its schedule (nil for a closed
	// loop): see Sends.
	Sends *Sends `json:"sends,omitempty"`
}

// Params are the request parameters that shape latency.
type Params struct {
	// API is the wire format the target was measured with (responses,
	// anthropic, gemini, sse); "" for chat, OpenAI Chat Completions.
	API         string   `json:"api,omitempty"`
	MaxTokens   int      `json:"max_tokens"`
	Temperature *float64 `json:"temperature,omitempty"`
	Stream      bool     `json:"stream"`
	// ExtraHash is a hash of extra body fields, so a changed option is noticed
	// without copying the options (they may be long).
	ExtraHash string `json:"extra_hash,omitempty"`
}

// Prompt is one target × prompt (or, as Target.Overall, the pool of all prompts).
type Prompt struct {
	ID   string `json:"id"`
	Hash string `json:"hash,omitempty"`
	// WallMS is the wall time spent measuring the prompt: how long at least
	// one of its requests (warmup included) was in flight, overlaps counted
	// once (0 in files from before it, and in overall).
	WallMS float64 `json:"wall_ms,omitempty"`
	// Cache is the prompt's cache mode (CacheWarm, CacheCold; "" as the
	// endpoint does) and SLO its objective (nil: none): what the gate's
	// cache_hit_rate and slo_attainment checks read. Both are absent from
	// files written before latgate recorded them.
	Cache string `json:"cache,omitempty"`
	SLO   *SLO   `json:"slo,omitempty"`
	// Steps is the number of steps of an agent chain (config steps:), 0
	// for a prompt of one request: a chain's samples carry the chain
	// metrics (chain.go).
	Steps    int            `json:"steps,omitempty"`
	Requests int            `json:"requests"`
	Errors   int            `json:"errors"`
	ByClass  map[string]int `json:"errors_by_class,omitempty"`
	Metrics  Metrics        `json:"metrics"`
	Samples  []Sample       `json:"samples,omitempty"`
	Failures []Failure      `json:"failures,omitempty"`
	// Solo is the prompt's latency with nothing else in flight: its last
	// warmup request, which measure sends alone when run.concurrency > 1.
	// Queueing compares the measured TTFT with it. Nil when there is none
	// (concurrency 1, no warmup, that request failed, a baseline, files
	// from before it, and in overall).
	Solo *Solo `json:"solo,omitempty"`
}

// Solo is one request's latency measured with no other request of its
// target in flight, in milliseconds from its send.
type Solo struct {
	TTFB float64 `json:"ttfb_ms"`
	TTFT float64 `json:"ttft_ms"`
}

// Metrics holds a summary per metric. A nil summary means no value was
// observed (for example ttfct in a stream with no content tokens).
type Metrics struct {
	TTFB       *Summary     `json:"ttfb,omitempty"`
	TTFT       *Summary     `json:"ttft,omitempty"`
	TTFCT      *Summary     `json:"ttfct,omitempty"`
	ITL        *Summary     `json:"itl,omitempty"`
	TPOT       *Summary     `json:"tpot,omitempty"`
	Total      *Summary     `json:"total,omitempty"`
	MaxStall   *Summary     `json:"max_stall,omitempty"`
	TokensPerS *RateSummary `json:"tokens_per_s,omitempty"`
	// ChainTotal and ChainTTFTLast summarize a chain's samples (chain.go);
	// nil for a prompt that is no chain.
	ChainTotal    *Summary `json:"chain_total,omitempty"`
	ChainTTFTLast *Summary `json:"chain_ttft_last,omitempty"`
}

// Summary describes one duration metric in milliseconds. Percentiles use the
// Hyndman–Fan type 7 estimator (see package stats).
type Summary struct {
	N    int     `json:"n"`
	P50  float64 `json:"p50_ms"`
	P95  float64 `json:"p95_ms"`
	P99  float64 `json:"p99_ms"`
	Mean float64 `json:"mean_ms"`
	Min  float64 `json:"min_ms"`
	Max  float64 `json:"max_ms"`
}

// RateSummary describes a rate (tokens per second); same fields, no unit suffix.
type RateSummary struct {
	N    int     `json:"n"`
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	Mean float64 `json:"mean"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
}

// Sample is one successful measured request. All durations are milliseconds
// from the moment the request was sent, on the monotonic clock.
type Sample struct {
	Seq int `json:"seq"`
	// AtMS is when the request started, relative to the run start.
	AtMS float64 `json:"at_ms"`
	TTFB float64 `json:"ttfb_ms"`
	TTFT float64 `json:"ttft_ms"`
	// TTFCT is the first content token; zero with HasContent false when the
	// answer had no content token (reasoning only, tool call only, empty).
	TTFCT      float64 `json:"ttfct_ms,omitempty"`
	HasContent bool    `json:"has_content,omitempty"`
	Total      float64 `json:"total_ms"`
	TPOT       float64 `json:"tpot_ms,omitempty"`
	MaxStall   float64 `json:"max_stall_ms"`
	// ITL holds each gap between consecutive token-bearing chunks.
	ITL          []float64 `json:"itl_ms,omitempty"`
	OutputTokens int       `json:"output_tokens"`
	// TokenSource is "usage" (usage.completion_tokens) or "chunks" (counted
	// token-bearing chunks, when the endpoint sent no usage).
	TokenSource  string `json:"token_source"`
	Chunks       int    `json:"chunks"`
	PromptTokens int    `json:"prompt_tokens,omitempty"`
	CachedTokens int    `json:"cached_tokens,omitempty"`
	// CacheCreationTokens are prompt tokens written to the prompt cache
	// (Anthropic's cache_creation_input_tokens); ReasoningTokens the output
	// tokens spent on reasoning (reasoning_tokens, thinking_tokens,
	// thoughtsTokenCount), part of OutputTokens.
	CacheCreationTokens int     `json:"cache_creation_tokens,omitempty"`
	ReasoningTokens     int     `json:"reasoning_tokens,omitempty"`
	TokensPerS          float64 `json:"tokens_per_s,omitempty"`
	// FirstStatus is when the first status event of an app's stream (api:
	// sse, status_events) arrived: progress before any token, never a token.
	FirstStatus  float64 `json:"first_status_ms,omitempty"`
	FinishReason string  `json:"finish_reason,omitempty"`
	DNS          float64 `json:"dns_ms,omitempty"`
	Connect      float64 `json:"connect_ms,omitempty"`
	TLS          float64 `json:"tls_ms,omitempty"`
	Reused       bool    `json:"reused"`
	Retries      int     `json:"retries,omitempty"`
	// LateMS and QueueMS are an arrival-rate run's (Run.OpenLoop): how late
	// latgate's generator sent the request after its scheduled time (the
	// runner's own delay), and how long it then waited for a free stream
	// (run.max_in_flight were open). The sample's times (TTFB, TTFT,
	// TTFCT, total, first status, a chain's) count from the scheduled
	// send, so from the actual send each is the value less both.
	LateMS  float64 `json:"late_ms,omitempty"`
	QueueMS float64 `json:"queue_ms,omitempty"`
	// ChainTotal, ChainTTFTLast and Steps are a chain's (chain.go): its
	// wall time, its last step's first token from the chain's start, and
	// each step's own timing. The fields above are then its last step's.
	ChainTotal    float64 `json:"chain_total_ms,omitempty"`
	ChainTTFTLast float64 `json:"chain_ttft_last_ms,omitempty"`
	Steps         []Step  `json:"steps,omitempty"`
}

// Failure is one measured request that failed; it is never a sample.
type Failure struct {
	Seq     int     `json:"seq"`
	AtMS    float64 `json:"at_ms"`
	Class   string  `json:"class"`
	Status  int     `json:"status,omitempty"`
	Message string  `json:"message"`
	Retries int     `json:"retries,omitempty"`
}

// Error classes.
const (
	ErrHTTP      = "http"         // non-2xx status other than the ones below
	ErrAuth      = "auth"         // 401/403
	ErrRateLimit = "rate_limit"   // 429 after retries
	ErrServer    = "server"       // 5xx
	ErrTimeout   = "timeout"      // per-request deadline hit
	ErrSlow      = "slow"         // stopped at a limit far beyond the baseline (measure.Limit): evidence of a regression
	ErrConnect   = "connect"      // refused, DNS, TLS, reset before a response
	ErrTruncated = "truncated"    // stream ended before a finish_reason / [DONE]
	ErrMalformed = "malformed"    // a frame that is not valid JSON / SSE
	ErrStreamErr = "stream_error" // data: {"error": ...} inside the stream
	ErrCanceled  = "canceled"     // the run was interrupted
	ErrEmpty     = "empty"        // a complete answer with no token at all
	ErrOverrun   = "overrun"      // the stream ran far past max_tokens (or its byte bound): latgate stopped it
)

// Label names a target in messages and reports: "name", or "name@region"
// for a target measured from one region of several.
func Label(name, region string) string {
	if region != "" {
		return name + "@" + region
	}
	return name
}

// Label returns Label(t.Name, t.Region).
func (t Target) Label() string { return Label(t.Name, t.Region) }
