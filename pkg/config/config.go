package config

import (
	"encoding/json"
	"math"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/latgate/latgate/pkg/results"
)

// Config is a loaded, defaulted and validated latgate.yaml.
type Config struct {
	// Path is the file the config was read from; Dir its directory, against
	// which relative paths (messages_file, baseline) are resolved.
	Path string
	Dir  string
	// Baseline is the baseline file path, resolved against Dir
	// (default: latgate.baseline.json beside the config).
	Baseline string
	// History is the run history file (JSON Lines) that check and measure
	// append to and trend reads, resolved against Dir; "" keeps none.
	History string
	Targets []Target
	Prompts []Prompt
	Run     Run
	Gate    Gate
	// AB is how `latgate ab` schedules its sides (the candidate's applies).
	AB AB
	// Knee is how trend holds the knees `latgate sweep` records.
	Knee Knee
	// Hash is a canonical hash of everything that shapes latency: targets'
	// request parameters, prompt hashes and run settings.
	Hash string
}

// Target is one endpoint × model to measure.
type Target struct {
	Name string
	// Region is an optional label (runner or region) that merge keeps apart.
	Region string
	// BaseURL is the API root ending in /v1, or "sim" / "sim:PROFILE[?k=v&...]"
	// for the built-in simulator.
	BaseURL   string
	Model     string
	APIKeyEnv string // default OPENAI_API_KEY
	MaxTokens int    // default 64
	// Temperature is nil when not set (the server's default applies).
	Temperature *float64
	Headers     map[string]string
	// Extra holds extra body fields merged into each request (vLLM, llama.cpp,
	// Ollama options such as top_k or ignore_eos).
	Extra map[string]any
	// IncludeUsage sends stream_options.include_usage (default true).
	IncludeUsage bool
	// MaxErrorRate is the error budget: over it the run fails (exit 3).
	MaxErrorRate float64 // default 0.05
	Line         int     // line of the target in the config file
	// API is the wire format the target speaks: APIChat (also when empty),
	// APIResponses, APIAnthropic, APIGemini, APISSE or APINDJSON (see
	// schema_api.go).
	API string
	// SSE describes the stream of an APISSE target; nil for the others.
	SSE *SSE
	// NDJSON describes the stream of an APINDJSON target; nil for the
	// others.
	NDJSON *NDJSON
	// SLO is the objective of the target's prompts that set none.
	SLO *SLO
	// Price is what the target's tokens cost (nil: no price, no cost).
	Price *Price
	// Serve is the server latgate starts for the target and stops after
	// measuring it (nil: the endpoint is already running).
	Serve *Serve
}

// IsSim reports whether the target is the built-in simulator.
func (t Target) IsSim() bool {
	return t.BaseURL == "sim" || len(t.BaseURL) > 4 && t.BaseURL[:4] == "sim:"
}

// SimSpec returns the simulator profile spec ("" for the default profile).
func (t Target) SimSpec() string {
	if len(t.BaseURL) > 4 {
		return t.BaseURL[4:]
	}
	return ""
}

// Message is one chat message.
type Message struct {
	Role    string `json:"role" yaml:"role"`
	Content string `json:"content" yaml:"content"`
	Name    string `json:"name,omitempty" yaml:"name,omitempty"`
	// Cache marks a prompt-cache breakpoint after this message: the
	// Anthropic API caches the prompt up to here (cache_control); the other
	// APIs cache on their own and ignore it.
	Cache bool `json:"cache,omitempty" yaml:"cache,omitempty"`
}

// Tool is a function the model may call, declared with the prompt.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Parameters is the JSON Schema of the arguments (an object schema).
	Parameters map[string]any `json:"parameters,omitempty"`
}

// Prompt is one entry of the fixed prompt set.
type Prompt struct {
	ID           string
	Messages     []Message
	MessagesFile string // as written in the config (relative to Dir)
	// Hash is the canonical hash of the messages (sha256 of their canonical
	// JSON, hex, first 16 characters): it changes when the text changes,
	// and with the tools and tool choice when there are any.
	Hash string
	Line int
	// Tools are the functions the model may call; ToolChoice is "" (the
	// API's default), "auto", "required", "none" or the name of one tool.
	Tools      []Tool
	ToolChoice string
	// Cache is the prompt's cache mode: results.CacheWarm (prime the
	// provider's prompt cache, then measure, expecting hits),
	// results.CacheCold (a nonce opens every request's prompt, so none
	// hits), or "" (as the endpoint does). It is part of Hash.
	Cache string
	// SLO is the prompt's objective (nil: its target's, see SLOFor).
	SLO *SLO
	// Steps makes the prompt an agent chain: each step's messages are sent
	// after the previous step's answer, which goes before them as an
	// assistant turn, the conversation growing as an agent loop's does.
	// Messages is then the first step's. Nil for a prompt of one request;
	// part of Hash.
	Steps [][]Message
}

// IsChain reports whether the prompt is an agent chain (steps:).
func (pr Prompt) IsChain() bool { return len(pr.Steps) > 1 }

// Run holds the run settings.
type Run struct {
	Requests int // measured requests per target × prompt (default 60: P95 needs 59); check's first look
	// MaxRequests caps check's sequential looks: prompts with undecided
	// checks are measured again, in rounds, up to this many requests
	// (0: 2.5 × Requests; equal to Requests turns the looks off). Use Cap.
	MaxRequests int
	// BlessRequests is what bless measures per target × prompt (0:
	// 4 × Requests): the baseline's noise enters every later comparison.
	// Use BlessN.
	BlessRequests int
	Warmup        int           // warmup requests per target × prompt, never measured (default 2)
	Concurrency   int           // closed-loop workers per target (default 1)
	Timeout       time.Duration // per request (default 60s)
	Order         string        // "interleave" (default) or "shuffle"
	Seed          int64         // for order "shuffle" and arrival "poisson" (default 1)
	// Rate, when not 0, makes the run an open loop: the measured requests
	// of a target arrive at Rate per second (Arrival's process, seeded by
	// Seed), each sent when it is due whatever the others do, up to
	// MaxInFlight open at once; every latency counts from the scheduled
	// send (see measure's Pace). Concurrency is then 1 (warmup).
	Rate float64
	// Arrival is "poisson" (default) or "constant".
	Arrival string
	// Duration, when set with Rate, sets Requests to Rate × Duration
	// spread over the prompts (rounded up); 0: Requests as given.
	Duration time.Duration
	// MaxInFlight bounds the requests open at once at a rate (default 256).
	MaxInFlight int
}

// OpenLoop reports whether the run sends at an arrival rate (run.rate).
func (r Run) OpenLoop() bool { return r.Rate > 0 }

// Cap returns the most requests per target × prompt check may take:
// MaxRequests, or 2.5 × Requests when unset (the cap the gate's calibration
// in pkg/compare was run with) up to results.MaxPromptRequests, never below
// Requests.
func (r Run) Cap() int {
	if r.MaxRequests == 0 {
		return max(min(r.Requests*5/2, results.MaxPromptRequests), r.Requests)
	}
	return max(r.MaxRequests, r.Requests)
}

// BlessN returns the requests per target × prompt bless measures:
// BlessRequests, or 4 × Requests when unset, up to
// results.MaxPromptRequests.
func (r Run) BlessN() int {
	if r.BlessRequests == 0 {
		return min(4*r.Requests, results.MaxPromptRequests)
	}
	return r.BlessRequests
}

// MostRequests returns the largest run.requests this config accepts with
// its other settings: at most results.MaxPromptRequests, and with what check's
// rounds and bless then measure (run.max_requests, run.bless_requests, or
// their defaults, which grow with run.requests) within the requests one
// target may send (RunTooLarge). A hint to raise run.requests never goes
// past it. With run.max_requests set below the result, it must be raised
// too. It returns 0 when no value is accepted (too many prompts).
func (c *Config) MostRequests() int {
	ok := func(n int) bool {
		r := c.Run
		r.Requests = n
		return RunTooLarge(n, r.Warmup, len(c.Prompts)) == "" && RunTooLarge(max(r.Cap(), r.BlessN()), r.Warmup, len(c.Prompts)) == ""
	}
	lo, hi := 0, results.MaxPromptRequests // ok(lo) or lo == 0; the answer is in [lo, hi]
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if ok(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// Gate configures the regression gate.
type Gate struct {
	Confidence float64 // confidence level of the intervals (default 0.95)
	Resamples  int     // bootstrap resamples (default 2000)
	Seed       int64   // bootstrap seed (default 1)
	Checks     []Check // what is gated; defaults: ttft p50/p95, itl p50/p95
	Overrides  []Override
	// Aggregate pools each target's prompts into one check per gated
	// metric × statistic, which decides the run (default true); the prompts'
	// own checks then only fail it, adjusted for their number (Holm).
	Aggregate bool
	// DayToDay is the day-to-day noise the gate assumes when no history
	// teaches it: σ of ln(a run's level) from one run to the next. A
	// baseline measured on another day differs from this run by √2 of it
	// beside the requests' own noise. DayToDayAuto (the default): by the
	// endpoint, see DayToDayFor.
	DayToDay float64
	// OkConfidence is the one-sided confidence of an ok: how sure the gate
	// must be that a check's change is within its tolerance before it says
	// ok (the ok end of each interval is at this level, the regression end
	// at Confidence's one-sided level). Default DefaultOkConfidence: a check
	// whose true change is exactly its tolerance passes as ok in at most
	// 10% of runs. 0: the regression end's level (symmetric intervals).
	OkConfidence float64
	// OnInconclusive is what a gated check left undecided after the last
	// planned round does to the run: OnInconclusivePass, OnInconclusiveWarn
	// (the default) or OnInconclusiveFail (as --strict).
	OnInconclusive string
	// MaxBaselineAge, when not 0, makes every report warn about a baseline
	// blessed longer ago.
	MaxBaselineAge time.Duration
}

// What an undecided gated check does to the run (gate.on_inconclusive).
const (
	OnInconclusivePass = "pass" // passes; the report says how many stayed undecided
	OnInconclusiveWarn = "warn" // passes with a warning (a ::warning annotation in Actions)
	OnInconclusiveFail = "fail" // fails (exit 1), as --strict
)

// DefaultOkConfidence is the one-sided confidence of an ok by default: 90%,
// the usual power of a test at the change it must find (β = 10%), while a
// regression is said at 97.5% (Confidence 95%, two-sided).
const DefaultOkConfidence = 0.90

// The day-to-day noise assumed without a history (σ of ln level per run),
// by where the endpoint is: 1% for one on this machine, a private network
// or the simulator, whose level moves with little but the runner; 20% for
// any other, as a hosted API's level moves with its load (30–40% over a
// day): a day's swing is then not a regression, and one run against a
// snapshot decides only a change of about double, else says undecided;
// its history teaches the real figure (the gate documentation has the
// calibration).
const (
	DefaultDayToDay       = 0.01
	DefaultDayToDayRemote = 0.20
	// DayToDayAuto is Gate.DayToDay left to the endpoint (DayToDayFor).
	DayToDayAuto = -1
)

// DayToDayFor is the day-to-day noise the gate assumes for a target at
// baseURL: the gate's day_to_day when set, else DefaultDayToDay for a
// loopback, private or link-local address, a host named localhost (or
// *.localhost, *.local) and the simulator, and DefaultDayToDayRemote for
// any other. Names are not resolved: a private host known only by a
// public-looking name gets the remote default (set day_to_day).
func (g Gate) DayToDayFor(baseURL string) float64 {
	if g.DayToDay >= 0 {
		return g.DayToDay
	}
	if LocalEndpoint(baseURL) {
		return DefaultDayToDay
	}
	return DefaultDayToDayRemote
}

// LocalEndpoint reports whether baseURL is the simulator or a host on this
// machine or a private network, by its literal address or name.
func LocalEndpoint(baseURL string) bool {
	if baseURL == "sim" || strings.HasPrefix(baseURL, "sim:") {
		return true
	}
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" {
		return false
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") || strings.HasSuffix(host, ".local") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified()
}

// Check is one gated metric × statistic with its tolerance.
type Check struct {
	Metric    string // results metric name: ttft, itl, total, tpot, ttfb, ttfct, max_stall, tokens_per_s
	Stat      string // p50, p95, p99 or mean
	Tolerance Tolerance
	// Max is an absolute limit on the statistic (`max: 800ms`), 0 for none:
	// the current run's statistic must stay at or below it, judged by its own
	// interval, with or without a baseline.
	Max time.Duration
	// MaxOnly marks a check that sets max and no tolerance: only the limit
	// is gated, no comparison with the baseline.
	MaxOnly bool
	// Min is the least share a share metric (results.ShareMetrics:
	// cache_hit_rate, slo_attainment, stream_integrity) may have, 0 for
	// none (`min: 95%`); MinOnly marks a check with min and no tolerance.
	// A share's Tolerance.Rel is in points of the share (10% = 0.10).
	Min     float64
	MinOnly bool
	// Off turns off a share check latgate makes unasked (stream_integrity
	// on every prompt, cache_hit_rate on warm ones).
	Off bool
}

// IsShare reports whether the check is of a share metric (results.IsShare).
func (c Check) IsShare() bool { return results.IsShare(c.Metric) }

// Tolerance is how much slower is still fine: a relative change AND an absolute
// floor. A change smaller than the floor is never a regression. A duration
// metric's floor is Floor; tokens_per_s, a rate, has its floor in tokens per
// second in FloorRate (a drop smaller than FloorRate is never a regression)
// and never a Floor.
type Tolerance struct {
	Rel       float64       // 0.15 for "15%"
	Floor     time.Duration // 20ms
	FloorRate float64       // tokens/s, tokens_per_s only
}

// MarshalJSON writes {"rel":0.15,"floor_ms":20}, the units of every file
// (and "floor_tokens_per_s" when FloorRate is set).
func (t Tolerance) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Rel       float64 `json:"rel"`
		FloorMS   float64 `json:"floor_ms"`
		FloorRate float64 `json:"floor_tokens_per_s,omitempty"`
	}{t.Rel, float64(t.Floor) / float64(time.Millisecond), t.FloorRate})
}

// UnmarshalJSON reads what MarshalJSON writes, so a comparison read back
// from a results file keeps its tolerances.
func (t *Tolerance) UnmarshalJSON(data []byte) error {
	var v struct {
		Rel       float64 `json:"rel"`
		FloorMS   float64 `json:"floor_ms"`
		FloorRate float64 `json:"floor_tokens_per_s"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	t.Rel, t.Floor = v.Rel, time.Duration(math.Round(v.FloorMS*float64(time.Millisecond)))
	t.FloorRate = v.FloorRate
	return nil
}

// Override replaces the tolerance of one check for one prompt.
type Override struct {
	Prompt    string
	Metric    string
	Stat      string
	Tolerance Tolerance
	Line      int
}

// ToleranceFor returns the tolerance of a check for a prompt, honouring overrides.
func (g Gate) ToleranceFor(prompt string, c Check) Tolerance {
	for _, o := range g.Overrides {
		if o.Prompt == prompt && o.Metric == c.Metric && o.Stat == c.Stat {
			return o.Tolerance
		}
	}
	return c.Tolerance
}
