package diagnose

import (
	"fmt"

	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

// # Stream integrity
//
// A stream is worth measuring token by token only while it arrives token
// by token. Two things between a client and a model undo that silently:
//
//   - a buffering proxy (nginx's proxy_buffering, a gateway, a middleware
//     that reads the whole body) holds the events and sends them in one
//     burst at the end: TTFT ≈ total, every gap ≈ 0;
//   - fake streaming: the whole answer comes in one event that carries
//     many tokens.
//
// Per request, Burst and OneChunk classify what arrived; Streamed is its
// opposite. The gate's stream_integrity check compares the share of
// requests that streamed with the baseline's (package compare), and
// Attribute names the burst as a cause, so that a buffered stream is its
// own finding, not only a TTFT regression.

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
func Burst(s *results.Sample) bool {
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
func OneChunk(s *results.Sample) bool {
	return s.Chunks == 1 && s.TokenSource == "usage" && s.OutputTokens >= OneChunkTokens
}

// Streamed reports whether a request arrived as a stream: neither a burst
// nor one chunk of many tokens. A request of one token streams trivially.
func Streamed(s *results.Sample) bool { return !Burst(s) && !OneChunk(s) }

// integrityCause names a stream that stopped streaming: most current
// requests burst (or came in one chunk) while at most a tenth of the
// baseline's did, beyond noise (the two-proportion test).
func integrityCause(base, cur []results.Sample) (Cause, bool) {
	for _, k := range []struct {
		kind string
		is   func(*results.Sample) bool
		text string
	}{
		{KindBuffered, Burst, "the stream is buffered: something between you and the model holds it until the end (the first token came within 5%% of the end in %s of requests; baseline %s)"},
		{KindOneChunk, OneChunk, "the stream is not streamed: the whole answer comes in one chunk (%s of requests; baseline %s)"},
	} {
		nb, nc := count(base, k.is), count(cur, k.is)
		pb, pc, moved := proportions(nb, len(base), nc, len(cur))
		if moved && pc >= 0.5 && pb <= 0.1 {
			return Cause{Kind: k.kind, Baseline: pb, Current: pc, Text: fmt.Sprintf(k.text, share(pc), share(pb))}, true
		}
	}
	return Cause{}, false
}

func count(ss []results.Sample, is func(*results.Sample) bool) int {
	n := 0
	for i := range ss {
		if is(&ss[i]) {
			n++
		}
	}
	return n
}
