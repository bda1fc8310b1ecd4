package sim

import (
	"encoding/json"
	"hash/fnv"
	"slices"
	"time"
)

// # The prompt cache
//
// With Profile.Cache "on" the simulator keeps a prefix cache as providers
// do: a prompt is cut into blocks of CacheBlock tokens (4 bytes each), and
// a request's cached tokens are the blocks of its longest prefix an earlier
// request sent (an Anthropic request with cache_control breakpoints caches
// up to its last breakpoint instead, as before). Every API reports them in
// its own usage field (chat's prompt_tokens_details.cached_tokens,
// Responses' input_tokens_details.cached_tokens, Anthropic's
// cache_read_input_tokens, Gemini's cachedContentTokenCount). With "off"
// nothing is ever cached, breakpoints or not: a server that stopped caching.
// With "" (the default) cached_tokens is the profile's fixed CachedTokens,
// as before.
//
// Prefill makes the TTFT pay for the prompt: each prompt token not served
// from the cache adds Prefill to the first token's time (the headers still
// come at once), so a longer prompt is slower and a cache hit faster.

// Cache modes, the values of Profile.Cache.
const (
	CacheFixed = ""    // cached_tokens is CachedTokens
	CacheOn    = "on"  // a prefix cache of the prompts seen
	CacheOff   = "off" // nothing is cached
)

// CacheBlock is the block of the prefix cache, in tokens: only whole
// blocks of a shared prefix are served from it.
const CacheBlock = 16

// maxBlocks bounds the prefix hashes the cache remembers.
const maxBlocks = 1 << 16

// prefixCached returns how many tokens of prompt an earlier request had
// sent (whole blocks of the longest shared prefix), and remembers its
// blocks.
func (s *Server) prefixCached(prompt string) int {
	const blockBytes = 4 * CacheBlock
	h := fnv.New64a()
	var sums []uint64
	for end := blockBytes; end <= len(prompt); end += blockBytes {
		h.Write([]byte(prompt[end-blockBytes : end]))
		sums = append(sums, h.Sum64()) // the hash of the prefix up to end
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	hit := 0
	for i, sum := range sums {
		if _, ok := s.blocks[sum]; !ok {
			break
		}
		hit = i + 1
	}
	for _, sum := range sums[hit:] {
		if len(s.blocks) >= maxBlocks {
			break
		}
		s.blocks[sum] = struct{}{}
	}
	return hit * CacheBlock
}

// cache sets a's cached and cache-creation tokens for req by the profile's
// cache mode.
func (s *Server) cache(a *answer, req simRequest) {
	switch s.p.Cache {
	case CacheOff:
		a.cached, a.cacheCreation = 0, 0
		return
	case CacheFixed:
		a.cached = min(s.p.CachedTokens, a.promptTokens)
	}
	switch {
	case req.cachePrefix != "":
		a.cached, a.cacheCreation = 0, req.cacheTokens
		if s.cacheHit(req.cachePrefix) {
			a.cached, a.cacheCreation = req.cacheTokens, 0
		}
	case s.p.Cache == CacheOn:
		a.cached = min(s.prefixCached(req.prompt), a.promptTokens)
	}
}

// prefill delays the tokens of plan by Prefill per prompt token not read
// from the cache.
func (p Profile) prefill(plan *Plan, uncached int) {
	if p.Prefill <= 0 || uncached <= 0 {
		return
	}
	delay(plan, time.Duration(uncached)*p.Prefill)
}

// textOf is the text of a JSON value in order: its strings, and of an
// object the values of the keys textSize counts (sorted by key), so the
// same prompt always gives the same text.
func textOf(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	var b []byte
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			b = append(b, x...)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				if k == "text" || k == "content" || k == "parts" || k == "input" {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			for _, k := range keys {
				walk(x[k])
			}
		}
	}
	walk(v)
	return string(b)
}
