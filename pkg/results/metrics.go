package results

import (
	"math"

	"github.com/latgate/latgate/pkg/stats"
)

// Values returns the per-request values of a metric over samples, in
// milliseconds (tokens per second for TokensPerS). For ITL it returns every
// gap of every request, pooled. Samples without the metric (ttfct with no
// content token, tpot and tokens_per_s with fewer than two tokens) are skipped.
func Values(samples []Sample, metric string) []float64 {
	n := len(samples)
	if metric == ITL {
		n = 0
		for i := range samples {
			n += len(samples[i].ITL)
		}
	}
	out := make([]float64, 0, n)
	for i := range samples {
		s := &samples[i]
		switch {
		case metric == ITL:
			out = append(out, s.ITL...)
		case Has(s, metric):
			out = append(out, Value(s, metric))
		}
	}
	return out
}

// Has reports whether one request has a value of a per-request metric: ttfct
// needs a content token; tpot and tokens_per_s need two tokens and a decode
// time; itl (many values per request) and unknown names have none.
func Has(s *Sample, metric string) bool {
	switch metric {
	case TTFB, TTFT, Total, MaxStall:
		return true
	case TTFCT:
		return s.HasContent
	case TPOT, TokensPerS:
		return s.OutputTokens >= 2 && s.TPOT > 0
	case ChainTotal, ChainTTFTLast:
		return len(s.Steps) > 0
	}
	return false
}

// Value returns one request's value of a per-request metric; NaN for ITL,
// which has many values per request, and for unknown names.
func Value(s *Sample, metric string) float64 {
	switch metric {
	case TTFB:
		return s.TTFB
	case TTFT:
		return s.TTFT
	case TTFCT:
		return s.TTFCT
	case TPOT:
		return s.TPOT
	case Total:
		return s.Total
	case MaxStall:
		return s.MaxStall
	case TokensPerS:
		return s.TokensPerS
	case ChainTotal:
		return s.ChainTotal
	case ChainTTFTLast:
		return s.ChainTTFTLast
	}
	return math.NaN()
}

// MetricsOf summarizes samples into every metric's summary (type-7 percentiles).
func MetricsOf(samples []Sample) Metrics {
	var m Metrics
	for _, name := range metricNames {
		sum := stats.Summarize(Values(samples, name))
		if sum.N == 0 {
			continue
		}
		sum.P50, sum.P95, sum.P99 = micro(sum.P50), micro(sum.P95), micro(sum.P99)
		sum.Mean, sum.Min, sum.Max = micro(sum.Mean), micro(sum.Min), micro(sum.Max)
		if name == TokensPerS {
			m.TokensPerS = &RateSummary{N: sum.N, P50: sum.P50, P95: sum.P95, P99: sum.P99, Mean: sum.Mean, Min: sum.Min, Max: sum.Max}
			continue
		}
		*m.slot(name) = &Summary{N: sum.N, P50: sum.P50, P95: sum.P95, P99: sum.P99, Mean: sum.Mean, Min: sum.Min, Max: sum.Max}
	}
	return m
}

// Get returns the summary of a duration metric, nil when absent.
func (m Metrics) Get(metric string) *Summary {
	if p := m.slot(metric); p != nil {
		return *p
	}
	return nil
}

// slot is where a duration metric's summary lives; nil for other names.
func (m *Metrics) slot(metric string) **Summary {
	switch metric {
	case TTFB:
		return &m.TTFB
	case TTFT:
		return &m.TTFT
	case TTFCT:
		return &m.TTFCT
	case ITL:
		return &m.ITL
	case TPOT:
		return &m.TPOT
	case Total:
		return &m.Total
	case MaxStall:
		return &m.MaxStall
	case ChainTotal:
		return &m.ChainTotal
	case ChainTTFTLast:
		return &m.ChainTTFTLast
	}
	return nil
}

// micro rounds milliseconds to microseconds (and rates to 0.001/s): finer
// digits are clock noise, and they would make every file diff noisy.
func micro(x float64) float64 { return math.Round(x*1000) / 1000 }
