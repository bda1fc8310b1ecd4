package results

import "slices"

// Share metrics: per-request shares in [0, 1] whose mean a gate checks,
// higher is better. They are not durations and not rates: a check on one
// compares its share with the baseline's in points, or holds it to a
// minimum (gate min:), judged by an interval on a proportion (package
// compare).
const (
	// CacheHitRate is the share of a request's prompt tokens served from
	// the prompt cache (cached ÷ prompt tokens, as its usage reports them).
	CacheHitRate = "cache_hit_rate"
	// SLOAttainment is the share of requests meeting every limit of the
	// prompt's SLO (its goodput).
	SLOAttainment = "slo_attainment"
	// StreamIntegrity is the share of requests that arrived as a stream:
	// neither in one burst at the end nor in one chunk of many tokens.
	StreamIntegrity = "stream_integrity"
)

// ShareMetrics returns the share metrics, in report order.
func ShareMetrics() []string { return []string{StreamIntegrity, CacheHitRate, SLOAttainment} }

// IsShare reports whether metric is a share metric.
func IsShare(metric string) bool { return slices.Contains(ShareMetrics(), metric) }

// CacheShare returns the share of a request's prompt tokens read from the
// prompt cache; false when its usage reported no prompt tokens.
func CacheShare(s *Sample) (float64, bool) {
	if s.PromptTokens <= 0 {
		return 0, false
	}
	return float64(min(max(s.CachedTokens, 0), s.PromptTokens)) / float64(s.PromptTokens), true
}

// Cache modes of a prompt (config `cache:`), recorded in Prompt.Cache.
const (
	// CacheWarm primes the provider's prefix cache before measuring, and
	// expects every measured request to hit it.
	CacheWarm = "warm"
	// CacheCold makes every request miss the cache: a unique nonce opens
	// the prompt, so cold TTFT is measured honestly.
	CacheCold = "cold"
)

// SLO is a service-level objective of a request, limits in milliseconds
// (0: no limit): a request meets it when every limit holds. ITL holds when
// at least 95% of the request's token gaps are within it.
type SLO struct {
	TTFB     float64 `json:"ttfb_ms,omitempty"`
	TTFT     float64 `json:"ttft_ms,omitempty"`
	TTFCT    float64 `json:"ttfct_ms,omitempty"`
	ITL      float64 `json:"itl_ms,omitempty"`
	TPOT     float64 `json:"tpot_ms,omitempty"`
	Total    float64 `json:"total_ms,omitempty"`
	MaxStall float64 `json:"max_stall_ms,omitempty"`
}

// ITLShare is the share of a request's token gaps that must be within an
// SLO's itl limit.
const ITLShare = 0.95

// Empty reports whether the SLO sets no limit.
func (o SLO) Empty() bool { return o == SLO{} }

// Met reports whether request s meets every limit of o. A limit on a
// metric the request has no value of (ttfct without a content token, tpot
// with one token) is not met: the objective asked for it.
func (o SLO) Met(s *Sample) bool {
	for _, l := range []struct {
		metric string
		limit  float64
	}{{TTFB, o.TTFB}, {TTFT, o.TTFT}, {TTFCT, o.TTFCT}, {TPOT, o.TPOT}, {Total, o.Total}, {MaxStall, o.MaxStall}} {
		if l.limit > 0 && (!Has(s, l.metric) || Value(s, l.metric) > l.limit) {
			return false
		}
	}
	if o.ITL > 0 && len(s.ITL) > 0 {
		within := 0
		for _, g := range s.ITL {
			if g <= o.ITL {
				within++
			}
		}
		if float64(within) < ITLShare*float64(len(s.ITL)) {
			return false
		}
	}
	return true
}
