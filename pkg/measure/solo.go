package measure

import "github.com/latgate/latgate/pkg/results"

// The solo probe. A server that serves one request at a time (Ollama by
// default, a llama.cpp server with one slot, a single-GPU vLLM at its batch
// limit, a rate-limited key) makes every request measured at
// run.concurrency > 1 wait for the others: its TTFT is the queue, not the
// model. Nothing in the measured requests shows it, since all of them
// waited alike. So when concurrency > 1, the last warmup round (one request
// per prompt) is sent one request at a time, after the rest of the warmup
// has finished: each prompt's latency with nothing else in flight, kept in
// results.Prompt.Solo, against which results.Queueing compares the measured
// TTFT. The rest of the warmup runs at the run's concurrency, so that the
// connections the measured requests use are open; the solo round comes
// last, after the cold start.

// soloRound splits the warmup into the part sent at the run's concurrency
// and the solo round: its last prompts jobs, when conc > 1 and the warmup
// holds a whole round.
func soloRound(warm []job, prompts, conc int) (loaded, solo []job) {
	if conc <= 1 || prompts == 0 || len(warm) < prompts {
		return warm, nil
	}
	return warm[:len(warm)-prompts], warm[len(warm)-prompts:]
}

// setSolo records each prompt's solo request in t (a failed one leaves its
// prompt without).
func setSolo(t *results.Target, solo []*outcome) {
	for i, o := range solo {
		if o != nil && o.failure == nil && i < len(t.Prompts) {
			t.Prompts[i].Solo = &results.Solo{TTFB: round3(o.sample.TTFB), TTFT: round3(o.sample.TTFT)}
		}
	}
}
