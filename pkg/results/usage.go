package results

// Usage tallies the tokens the requests of a run sent to one target
// reported (the endpoint's usage: prompt, cached and output tokens), for
// the cost of a run (internal/cost). It counts every request sent: priming,
// warmup and measured ones, failed ones too; a request whose usage is not
// known (no usage report, a failure) counts in Unknown, never as an
// estimate. Output tokens counted from chunks are not usage.
type Usage struct {
	// Requests is the requests sent; Unknown how many of them reported no
	// usage (their tokens are in no sum).
	Requests int `json:"requests"`
	Unknown  int `json:"unknown,omitempty"`
	// PromptTokens are the prompt tokens of the requests that reported
	// usage, CachedTokens those of them served from the prompt cache,
	// CacheWriteTokens those written to it (Anthropic's
	// cache_creation_input_tokens, part of its prompt tokens).
	PromptTokens     int64 `json:"prompt_tokens"`
	CachedTokens     int64 `json:"cached_tokens,omitempty"`
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
	OutputTokens     int64 `json:"output_tokens"`
}

// Known reports whether a sample's usage was reported by the endpoint:
// its output tokens come from usage, not from counted chunks.
func (s *Sample) Known() bool { return s.TokenSource == "usage" }

// Add counts one request: s its sample (nil for a failed request, whose
// usage latgate does not record).
func (u *Usage) Add(s *Sample) {
	u.Requests++
	if s == nil || !s.Known() {
		u.Unknown++
		return
	}
	u.PromptTokens += int64(s.PromptTokens)
	cached := min(s.CachedTokens, s.PromptTokens)
	u.CachedTokens += int64(cached)
	u.CacheWriteTokens += int64(min(s.CacheCreationTokens, s.PromptTokens-cached))
	u.OutputTokens += int64(s.OutputTokens)
}

// Plus returns u and v added up; nil stays nil only when both are.
func (u *Usage) Plus(v *Usage) *Usage {
	if u == nil && v == nil {
		return nil
	}
	var w Usage
	for _, x := range []*Usage{u, v} {
		if x != nil {
			w.Requests += x.Requests
			w.Unknown += x.Unknown
			w.PromptTokens += x.PromptTokens
			w.CachedTokens += x.CachedTokens
			w.CacheWriteTokens += x.CacheWriteTokens
			w.OutputTokens += x.OutputTokens
		}
	}
	return &w
}
