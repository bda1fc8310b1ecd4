package results

import "slices"

// Chain metrics: the timing of an agent chain, a prompt with steps (config
// `steps:`) whose requests are sent one after another, each step waiting
// for the previous answer. They are duration metrics like the others, in
// milliseconds, larger is worse; only a chain's samples have them.
const (
	// ChainTotal is the chain's wall time: from the first step's send to
	// the last step's end, the waits between steps included.
	ChainTotal = "chain_total"
	// ChainTTFTLast is the time to the first token of the chain's last
	// step, measured from the chain's start: how long a user of the agent
	// waits before its final answer starts.
	ChainTTFTLast = "chain_ttft_last"
)

// ChainMetrics returns the chain metrics, in report order.
func ChainMetrics() []string { return []string{ChainTotal, ChainTTFTLast} }

// IsChain reports whether metric is a chain metric.
func IsChain(metric string) bool { return slices.Contains(ChainMetrics(), metric) }

// Applies reports whether a check on metric applies to prompt p: a chain
// metric only to a chain's prompt, every other metric to every prompt.
func Applies(metric string, p Prompt) bool { return !IsChain(metric) || p.Steps > 0 }

// MaxSteps bounds the steps of a chain (config and results files).
const MaxSteps = 32

// Step is one step of a chain's sample: its request's own timing, in
// milliseconds from that step's send, and when it was sent, from the
// chain's start. The sample's other fields (ttft_ms, total_ms, itl_ms, the
// token counts) are the last step's.
type Step struct {
	StartMS      float64 `json:"start_ms"`
	TTFT         float64 `json:"ttft_ms"`
	Total        float64 `json:"total_ms"`
	OutputTokens int     `json:"output_tokens"`
	PromptTokens int     `json:"prompt_tokens,omitempty"`
	Retries      int     `json:"retries,omitempty"`
}

// StepValues returns the values of step k's (0-based) ttft or total over the
// samples that have that step, in milliseconds.
func StepValues(samples []Sample, k int, metric string) []float64 {
	out := make([]float64, 0, len(samples))
	for i := range samples {
		if k >= len(samples[i].Steps) {
			continue
		}
		st := samples[i].Steps[k]
		switch metric {
		case TTFT:
			out = append(out, st.TTFT)
		case Total:
			out = append(out, st.Total)
		}
	}
	return out
}

// ChainSteps returns how many steps the samples' chain has: the most of any
// sample, 0 for a prompt that is no chain.
func ChainSteps(samples []Sample) int {
	n := 0
	for i := range samples {
		n = max(n, len(samples[i].Steps))
	}
	return n
}
