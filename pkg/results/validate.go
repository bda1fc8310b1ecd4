package results

import (
	"fmt"
	"math"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/latgate/latgate/internal/sanitize"
)

// Bounds of a run, one per quantity, shared by the config (which refuses
// more), the flags, the gate and the files (which a tampered or corrupted
// file could hold). Each is far above any sensible run and keeps memory and
// time bounded.
const (
	// MaxPromptRequests bounds the measured requests of one target ×
	// prompt, however they are asked for: run.requests (and --requests),
	// check's round cap run.max_requests, run.bless_requests, and the
	// requests the gate may suggest to decide a check.
	MaxPromptRequests = 100_000
	// MaxTargetRequests bounds the requests one target sends in a run,
	// (requests + warmup) × prompts: memory holds an outcome for each.
	MaxTargetRequests = 1_000_000
	// MaxWarmup bounds unmeasured requests per target × prompt (run.warmup).
	MaxWarmup = 10_000
	// MaxConcurrency bounds requests in flight per target (run.concurrency).
	MaxConcurrency = 1024
	// MaxRate bounds an arrival-rate run's requests per second (run.rate).
	MaxRate = 10_000
	// MaxTokens bounds the tokens asked of one answer (max_tokens).
	MaxTokens = 1 << 20
	// MaxTimeoutMS bounds one request (run.timeout): one hour.
	MaxTimeoutMS = 3_600_000
	// MaxMS bounds any duration in a file: no request lasts a day.
	MaxMS = 86_400_000
)

// DataError is a value in a results or baseline file that cannot be true of
// a run: Path names it as a JSON path, such as
// "targets[0].prompts[1].samples[3].ttft_ms".
type DataError struct {
	Path    string
	Problem string
}

func (e *DataError) Error() string { return e.Path + ": " + e.Problem }

// ValidateData checks the values of a run's settings and targets as data:
// counts in range and consistent with each other (requests = samples +
// errors, per prompt and per target; summaries over as many samples as
// there are), and every duration finite, not negative, not absurd, and in
// the order a stream makes them (ttfb ≤ ttft ≤ total). With needSamples,
// every prompt must hold samples (a baseline's must: the gate recomputes
// every verdict from them). It returns the first problem, a *DataError.
func ValidateData(run Run, targets []Target, needSamples bool) error {
	v := &validator{}
	v.run(run)
	for i, t := range targets {
		v.target(fmt.Sprintf("targets[%d]", i), t, needSamples)
	}
	if v.err != nil {
		return v.err
	}
	return nil
}

type validator struct{ err *DataError }

func (v *validator) fail(path, format string, args ...any) {
	if v.err == nil {
		v.err = &DataError{Path: path, Problem: fmt.Sprintf(format, args...)}
	}
}

func (v *validator) count(path string, n, least, most int) {
	if n < least || n > most {
		v.fail(path, "%d is out of range (%d to %d)", n, least, most)
	}
}

// CheckText refuses text that no run writes into a file: invalid UTF-8, a
// control character (a newline, an ANSI escape), or any other character
// sanitize.Line would show as an escape (a bidirectional override, a line
// separator, a byte-order mark). Latgate sanitises what it stores, so such
// text in a names, models or provenance field means the file was edited,
// and printed raw it could redraw a terminal, display otherwise than its
// bytes or inject a workflow command into a CI log. It returns a
// *DataError naming path.
func CheckText(path, s string) error {
	if !utf8.ValidString(s) {
		return &DataError{Path: path, Problem: "is not valid UTF-8"}
	}
	if at, _ := sanitize.FirstUnprintable(s); at >= 0 {
		r, _ := utf8.DecodeRuneInString(s[at:])
		kind := "the control character"
		if !unicode.IsControl(r) {
			kind = "the formatting character"
		}
		return &DataError{Path: path, Problem: fmt.Sprintf("holds %s %U at byte %d: latgate never stores one", kind, r, at)}
	}
	return nil
}

func (v *validator) text(path, s string) {
	if v.err != nil {
		return
	}
	if err := CheckText(path, s); err != nil {
		v.err = err.(*DataError)
	}
}

func (v *validator) run(r Run) {
	v.count("run.requests", r.Requests, 1, MaxPromptRequests)
	v.count("run.warmup", r.Warmup, 0, MaxWarmup)
	v.count("run.concurrency", r.Concurrency, 1, MaxConcurrency)
	if r.OpenLoop() || r.MaxInFlight != 0 || r.Arrival != "" {
		if !(r.Rate > 0 && r.Rate <= MaxRate) {
			v.fail("run.rate", "%s is out of range (above 0, at most %d requests per second)", num(r.Rate), MaxRate)
		}
		v.count("run.max_in_flight", r.MaxInFlight, 1, MaxConcurrency)
		if r.Arrival != "poisson" && r.Arrival != "constant" {
			v.fail("run.arrival", "%q is not an arrival process (poisson or constant)", r.Arrival)
		}
	}
	if !(r.TimeoutMS > 0 && r.TimeoutMS <= MaxTimeoutMS) {
		v.fail("run.timeout_ms", "%s is out of range (above 0, at most %d)", num(r.TimeoutMS), MaxTimeoutMS)
	}
}

func (v *validator) target(path string, t Target, needSamples bool) {
	v.text(path+".name", t.Name)
	v.text(path+".region", t.Region)
	v.text(path+".base_url", t.BaseURL)
	v.text(path+".model", t.Model)
	for i, m := range t.ReturnedModels {
		v.text(path+".returned_models["+strconv.Itoa(i)+"]", m)
	}
	for i, fp := range t.SystemFingerprints {
		v.text(path+".system_fingerprints["+strconv.Itoa(i)+"]", fp)
	}
	v.text(path+".params.api", t.Params.API)
	v.text(path+".params.extra_hash", t.Params.ExtraHash)
	requests, errs := 0, 0
	for j, p := range t.Prompts {
		pp := path + ".prompts[" + strconv.Itoa(j) + "]"
		v.prompt(pp, p)
		if needSamples && len(p.Samples) == 0 {
			v.fail(pp+".samples", "prompt %q has no samples: nothing to compare with", p.ID)
		}
		requests += p.Requests
		errs += p.Errors
	}
	v.usage(path+".usage", t.Usage)
	v.usage(path+".rounds_usage", t.RoundsUsage)
	if !validSends(t.Sends) {
		v.fail(path+".sends", "send figures out of range: counts ≥ 0, queued ≤ scheduled, 0 ≤ late_p50_ms ≤ late_p99_ms ≤ late_max_ms ≤ %d, queue_p95_ms ≤ queue_max_ms, a finite sent_per_s", MaxTimeoutMS)
	}
	if !validLateness(t.Lateness) {
		v.fail(path+".runner_lateness", "probe lateness out of range: probes ≥ 0, 0 ≤ late_p50_ms ≤ late_p95_ms ≤ late_p99_ms ≤ late_max_ms ≤ %d", MaxTimeoutMS)
	}
	if t.Requests != requests {
		v.fail(path+".requests", "%d, but its prompts count %d requests", t.Requests, requests)
	}
	if t.Errors != errs {
		v.fail(path+".errors", "%d, but its prompts count %d errors", t.Errors, errs)
	}
	if t.Requests > 0 && math.Abs(t.ErrorRate-float64(t.Errors)/float64(t.Requests)) > 1e-6 {
		v.fail(path+".error_rate", "%s, but %d of %d requests failed", num(t.ErrorRate), t.Errors, t.Requests)
	}
	if !(t.MaxErrorRate >= 0 && t.MaxErrorRate <= 1) {
		v.fail(path+".max_error_rate", "%s is not between 0 and 1", num(t.MaxErrorRate))
	}
}

func (v *validator) prompt(path string, p Prompt) {
	v.text(path+".id", p.ID)
	v.text(path+".hash", p.Hash)
	for i, f := range p.Failures {
		fp := path + ".failures[" + strconv.Itoa(i) + "]"
		v.text(fp+".class", f.Class)
		v.text(fp+".message", f.Message)
	}
	if p.Cache != "" && p.Cache != CacheWarm && p.Cache != CacheCold {
		v.fail(path+".cache", "%q is not %s or %s", p.Cache, CacheWarm, CacheCold)
	}
	if p.Steps == 1 || p.Steps < 0 || p.Steps > MaxSteps {
		v.fail(path+".steps", "%d is not a chain's number of steps (2 to %d; absent for a prompt of one request)", p.Steps, MaxSteps)
	}
	if o := p.SLO; o != nil {
		for _, l := range []struct {
			name string
			ms   float64
		}{{"ttfb_ms", o.TTFB}, {"ttft_ms", o.TTFT}, {"ttfct_ms", o.TTFCT}, {"itl_ms", o.ITL}, {"tpot_ms", o.TPOT}, {"total_ms", o.Total}, {"max_stall_ms", o.MaxStall}} {
			if pr := durProblem(l.ms, false); pr != "" {
				v.fail(path+".slo."+l.name, "%s", pr)
			}
		}
	}
	v.count(path+".requests", p.Requests, 0, MaxPromptRequests)
	v.count(path+".errors", p.Errors, 0, MaxPromptRequests)
	if p.Requests != len(p.Samples)+p.Errors {
		v.fail(path+".requests", "%d, but the prompt has %d samples and %d errors", p.Requests, len(p.Samples), p.Errors)
	}
	if s := p.Metrics.TTFT; s != nil && s.N != len(p.Samples) {
		v.fail(path+".metrics.ttft.n", "%d, but the prompt has %d samples", s.N, len(p.Samples))
	}
	v.summaries(path+".metrics", p.Metrics)
	for k, s := range p.Samples {
		v.sample(path+".samples["+strconv.Itoa(k)+"]", s)
	}
	if p.Solo != nil {
		if pr := durProblem(p.Solo.TTFB, false); pr != "" {
			v.fail(path+".solo.ttfb_ms", "%s", pr)
		}
		if pr := durProblem(p.Solo.TTFT, true); pr != "" {
			v.fail(path+".solo.ttft_ms", "%s", pr)
		}
	}
}

func (v *validator) sample(path string, s Sample) {
	v.text(path+".finish_reason", s.FinishReason)
	v.text(path+".token_source", s.TokenSource)
	dur := func(name string, x float64, positive bool) {
		if p := durProblem(x, positive); p != "" {
			v.fail(path+"."+name, "%s", p)
		}
	}
	dur("ttfb_ms", s.TTFB, false) // 0 in files that did not record it
	dur("ttft_ms", s.TTFT, true)
	dur("total_ms", s.Total, true)
	dur("tpot_ms", s.TPOT, false)
	dur("max_stall_ms", s.MaxStall, false)
	dur("at_ms", s.AtMS, false)
	dur("first_status_ms", s.FirstStatus, false)
	dur("late_ms", s.LateMS, false)
	dur("queue_ms", s.QueueMS, false)
	if s.HasContent {
		dur("ttfct_ms", s.TTFCT, true)
	}
	v.steps(path, s)
	for i, g := range s.ITL { // the name only on failure: a sample holds up to max_tokens gaps
		if p := durProblem(g, false); p != "" {
			v.fail(path+".itl_ms["+strconv.Itoa(i)+"]", "%s", p)
		}
	}
	if v.err != nil {
		return
	}
	const eps = 0.0015 // values are rounded to the microsecond
	switch {
	case s.TTFB > 0 && s.TTFB > s.TTFT+eps:
		v.fail(path+".ttfb_ms", "%s ms is after ttft_ms %s ms: headers come before the first token", num(s.TTFB), num(s.TTFT))
	case s.TTFT > s.Total+eps:
		v.fail(path+".ttft_ms", "%s ms is after total_ms %s ms: the first token comes before the end", num(s.TTFT), num(s.Total))
	case s.HasContent && (s.TTFCT < s.TTFT-eps || s.TTFCT > s.Total+eps):
		v.fail(path+".ttfct_ms", "%s ms is not between ttft_ms and total_ms", num(s.TTFCT))
	case !(s.TokensPerS >= 0) || math.IsInf(s.TokensPerS, 0):
		v.fail(path+".tokens_per_s", "%s is not a rate", num(s.TokensPerS))
	case s.LateMS+s.QueueMS > s.TTFT+eps:
		v.fail(path+".late_ms", "late_ms %s + queue_ms %s is after ttft_ms %s ms, which counts from the scheduled send", num(s.LateMS), num(s.QueueMS), num(s.TTFT))
	case s.FirstStatus > s.Total+eps:
		v.fail(path+".first_status_ms", "%s ms is after total_ms %s ms", num(s.FirstStatus), num(s.Total))
	case s.OutputTokens < 0 || s.Chunks < 0 || s.Retries < 0 || s.PromptTokens < 0 || s.CachedTokens < 0 || s.CacheCreationTokens < 0 || s.ReasoningTokens < 0:
		v.fail(path, "output_tokens %d, chunks %d, retries %d, prompt_tokens %d, cached_tokens %d, cache_creation_tokens %d, reasoning_tokens %d: a count cannot be negative",
			s.OutputTokens, s.Chunks, s.Retries, s.PromptTokens, s.CachedTokens, s.CacheCreationTokens, s.ReasoningTokens)
	case len(s.ITL) > MaxTokens:
		v.fail(path+".itl_ms", "%d gaps is absurd", len(s.ITL))
	}
}

// steps validates a chain sample's steps and chain times: each step in
// order after the previous, the last step's first token and end within the
// chain.
func (v *validator) steps(path string, s Sample) {
	if len(s.Steps) == 0 {
		if s.ChainTotal != 0 || s.ChainTTFTLast != 0 {
			v.fail(path+".chain_total_ms", "a sample without steps has no chain times")
		}
		return
	}
	if len(s.Steps) > MaxSteps {
		v.fail(path+".steps", "%d steps is more than a chain may have (%d)", len(s.Steps), MaxSteps)
		return
	}
	const eps = 0.0015
	for name, x := range map[string]float64{"chain_total_ms": s.ChainTotal, "chain_ttft_last_ms": s.ChainTTFTLast} {
		if p := durProblem(x, true); p != "" {
			v.fail(path+"."+name, "%s", p)
		}
	}
	prevEnd := 0.0
	for i, st := range s.Steps {
		sp := path + ".steps[" + strconv.Itoa(i) + "]"
		for _, d := range []struct {
			name     string
			x        float64
			positive bool
		}{{"start_ms", st.StartMS, false}, {"ttft_ms", st.TTFT, true}, {"total_ms", st.Total, true}} {
			if p := durProblem(d.x, d.positive); p != "" {
				v.fail(sp+"."+d.name, "%s", p)
			}
		}
		switch {
		case st.TTFT > st.Total+eps:
			v.fail(sp+".ttft_ms", "%s ms is after total_ms %s ms", num(st.TTFT), num(st.Total))
		case st.StartMS < prevEnd-eps:
			v.fail(sp+".start_ms", "%s ms is before the previous step ended (%s ms): steps run one after another", num(st.StartMS), num(prevEnd))
		case st.OutputTokens < 0 || st.PromptTokens < 0 || st.Retries < 0:
			v.fail(sp, "a count cannot be negative")
		}
		prevEnd = st.StartMS + st.Total
	}
	last := s.Steps[len(s.Steps)-1]
	switch {
	case s.ChainTotal < prevEnd-eps:
		v.fail(path+".chain_total_ms", "%s ms is before the last step ended (%s ms)", num(s.ChainTotal), num(prevEnd))
	case s.ChainTTFTLast < last.StartMS-eps || s.ChainTTFTLast > s.ChainTotal+eps:
		v.fail(path+".chain_ttft_last_ms", "%s ms is not between the last step's start and chain_total_ms", num(s.ChainTTFTLast))
	}
}

// durProblem says what is wrong with x as a duration in ms, or "" when
// nothing is (positive: it cannot be 0 either).
// summaries checks a prompt's summaries as data: the gate recomputes its
// verdicts from the samples, but exports (OpenMetrics) and reports print
// the summaries as the file holds them, so a tampered p50 of -123 ms or
// 1e300 must not pass as a run's. Each value is a duration (a rate for
// tokens/s) and min ≤ p50 ≤ p95 ≤ p99 ≤ max.
func (v *validator) summaries(path string, m Metrics) {
	const eps = 0.0015 // values are rounded to the microsecond
	check := func(name string, vals [6]float64, dur bool) {
		names := [6]string{"min", "p50", "p95", "p99", "max", "mean"}
		for i, x := range vals {
			pr := ""
			switch {
			case dur:
				pr = durProblem(x, false)
			case math.IsNaN(x) || math.IsInf(x, 0) || x < 0:
				pr = num(x) + " is not a rate"
			}
			if pr != "" {
				v.fail(path+"."+name+"."+names[i], "%s", pr)
				return
			}
		}
		for i := 1; i < 5; i++ {
			if vals[i] < vals[i-1]-eps {
				v.fail(path+"."+name+"."+names[i], "%s is below %s %s: not a distribution", num(vals[i]), names[i-1], num(vals[i-1]))
				return
			}
		}
	}
	for _, d := range []struct {
		name string
		s    *Summary
	}{{"ttfb", m.TTFB}, {"ttft", m.TTFT}, {"ttfct", m.TTFCT}, {"itl", m.ITL}, {"tpot", m.TPOT}, {"total", m.Total},
		{"max_stall", m.MaxStall}, {"chain_total", m.ChainTotal}, {"chain_ttft_last", m.ChainTTFTLast}} {
		if s := d.s; s != nil && s.N > 0 {
			check(d.name, [6]float64{s.Min, s.P50, s.P95, s.P99, s.Max, s.Mean}, true)
		}
	}
	if s := m.TokensPerS; s != nil && s.N > 0 {
		check("tokens_per_s", [6]float64{s.Min, s.P50, s.P95, s.P99, s.Max, s.Mean}, false)
	}
}

func durProblem(x float64, positive bool) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return num(x) + " is not a number of milliseconds"
	case x < 0 || (positive && x == 0):
		return num(x) + " ms cannot be: a duration is positive"
	case x > MaxMS:
		return num(x) + " ms is absurd (over a day)"
	case x > 0 && x < 0.001:
		// Files hold microseconds (micro): a positive value below one was
		// written by hand, and a denormal one would overflow a ratio to
		// +Inf and read as "unbounded" rather than a change.
		return num(x) + " ms is below the microsecond latgate stores"
	}
	return ""
}

func num(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// usage checks a target's token tally: counts in range, the unknown
// requests among the sent, the cached tokens among the prompt's.
func (v *validator) usage(path string, u *Usage) {
	if u == nil {
		return
	}
	v.count(path+".requests", u.Requests, 0, 2*MaxTargetRequests)
	v.count(path+".unknown", u.Unknown, 0, u.Requests)
	const most = int64(MaxTargetRequests) * 2 * (MaxTokens + 1<<24) // far above any run
	for _, f := range []struct {
		name string
		n    int64
	}{{"prompt_tokens", u.PromptTokens}, {"cached_tokens", u.CachedTokens}, {"cache_write_tokens", u.CacheWriteTokens}, {"output_tokens", u.OutputTokens}} {
		if f.n < 0 || f.n > most {
			v.fail(path+"."+f.name, "%d is out of range (0 to %d)", f.n, most)
		}
	}
	if u.CachedTokens+u.CacheWriteTokens > u.PromptTokens {
		v.fail(path+".cached_tokens", "%d cached and %d written, more than its %d prompt tokens", u.CachedTokens, u.CacheWriteTokens, u.PromptTokens)
	}
}
