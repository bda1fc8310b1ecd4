package diagnose

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/results"
)

// streamed is a request of n token events ttft ms after the send, gap ms
// apart; burst is one whose events all came at its end.
func streamed(n int, ttft, gap float64) results.Sample {
	s := results.Sample{TTFT: ttft, Chunks: n, OutputTokens: n, TokenSource: "usage"}
	for range n - 1 {
		s.ITL = append(s.ITL, gap)
	}
	s.Total = ttft + float64(n-1)*gap + 1
	return s
}

func TestStreamClass(t *testing.T) {
	oneChunk := results.Sample{TTFT: 400, Total: 401, Chunks: 1, OutputTokens: 120, TokenSource: "usage"}
	counted := oneChunk
	counted.OutputTokens, counted.TokenSource = 1, "chunks"
	for _, tc := range []struct {
		name                    string
		s                       results.Sample
		burst, oneChunk, stream bool
	}{
		{"a stream", streamed(24, 120, 4), false, false, true},
		{"a burst: 24 events within 0.1 ms", streamed(24, 400, 0.004), true, false, false},
		// A short decode after a long TTFT is within the 5% rule, but its
		// gaps are a model's: it streamed.
		{"a fast decode after a long wait", streamed(8, 400, 1), false, false, true},
		{"gaps of 50 µs within 5%", streamed(8, 400, 0.05), true, false, false},
		{"one token", streamed(1, 120, 0), false, false, true},
		{"one chunk of 120 tokens", oneChunk, false, true, false},
		{"one chunk counted, no usage", counted, false, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.s
			got := []bool{results.Burst(&s), results.OneChunk(&s), results.Streamed(&s)}
			if diff := cmp.Diff([]bool{tc.burst, tc.oneChunk, tc.stream}, got); diff != "" {
				t.Errorf("burst, one chunk, streamed (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIntegrityCause(t *testing.T) {
	many := func(s results.Sample, n int) []results.Sample {
		out := make([]results.Sample, n)
		for i := range out {
			out[i] = s
		}
		return out
	}
	stream, burst := streamed(24, 120, 4), streamed(24, 212, 0.002)
	one := results.Sample{TTFT: 212, Total: 213, Chunks: 1, OutputTokens: 24, TokenSource: "usage"}
	for _, tc := range []struct {
		name      string
		base, cur []results.Sample
		kind      string
		text      string
	}{
		{"buffered", many(stream, 60), many(burst, 30), results.KindBuffered, "the stream is buffered: something between you and the model holds it until the end (the first token came within 5% of the end in 100% of requests; baseline 0%)"},
		{"one chunk", many(stream, 60), many(one, 30), results.KindOneChunk, "the stream is not streamed: the whole answer comes in one chunk (100% of requests; baseline 0%)"},
		{"the baseline was bursts too", many(burst, 60), many(burst, 30), "", ""},
		{"a few bursts", many(stream, 60), append(many(stream, 25), many(burst, 5)...), "", ""},
		{"too few requests", many(stream, 9), many(burst, 9), "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, ok := integrityCause(tc.base, tc.cur)
			if ok != (tc.kind != "") || c.Kind != tc.kind || c.Text != tc.text {
				t.Errorf("cause %+v (%v), want kind %q text %q", c, ok, tc.kind, tc.text)
			}
		})
	}
	// In Attribute, the buffered stream leads the line.
	a := Attribute(results.TTFT, Side{Samples: many(stream, 60), Requests: 60}, Side{Samples: many(burst, 30), Requests: 30})
	if !strings.HasPrefix(a.Line(), "the stream is buffered") {
		t.Errorf("line %q does not lead with the buffered stream", a.Line())
	}
}
