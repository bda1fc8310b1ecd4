package sim

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"
)

type preset struct {
	name, about string
	p           Profile
}

// presets returns the named profiles, default first.
func presets() []preset {
	def := Profile{
		// A TTFT well above the example gate's 20 ms floor, so a rehearsed
		// slowdown is judged by the relative tolerance, as on a real API.
		TTFT:      Dist{Median: 120 * time.Millisecond, Sigma: 0.25},
		ITL:       Dist{Median: 4 * time.Millisecond, Sigma: 0.2},
		Tokens:    24,
		RoleChunk: true,
		Usage:     true,
		Seed:      1,
	}
	fixed := def
	fixed.TTFT = Dist{Median: 50 * time.Millisecond}
	fixed.ITL = Dist{Median: 5 * time.Millisecond}
	fixed.Tokens = 64
	fixed.Spin = time.Millisecond
	fast := def
	fast.TTFT = Dist{Median: 2 * time.Millisecond}
	fast.ITL = Dist{Median: time.Millisecond}
	fast.Tokens = 8
	reasoning := def
	reasoning.Reasoning = 8
	reasoning.ReasoningField = ReasoningPlain
	ollama := def
	ollama.Style = StyleOllama
	ollama.RoleChunk = false
	ollama.ReasoningField = ReasoningPlain
	ollama.TTFT = Dist{Median: 10 * time.Millisecond, Sigma: 0.3}
	ollama.ITL = Dist{Median: 3 * time.Millisecond, Sigma: 0.4}
	return []preset{
		{"default", "lognormal: realistic but quick", def},
		{"fixed", "no jitter, spinning waits: for accuracy tests", fixed},
		{"fast", "a few ms per answer: for tests", fast},
		{"reasoning", `8 "reasoning" chunks before the content`, reasoning},
		{"ollama", "Ollama's chunk shapes (role in every chunk, no role-only chunk)", ollama},
	}
}

// Presets returns the names of the preset profiles, "default" first.
func Presets() []string {
	ps := presets()
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.name
	}
	return names
}

// Preset returns the named preset profile ("" is "default").
func Preset(name string) (Profile, error) {
	if name == "" {
		name = "default"
	}
	for _, p := range presets() {
		if p.name == name {
			return p.p, nil
		}
	}
	return Profile{}, fmt.Errorf("sim: unknown profile %q (valid: %s)", name, strings.Join(Presets(), ", "))
}

// key is one spec override.
type key struct {
	name, about string
	set         func(p *Profile, v string) error
}

func keys() []key {
	return []key{
		{"ttft", "median time to first token (duration)", durArg(func(p *Profile) *time.Duration { return &p.TTFT.Median })},
		{"ttft_sigma", "lognormal σ of the TTFT, 0 = fixed", sigmaArg(func(p *Profile) *float64 { return &p.TTFT.Sigma })},
		{"itl", "median inter-token latency (duration)", durArg(func(p *Profile) *time.Duration { return &p.ITL.Median })},
		{"itl_sigma", "lognormal σ of the ITL, 0 = fixed", sigmaArg(func(p *Profile) *float64 { return &p.ITL.Sigma })},
		{"itl_request_sigma", "lognormal σ of a per-request factor on all of a stream's gaps (correlated gaps)", sigmaArg(func(p *Profile) *float64 { return &p.ITLRequestSigma })},
		{"ttft_spike", "probability that a TTFT is a spike, e.g. 0.02", probArg(func(p *Profile) *float64 { return &p.TTFT.Spike })},
		{"itl_spike", "probability that a token gap is a spike, e.g. 0.02", probArg(func(p *Profile) *float64 { return &p.ITL.Spike })},
		{"spike_x", "a spike's factor on the TTFT and gaps (default 4)", factorArg(func(p *Profile) *float64 { return &p.ITL.SpikeX }, func(p *Profile) *float64 { return &p.TTFT.SpikeX })},
		{"slow_prob", "probability that a block of slow_len consecutive requests is slow", probArg(func(p *Profile) *float64 { return &p.Slow.Prob })},
		{"slow_len", "requests per slow block (default 20)", intArg(func(p *Profile) *int { return &p.Slow.Len }, 1_000_000)},
		{"slow_x", "factor on every delay of a request in a slow block or after slow_after (default 1.5)", factorArg(func(p *Profile) *float64 { return &p.Slow.X })},
		{"level_jump", "the level of every other level_period of wall time: every delay jumps between ×1 and ×this (e.g. 1.3)", factorArg(func(p *Profile) *float64 { return &p.Level.X })},
		{"level_period", "how long each level lasts (duration, default 1.5s)", durArg(func(p *Profile) *time.Duration { return &p.Level.Period })},
		{"slow_after", "every request after this many (counted from 1, warmup included) is slow by slow_x: a step", intArg(func(p *Profile) *int { return &p.Slow.After }, math.MaxInt32)},
		{"serial", "serve one chat request at a time, the others waiting, as Ollama by default (bool)", boolArg(func(p *Profile) *bool { return &p.Serial })},
		{"capacity", "chat requests served at once, the others queued first come first served (0 = no limit): the server's knee under load", intArg(func(p *Profile) *int { return &p.Capacity }, 1_000_000)},
		{"batch_itl", "a request admitted while n others are served has its token gaps × (1 + batch_itl × n): a decode batch that slows as it grows", func(p *Profile, v string) error {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil || x < 0 || x > 10 {
				return fmt.Errorf("want a number from 0 to 10")
			}
			p.BatchITL = x
			return nil
		}},
		{"stall", "a server stall: nothing is sent for this long, stall_at after the first request (duration)", durArg(func(p *Profile) *time.Duration { return &p.Stall })},
		{"stall_at", "when the stall starts, after the server's first request (duration, default 0)", durArg(func(p *Profile) *time.Duration { return &p.StallAt })},
		{"tokens", "content tokens per answer", intArg(func(p *Profile) *int { return &p.Tokens }, maxTokens)},
		{"role_chunk", "send a role-only chunk with the headers (bool)", boolArg(func(p *Profile) *bool { return &p.RoleChunk })},
		{"header_delay", "delay before the response headers (duration)", durArg(func(p *Profile) *time.Duration { return &p.HeaderDelay.Median })},
		{"buffer", "hold every event after the headers and flush them all at the end, as a buffering proxy does (bool)", boolArg(func(p *Profile) *bool { return &p.Buffer })},
		{"keepalive", `": keep-alive" comment after this much silence, 0 = none`, durArg(func(p *Profile) *time.Duration { return &p.KeepAlive })},
		{"reasoning", "reasoning chunks before the content", intArg(func(p *Profile) *int { return &p.Reasoning }, maxTokens)},
		{"reasoning_field", "reasoning_content or reasoning", oneOf(func(p *Profile) *string { return &p.ReasoningField }, ReasoningContent, ReasoningPlain)},
		{"style", "chunk shapes: openai or ollama", oneOf(func(p *Profile) *string { return &p.Style }, StyleOpenAI, StyleOllama)},
		{"usage", "send usage when include_usage is asked (bool)", boolArg(func(p *Profile) *bool { return &p.Usage })},
		{"cached_tokens", "usage.prompt_tokens_details.cached_tokens", intArg(func(p *Profile) *int { return &p.CachedTokens }, math.MaxInt32)},
		{"cache", "a prompt cache: on (a prefix cache of the prompts seen, hits reported in each API's usage) or off (nothing is cached)", oneOf(func(p *Profile) *string { return &p.Cache }, CacheOn, CacheOff)},
		{"prefill", "TTFT added per prompt token not served from the cache (duration, e.g. 100us)", durArg(func(p *Profile) *time.Duration { return &p.Prefill })},
		{"chain_step", "the step of every agent chain (counted from 1: a request holding N-1 assistant turns) that chain_step_delay slows", intArg(func(p *Profile) *int { return &p.ChainStep }, 1000)},
		{"chain_step_delay", "TTFT added to step chain_step of every agent chain (duration)", durArg(func(p *Profile) *time.Duration { return &p.ChainStepDelay })},
		{"swap", "TTFT added to a request for another model than the one served last: a server that holds one model at a time (duration)", durArg(func(p *Profile) *time.Duration { return &p.Swap })},
		{"slowdown", "multiplies every delay (> 0)", factorArg(func(p *Profile) *float64 { return &p.Slowdown })},
		{"cold", "a cold start: the first this many requests served are slower, from cold_x down to ×1", intArg(func(p *Profile) *int { return &p.Cold }, 1_000_000)},
		{"cold_x", "the cold start's factor on the first request's delays (default 3)", factorArg(func(p *Profile) *float64 { return &p.ColdX })},
		{"ttft_factor", "multiplies the TTFT only (> 0)", factorArg(func(p *Profile) *float64 { return &p.TTFTFactor })},
		{"seed", "seed of the drawn delays (uint64)", func(p *Profile, v string) error {
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return fmt.Errorf("want an unsigned integer")
			}
			p.Seed = n
			return nil
		}},
		{"spin", "busy-wait the last part of each wait for precision (duration)", durArg(func(p *Profile) *time.Duration { return &p.Spin })},
		{"require_key", "answer 401 unless Authorization is Bearer <key>", func(p *Profile, v string) error {
			p.RequireKey = v
			return nil
		}},
		{"fault", "a fault (below), empty for none", oneOf(func(p *Profile) *string { return &p.Fault }, append([]string{""}, Faults()...)...)},
		{"fault_every", "fault every Nth request (0 or 1 = all)", intArg(func(p *Profile) *int { return &p.FaultEvery }, math.MaxInt32)},
		{"fault_after", "token chunks before a mid-stream fault", intArg(func(p *Profile) *int { return &p.FaultAfter }, maxTokens)},
		{"retry_after", "Retry-After of a 429 (duration, whole seconds)", durArg(func(p *Profile) *time.Duration { return &p.RetryAfter })},
	}
}

func keyNames() string {
	ks := keys()
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = k.name
	}
	return strings.Join(names, ", ")
}

// ParseSpec parses a simulator spec: a preset name ("" is "default"),
// optionally followed by ?key=value&... overrides, for example
// "default?ttft=80ms&slowdown=1.6" or "fast?fault=429&fault_every=5".
// Values may be URL-escaped. Durations need a unit (80ms, 1.5s).
func ParseSpec(spec string) (Profile, error) {
	name, query, _ := strings.Cut(spec, "?")
	p, err := Preset(name)
	if err != nil {
		return Profile{}, err
	}
	if query == "" {
		return p, nil
	}
	ks := keys()
	seen := map[string]bool{}
	for kv := range strings.SplitSeq(query, "&") {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		v, err := url.PathUnescape(v) // "+" stays "+" (a key may hold one)
		if err != nil {
			return Profile{}, fmt.Errorf("sim spec %q: %s: bad escape: %w", spec, k, err)
		}
		i := indexKey(ks, k)
		if i < 0 {
			return Profile{}, fmt.Errorf("sim spec %q: unknown key %q (valid: %s)", spec, k, keyNames())
		}
		if seen[k] {
			return Profile{}, fmt.Errorf("sim spec %q: key %q given twice", spec, k)
		}
		seen[k] = true
		if err := ks[i].set(&p, v); err != nil {
			return Profile{}, fmt.Errorf("sim spec %q: %s=%q: %w", spec, k, v, err)
		}
	}
	if err := p.Validate(); err != nil {
		return Profile{}, fmt.Errorf("sim spec %q: %w", spec, err)
	}
	return p, nil
}

func indexKey(ks []key, name string) int {
	for i, k := range ks {
		if k.name == name {
			return i
		}
	}
	return -1
}

// Describe returns help text on presets, spec keys and faults, for --help.
func Describe() string {
	var b strings.Builder
	b.WriteString("Simulator spec: PRESET[?key=value&...], e.g. default?ttft=80ms&slowdown=1.6\n\nPresets:\n")
	for _, p := range presets() {
		fmt.Fprintf(&b, "  %-10s TTFT %v, ITL %v, %d tokens: %s\n", p.name, p.p.TTFT, p.p.ITL, p.p.Tokens, p.about)
	}
	b.WriteString("\nKeys:\n")
	for _, k := range keys() {
		fmt.Fprintf(&b, "  %-16s %s\n", k.name, k.about)
	}
	b.WriteString("\nFaults (fault=NAME; mid-stream ones after fault_after tokens):\n")
	for _, f := range faultHelp() {
		fmt.Fprintf(&b, "  %-16s %s\n", f[0], f[1])
	}
	return b.String()
}

func durArg(field func(*Profile) *time.Duration) func(*Profile, string) error {
	return func(p *Profile, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return fmt.Errorf("want a duration ≥ 0 with a unit, such as 80ms")
		}
		*field(p) = d
		return nil
	}
}

func intArg(field func(*Profile) *int, hi int) func(*Profile, string) error {
	return func(p *Profile, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > hi {
			return fmt.Errorf("want an integer in [0, %d]", hi)
		}
		*field(p) = n
		return nil
	}
}

func boolArg(field func(*Profile) *bool) func(*Profile, string) error {
	return func(p *Profile, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("want true or false")
		}
		*field(p) = b
		return nil
	}
}

func sigmaArg(field func(*Profile) *float64) func(*Profile, string) error {
	return func(p *Profile, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f >= 0 && f <= 3) {
			return fmt.Errorf("want a number in [0, 3]")
		}
		*field(p) = f
		return nil
	}
}

func factorArg(fields ...func(*Profile) *float64) func(*Profile, string) error {
	return func(p *Profile, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f > 0) || math.IsInf(f, 0) {
			return fmt.Errorf("want a number > 0")
		}
		for _, field := range fields {
			*field(p) = f
		}
		return nil
	}
}

func probArg(field func(*Profile) *float64) func(*Profile, string) error {
	return func(p *Profile, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f >= 0 && f <= 1) {
			return fmt.Errorf("want a probability in [0, 1]")
		}
		*field(p) = f
		return nil
	}
}

func oneOf(field func(*Profile) *string, valid ...string) func(*Profile, string) error {
	return func(p *Profile, v string) error {
		for _, ok := range valid {
			if v == ok {
				*field(p) = v
				return nil
			}
		}
		return fmt.Errorf("want one of %q", valid)
	}
}
