package measure

import "github.com/latgate/latgate/pkg/results"

// A stream is bounded by what latgate asked for. An endpoint that ignores
// max_tokens (a misconfigured server, a proxy that drops the field, a
// runaway generation) would otherwise stream for as long as the request's
// timeout allows, and every token-bearing event adds a gap to the sample:
// 200,000 tokens a stream cost 195 MB of memory and a 43 MB results file
// before this bound. The read loop counts the token-bearing events and the
// bytes of every stream and stops the stream, classified as
// results.ErrOverrun with a message saying so, once either passes its
// limit. A sample therefore holds at most tokenLimit(max_tokens) - 1 gaps,
// whatever the endpoint sends, and memory and the results file stay
// proportional to what was asked.

// tokenLimit is how many token-bearing events a stream asked for maxTokens
// may carry: twice the tokens asked plus a slack. An event carries at least
// one token on every API latgate speaks (servers batch tokens into events,
// never split one token over several), so an honest stream stays under
// maxTokens events; the factor and slack leave room for servers that count
// differently (tool-call starts, a reasoning budget on top of max_tokens).
func tokenLimit(maxTokens int) int { return 2*max(maxTokens, 1) + 64 }

// byteLimit is how many bytes a stream asked for maxTokens may carry: 32 MiB
// (room for a few very large events, such as a 200 KB chunk) plus 16 KiB per
// token asked. It stops a stream that sends endless events without tokens
// (empty deltas, pings) faster than the timeout would.
func byteLimit(maxTokens int) int64 { return 32<<20 + int64(max(maxTokens, 1))*(16<<10) }

// maxPromptTokens bounds the prompt tokens one request can have: the
// largest context window models offer (10 million tokens). Usage beyond it,
// or output tokens beyond tokenLimit, is not what the request used: an
// endpoint that says so (a cache_read_input_tokens of 10^11) would price
// three requests at $300,000.
const maxPromptTokens = 10_000_000

// plausibleUsage reports whether the usage s reported could be true of one
// request asked for maxTokens: its prompt tokens, those read from and
// written to the cache included, within maxPromptTokens, and its output
// tokens within tokenLimit. Implausible usage is dropped (see read): the
// request then counts as one of unknown usage, and its tokens come from
// its chunks.
func plausibleUsage(s *results.Sample, maxTokens int) bool {
	prompt := max(s.PromptTokens, s.CachedTokens+s.CacheCreationTokens)
	return prompt <= maxPromptTokens && s.OutputTokens <= tokenLimit(maxTokens) && s.ReasoningTokens <= tokenLimit(maxTokens)
}
