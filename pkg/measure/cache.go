package measure

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// # Cache-aware prompts
//
// A provider's prompt cache serves the prefix of a prompt it has seen
// before, so the TTFT of a prompt depends on what was sent before it. A
// prompt's cache: says which TTFT to measure:
//
//   - cold: every request must miss. The first system message (else the
//     first message) opens with a nonce, fresh per request, so no two
//     requests share a prefix; the nonce is written into the request body
//     at send time, for every API alike (noncePlaceholder).
//   - warm: every measured request should hit. Before measuring, the prompt
//     is sent at least once unmeasured (a warmup request, or one priming
//     request when run.warmup is 0), and the gate's cache_hit_rate check
//     expects the hits.
//
// Without cache:, requests go as they are, cache or not.

// noncePlaceholder opens a cold prompt's first message as it is built;
// post replaces it in each request's body with a fresh nonce of the
// same length (hex digits: no JSON escaping can split it).
const noncePlaceholder = "[nonce 0000000000000000] "

// withNonces returns prompts with the placeholder at the start of each cold
// prompt's first system message (else its first message), and which are
// cold. prompts is not modified.
func withNonces(prompts []config.Prompt) ([]config.Prompt, []bool) {
	cold := make([]bool, len(prompts))
	out := slices.Clone(prompts)
	for i, p := range out {
		if p.Cache != results.CacheCold || len(p.Messages) == 0 {
			continue
		}
		cold[i] = true
		msgs := slices.Clone(p.Messages)
		k := max(0, slices.IndexFunc(msgs, func(m config.Message) bool { return m.Role == "system" }))
		msgs[k].Content = noncePlaceholder + msgs[k].Content
		out[i].Messages = msgs
	}
	return out, cold
}

// nonced returns a copy of body with a fresh nonce over the placeholder
// (body, a prompt's body built once, is not modified).
func nonced(body []byte) []byte {
	body = bytes.Clone(body)
	ph := []byte(noncePlaceholder)
	if i := bytes.Index(body, ph); i >= 0 {
		v := strconv.FormatUint(rand.Uint64(), 16)
		copy(body[i+len("[nonce ")+16-len(v):], v) // right-aligned over the zeros
	}
	return body
}

// primeJobs returns one unmeasured request for every warm prompt when the
// run has no warmup requests (with warmup, they prime the cache).
func primeJobs(prompts []config.Prompt, warmup int) []job {
	if warmup > 0 {
		return nil
	}
	var out []job
	for i, p := range prompts {
		if p.Cache == results.CacheWarm {
			out = append(out, job{prompt: i})
		}
	}
	return out
}
