package results

import (
	"strings"

	"github.com/latgate/latgate/pkg/stats"
)

// This file holds what a comparison records of why a check moved (a
// check's attribution, written by the diagnosis and kept in the results
// file's comparison) and the per-request stream-integrity classes the gate
// and the diagnosis both read.

// Kinds of cause, in the order a line names them (output tokens first for
// the metrics of the decode: total, itl, tpot, tokens_per_s, max_stall).
const (
	KindBuffered     = "buffered"      // the stream arrives in one burst
	KindOneChunk     = "one_chunk"     // the answer arrives in one event
	KindCache        = "cache"         // the share of prompt tokens served from the cache
	KindPromptTokens = "prompt_tokens" // the input's length
	KindQueueing     = "queueing"      // the wait before the first byte
	KindRateLimit    = "rate_limit"    // requests that got an HTTP 429
	KindErrors       = "errors"        // requests that failed otherwise
	KindDNS          = "dns"
	KindConnect      = "connect"
	KindTLS          = "tls"
	KindReuse        = "reuse"         // requests on a reused connection
	KindOutputTokens = "output_tokens" // the answer's length
	KindModel        = "model"         // the returned model
	KindFingerprint  = "fingerprint"   // the returned system fingerprint
	KindStep         = "step"          // the step of an agent chain that got slower or faster
)

// NoCause is the line of an attribution that found nothing.
const NoCause = "no recorded cause moved"

// Cause is one recorded quantity that moved with a check: its kind, the
// value on each side (a median per request, a share, or a mean in ms, as
// Text says) and, for a model or fingerprint, the sanitised names.
type Cause struct {
	Kind     string  `json:"kind"`
	Baseline float64 `json:"baseline,omitempty"`
	Current  float64 `json:"current,omitempty"`
	From     string  `json:"from,omitempty"`
	To       string  `json:"to,omitempty"`
	// Text is the cause in words: "input got longer: 1,210 → 2,430 prompt
	// tokens".
	Text string `json:"text"`
}

// Said reports whether the cause quotes the endpoint (a model or a
// fingerprint name), which an annotation does not carry.
func (c Cause) Said() bool { return c.From != "" || c.To != "" }

// Attribution is what moved with one check; no causes means nothing did.
type Attribution struct {
	Causes []Cause `json:"causes,omitempty"`
}

// Line is the attribution as one line: its causes joined by "; ", or
// NoCause.
func (a Attribution) Line() string {
	if len(a.Causes) == 0 {
		return NoCause
	}
	texts := make([]string, len(a.Causes))
	for i, c := range a.Causes {
		texts[i] = c.Text
	}
	return strings.Join(texts, "; ")
}

// Plain is Line in latgate's words only: a cause that quotes the endpoint
// says what changed, not the names (for annotations).
func (a Attribution) Plain() string {
	if len(a.Causes) == 0 {
		return NoCause
	}
	texts := make([]string, len(a.Causes))
	for i, c := range a.Causes {
		texts[i] = c.Text
		if c.Said() {
			texts[i] = plainText[c.Kind] + " (see the report)"
		}
	}
	return strings.Join(texts, "; ")
}

var plainText = map[string]string{
	KindModel:       "the endpoint returned another model",
	KindFingerprint: "the system fingerprint changed",
}

// # Stream integrity
//
// A stream is worth measuring token by token only while it arrives token
// by token. A buffering proxy holds the events and sends them in one burst
// at the end (TTFT ≈ total, every gap ≈ 0); fake streaming sends the whole
// answer in one event that carries many tokens. Per request, Burst and
// OneChunk classify what arrived; Streamed is its opposite.

// BurstShare is the largest share of a request's total time its decode
// (first token to last) may take for the request to count as one burst:
// the first token came within 5% of the end.
const BurstShare = 0.05

// BurstGapMS is the largest median gap between token events of a burst, in
// milliseconds: 50 µs is 20,000 tokens/s, which no model decodes at; events
// read from one buffer come microseconds apart. A short decode after a
// long wait (8 tokens 1 ms apart after 400 ms) is within BurstShare but
// not a burst: it streamed.
const BurstGapMS = 0.05

// OneChunkTokens is the fewest output tokens (as the endpoint's usage
// counts them) a single token-bearing event must carry to count as fake
// streaming.
const OneChunkTokens = 8

// Burst reports whether a request's tokens arrived in one burst: at least
// two token events, whose decode span (first to last) is at most
// BurstShare of its total and whose median gap is at most BurstGapMS.
func Burst(s *Sample) bool {
	if s.Chunks < 2 || s.Total <= 0 || len(s.ITL) == 0 {
		return false
	}
	var span float64
	for _, g := range s.ITL {
		span += g
	}
	return span <= BurstShare*s.Total && stats.Median(s.ITL) <= BurstGapMS
}

// OneChunk reports whether a request's whole answer came in one token
// event carrying at least OneChunkTokens tokens by the endpoint's usage.
func OneChunk(s *Sample) bool {
	return s.Chunks == 1 && s.TokenSource == "usage" && s.OutputTokens >= OneChunkTokens
}

// Streamed reports whether a request arrived as a stream: neither a burst
// nor one chunk of many tokens. A request of one token streams trivially.
func Streamed(s *Sample) bool { return !Burst(s) && !OneChunk(s) }
