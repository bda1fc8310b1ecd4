package diagnose

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/latgate/latgate/internal/numfmt"
	"github.com/latgate/latgate/internal/sanitize"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

// Kinds of cause, in the order a line names them (output tokens first for
// the metrics of the decode: total, itl, tpot, tokens_per_s, max_stall).
const (
	KindBuffered     = "buffered"      // the stream arrives in one burst
	KindOneChunk     = "one_chunk"     // the answer arrives in one event
	KindCache        = "cache"         // the share of prompt tokens served from the cache
	KindPromptTokens = "prompt_tokens" // the input's length
	KindQueueing     = "queueing"      // the wait before the first byte
	KindRateLimit    = "rate_limit"    // requests that got an HTTP 429
	KindErrors       = "errors"        // requests that failed otherwise
	KindDNS          = "dns"
	KindConnect      = "connect"
	KindTLS          = "tls"
	KindReuse        = "reuse"         // requests on a reused connection
	KindOutputTokens = "output_tokens" // the answer's length
	KindModel        = "model"         // the returned model
	KindFingerprint  = "fingerprint"   // the returned system fingerprint
)

// Materiality: how big a movement beyond noise must be to be named.
const (
	// MinTokensChange is the relative change of prompt or output tokens.
	MinTokensChange = 0.10
	// MinCacheChange is the change of the cached share of prompt tokens.
	MinCacheChange = 0.10
	// MinPhaseMS is the shift of a network phase, in milliseconds; it
	// must also be a tenth of the metric's own shift (PhaseShare).
	MinPhaseMS = 1.0
	PhaseShare = 0.10
	// QueueShare is the share of the metric's shift that TTFB must take
	// for the wait to be before the first byte.
	QueueShare = 0.5
	// MinRateChange is the change of the share of requests rate limited or
	// failed; MinReuseChange of those on a reused connection.
	MinRateChange  = 0.02
	MinReuseChange = 0.10
)

// NoCause is the line of an attribution that found nothing.
const NoCause = "no recorded cause moved"

// Side is one run's evidence for one check: the samples of the prompts the
// check covers, their failures, and what the endpoint said it was.
type Side struct {
	Samples []results.Sample
	// Failures are the failed measured requests; Requests counts samples
	// and failures.
	Failures []results.Failure
	Requests int
	// Models and Fingerprints are the target's returned models and system
	// fingerprints.
	Models, Fingerprints []string
}

// SideOf is the evidence of target t for the prompts ids, pooled (every
// prompt of t when ids is empty).
func SideOf(t results.Target, ids ...string) Side {
	s := Side{Models: t.ReturnedModels, Fingerprints: t.SystemFingerprints}
	for _, p := range t.Prompts {
		if len(ids) > 0 && !slices.Contains(ids, p.ID) {
			continue
		}
		s.Samples = append(s.Samples, p.Samples...)
		s.Failures = append(s.Failures, p.Failures...)
		s.Requests += len(p.Samples) + len(p.Failures)
	}
	return s
}

// Cause is one recorded quantity that moved with a check: its kind, the
// value on each side (a median per request, a share, or a mean in ms, as
// Text says) and, for a model or fingerprint, the sanitised names.
type Cause struct {
	Kind     string  `json:"kind"`
	Baseline float64 `json:"baseline,omitempty"`
	Current  float64 `json:"current,omitempty"`
	From     string  `json:"from,omitempty"`
	To       string  `json:"to,omitempty"`
	// Text is the cause in words: "input got longer: 1,210 → 2,430 prompt
	// tokens".
	Text string `json:"text"`
}

// Said reports whether the cause quotes the endpoint (a model or a
// fingerprint name), which an annotation does not carry.
func (c Cause) Said() bool { return c.From != "" || c.To != "" }

// Attribution is what moved with one check; no causes means nothing did.
type Attribution struct {
	Causes []Cause `json:"causes,omitempty"`
}

// Line is the attribution as one line: its causes joined by "; ", or
// NoCause.
func (a Attribution) Line() string {
	if len(a.Causes) == 0 {
		return NoCause
	}
	texts := make([]string, len(a.Causes))
	for i, c := range a.Causes {
		texts[i] = c.Text
	}
	return strings.Join(texts, "; ")
}

// Plain is Line in latgate's words only: a cause that quotes the endpoint
// says what changed, not the names (for annotations).
func (a Attribution) Plain() string {
	if len(a.Causes) == 0 {
		return NoCause
	}
	texts := make([]string, len(a.Causes))
	for i, c := range a.Causes {
		texts[i] = c.Text
		if c.Said() {
			texts[i] = plainText[c.Kind] + " (see the report)"
		}
	}
	return strings.Join(texts, "; ")
}

var plainText = map[string]string{
	KindModel:       "the endpoint returned another model",
	KindFingerprint: "the system fingerprint changed",
}

// Attribute returns what moved between base and cur with a change of
// metric, by the rules of the package documentation, in the order of the
// kinds (output tokens first for the decode's metrics).
func Attribute(metric string, base, cur Side) Attribution {
	var a Attribution
	add := func(c Cause, ok bool) {
		if ok {
			a.Causes = append(a.Causes, c)
		}
	}
	own := metricShift(metric, base.Samples, cur.Samples)
	if results.IsChain(metric) {
		add(stepCause(base.Samples, cur.Samples, own)) // chain.go
	}
	add(integrityCause(base.Samples, cur.Samples))
	add(cacheCause(base.Samples, cur.Samples))
	add(tokensCause(KindPromptTokens, base.Samples, cur.Samples, func(s *results.Sample) int { return s.PromptTokens }))
	if slices.Contains([]string{results.TTFT, results.TTFCT, results.Total}, metric) {
		add(queueCause(base.Samples, cur.Samples, own))
	}
	add(rateCause(KindRateLimit, base, cur, rateLimited))
	add(rateCause(KindErrors, base, cur, nil))
	for _, ph := range phases {
		add(phaseCause(ph, base.Samples, cur.Samples, own))
	}
	add(reuseCause(base.Samples, cur.Samples))
	out, ok := tokensCause(KindOutputTokens, base.Samples, cur.Samples, func(s *results.Sample) int { return s.OutputTokens })
	if ok && slices.Contains([]string{results.Total, results.ITL, results.TPOT, results.TokensPerS, results.MaxStall}, metric) {
		a.Causes = append([]Cause{out}, a.Causes...)
	} else {
		add(out, ok)
	}
	add(setCause(KindModel, base.Models, cur.Models, false))
	add(setCause(KindFingerprint, base.Fingerprints, cur.Fingerprints, true))
	return a
}

// metricShift is the Hodges–Lehmann shift of the metric itself, in its
// unit, 0 when it has no per-request value (itl) or no interval.
func metricShift(metric string, base, cur []results.Sample) float64 {
	if metric == results.ITL {
		return 0
	}
	s := shiftOf(results.Values(base, metric), results.Values(cur, metric))
	if !s.ok {
		return 0
	}
	return s.est
}

func cacheCause(base, cur []results.Sample) (Cause, bool) {
	sb, tb := cacheShares(base)
	sc, tc := cacheShares(cur)
	// Shares are often all-or-nothing per request (a hit or a miss), which
	// a shift of medians cannot see: compare their means.
	if !means(sb, sc) || math.Abs(tc-tb) < MinCacheChange {
		return Cause{}, false
	}
	what := "cache hits fell"
	switch {
	case tc > tb:
		what = "cache hits rose"
	case tc < 0.05:
		what = "cache stopped hitting"
	}
	return Cause{Kind: KindCache, Baseline: tb, Current: tc,
		Text: fmt.Sprintf("%s: %s → %s of prompt tokens cached", what, share(tb), share(tc))}, true
}

// cacheShares returns each request's share of prompt tokens served from
// the cache, and the share over all of them (cached tokens ÷ prompt
// tokens), for the requests whose usage reported prompt tokens.
func cacheShares(ss []results.Sample) (per []float64, total float64) {
	var cached, prompt int
	for i := range ss {
		s := &ss[i]
		if s.PromptTokens <= 0 {
			continue
		}
		per = append(per, float64(min(s.CachedTokens, s.PromptTokens))/float64(s.PromptTokens))
		cached += min(s.CachedTokens, s.PromptTokens)
		prompt += s.PromptTokens
	}
	if prompt > 0 {
		total = float64(cached) / float64(prompt)
	}
	return per, total
}

func tokensCause(kind string, base, cur []results.Sample, of func(*results.Sample) int) (Cause, bool) {
	vb, vc := counts(base, of), counts(cur, of)
	s := shiftOf(vb, vc)
	mb, mc := stats.Median(vb), stats.Median(vc)
	if !s.moved() || !(mb > 0) || math.Abs(s.est)/mb < MinTokensChange || math.Abs(mc-mb)/mb < MinTokensChange {
		return Cause{}, false
	}
	what := map[string][2]string{
		KindPromptTokens: {"input got longer", "input got shorter"},
		KindOutputTokens: {"answers got longer", "answers got shorter"},
	}[kind]
	word := what[0]
	if mc < mb {
		word = what[1]
	}
	noun := "prompt tokens"
	if kind == KindOutputTokens {
		noun = "output tokens"
	}
	return Cause{Kind: kind, Baseline: mb, Current: mc,
		Text: fmt.Sprintf("%s: %s → %s %s", word, tokens(mb), tokens(mc), noun)}, true
}

// counts returns of(s) for the samples where it was recorded (> 0).
func counts(ss []results.Sample, of func(*results.Sample) int) []float64 {
	var out []float64
	for i := range ss {
		if v := of(&ss[i]); v > 0 {
			out = append(out, float64(v))
		}
	}
	return out
}

func queueCause(base, cur []results.Sample, own float64) (Cause, bool) {
	vb, vc := positive(base, func(s *results.Sample) float64 { return s.TTFB }), positive(cur, func(s *results.Sample) float64 { return s.TTFB })
	s := shiftOf(vb, vc)
	if !s.moved() || own <= 0 || s.est < QueueShare*own || s.est < MinPhaseMS {
		return Cause{}, false
	}
	mb, mc := stats.Median(vb), stats.Median(vc)
	return Cause{Kind: KindQueueing, Baseline: mb, Current: mc,
		Text: fmt.Sprintf("the wait is before the first byte (TTFB %s → %s): queueing, or the server's work before it answers",
			numfmt.Millis(mb), numfmt.Millis(mc))}, true
}

func positive(ss []results.Sample, of func(*results.Sample) float64) []float64 {
	var out []float64
	for i := range ss {
		if v := of(&ss[i]); v > 0 {
			out = append(out, v)
		}
	}
	return out
}

type phase struct {
	kind, name string
	of         func(*results.Sample) float64
}

var phases = []phase{
	{KindDNS, "DNS lookups", func(s *results.Sample) float64 { return s.DNS }},
	{KindConnect, "TCP connects", func(s *results.Sample) float64 { return s.Connect }},
	{KindTLS, "TLS handshakes", func(s *results.Sample) float64 { return s.TLS }},
}

// phaseCause compares a network phase per request (0 on a reused
// connection), shown as its mean per request.
func phaseCause(ph phase, base, cur []results.Sample, own float64) (Cause, bool) {
	vb, vc := all(base, ph.of), all(cur, ph.of)
	s := shiftOf(vb, vc)
	mb, mc := mean(vb), mean(vc)
	if !s.moved() || math.Abs(mc-mb) < max(MinPhaseMS, PhaseShare*math.Abs(own)) || math.Abs(s.est) < MinPhaseMS {
		return Cause{}, false
	}
	return Cause{Kind: ph.kind, Baseline: mb, Current: mc,
		Text: fmt.Sprintf("%s: %s → %s per request", ph.name, numfmt.Millis(mb), numfmt.Millis(mc))}, true
}

func all(ss []results.Sample, of func(*results.Sample) float64) []float64 {
	out := make([]float64, len(ss))
	for i := range ss {
		out[i] = of(&ss[i])
	}
	return out
}

func reuseCause(base, cur []results.Sample) (Cause, bool) {
	reused := func(ss []results.Sample) int {
		n := 0
		for i := range ss {
			if ss[i].Reused {
				n++
			}
		}
		return n
	}
	pb, pc, moved := proportions(reused(base), len(base), reused(cur), len(cur))
	if !moved || math.Abs(pc-pb) < MinReuseChange {
		return Cause{}, false
	}
	return Cause{Kind: KindReuse, Baseline: pb, Current: pc,
		Text: fmt.Sprintf("connections reused: %s → %s of requests", share(pb), share(pc))}, true
}

// rateLimited reports a request that got an HTTP 429 (retried or failed).
func rateLimited(retries int, class string) bool { return retries > 0 || class == results.ErrRateLimit }

// rateCause compares the share of requests that were rate limited (is
// rateLimited) or, with is nil, that failed for another reason.
func rateCause(kind string, base, cur Side, is func(retries int, class string) bool) (Cause, bool) {
	count := func(s Side) int {
		n := 0
		for _, f := range s.Failures {
			switch {
			case f.Class == results.ErrCanceled:
			case is == nil && f.Class != results.ErrRateLimit, is != nil && is(f.Retries, f.Class):
				n++
			}
		}
		if is != nil {
			for i := range s.Samples {
				if is(s.Samples[i].Retries, "") {
					n++
				}
			}
		}
		return n
	}
	pb, pc, moved := proportions(count(base), base.Requests, count(cur), cur.Requests)
	if !moved || math.Abs(pc-pb) < MinRateChange {
		return Cause{}, false
	}
	text := fmt.Sprintf("rate limited: %s → %s of requests got HTTP 429", share(pb), share(pc))
	if is == nil {
		text = fmt.Sprintf("errors: %s → %s of requests failed", share(pb), share(pc))
	}
	return Cause{Kind: kind, Baseline: pb, Current: pc, Text: text}, true
}

// setCause compares the names the endpoint returned: moved when the sets
// differ (disjoint only: names rotate within a set).
func setCause(kind string, base, cur []string, disjoint bool) (Cause, bool) {
	if len(base) == 0 || len(cur) == 0 {
		return Cause{}, false
	}
	b, c := names(base), names(cur)
	if slices.Equal(b, c) || disjoint && slices.ContainsFunc(b, func(s string) bool { return slices.Contains(c, s) }) {
		return Cause{}, false
	}
	from, to := strings.Join(b, ", "), strings.Join(c, ", ")
	what := "the endpoint returned another model"
	if kind == KindFingerprint {
		what = "the system fingerprint changed"
	}
	return Cause{Kind: kind, From: from, To: to, Text: fmt.Sprintf("%s: %s → %s", what, from, to)}, true
}

// maxName and maxNames clip what a cause quotes of the endpoint.
const (
	maxName  = 64
	maxNames = 3
)

// names returns the sorted, sanitised names, at most maxNames of them and
// "… (N in all)" for the rest.
func names(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = sanitize.Line(s, maxName)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > maxNames {
		out = append(out[:maxNames:maxNames], "… ("+strconv.Itoa(len(out))+" in all)")
	}
	return out
}

// share formats a proportion as a whole percentage, "98%", with a decimal
// under 10%: "2.5%".
func share(p float64) string {
	if p > 0 && p < 0.1 {
		return strconv.FormatFloat(100*p, 'f', 1, 64) + "%"
	}
	return strconv.FormatFloat(math.Round(100*p), 'f', 0, 64) + "%"
}

// tokens formats a token count with thousands separators: "1,210".
func tokens(v float64) string {
	s := strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
