package diagnose

import (
	"fmt"

	"github.com/latgate/latgate/pkg/results"
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
// Per request, results.Burst and results.OneChunk classify what arrived;
// results.Streamed is their opposite. The gate's stream_integrity check compares the share of
// requests that streamed with the baseline's (package compare), and
// Attribute names the burst as a cause, so that a buffered stream is its
// own finding, not only a TTFT regression.

// integrityCause names a stream that stopped streaming: most current
// requests burst (or came in one chunk) while at most a tenth of the
// baseline's did, beyond noise (the two-proportion test).
func integrityCause(base, cur []results.Sample) (results.Cause, bool) {
	for _, k := range []struct {
		kind string
		is   func(*results.Sample) bool
		text string
	}{
		{results.KindBuffered, results.Burst, "the stream is buffered: something between you and the model holds it until the end (the first token came within 5%% of the end in %s of requests; baseline %s)"},
		{results.KindOneChunk, results.OneChunk, "the stream is not streamed: the whole answer comes in one chunk (%s of requests; baseline %s)"},
	} {
		nb, nc := count(base, k.is), count(cur, k.is)
		pb, pc, moved := proportions(nb, len(base), nc, len(cur))
		if moved && pc >= 0.5 && pb <= 0.1 {
			return results.Cause{Kind: k.kind, Baseline: pb, Current: pc, Text: fmt.Sprintf(k.text, share(pc), share(pb))}, true
		}
	}
	return results.Cause{}, false
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
