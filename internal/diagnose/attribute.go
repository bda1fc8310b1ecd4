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

// Attribute returns what moved between base and cur with a change of
// metric, by the rules of the package documentation, in the order of the
// kinds (output tokens first for the decode's metrics).
func Attribute(metric string, base, cur Side) results.Attribution {
	var a results.Attribution
	add := func(c results.Cause, ok bool) {
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
	add(tokensCause(results.KindPromptTokens, base.Samples, cur.Samples, func(s *results.Sample) int { return s.PromptTokens }))
	if slices.Contains([]string{results.TTFT, results.TTFCT, results.Total}, metric) {
		add(queueCause(base.Samples, cur.Samples, own))
	}
	add(rateCause(results.KindRateLimit, base, cur, rateLimited))
	add(rateCause(results.KindErrors, base, cur, nil))
	for _, ph := range phases {
		add(phaseCause(ph, base.Samples, cur.Samples, own))
	}
	add(reuseCause(base.Samples, cur.Samples))
	out, ok := tokensCause(results.KindOutputTokens, base.Samples, cur.Samples, func(s *results.Sample) int { return s.OutputTokens })
	if ok && slices.Contains([]string{results.Total, results.ITL, results.TPOT, results.TokensPerS, results.MaxStall}, metric) {
		a.Causes = append([]results.Cause{out}, a.Causes...)
	} else {
		add(out, ok)
	}
	add(setCause(results.KindModel, base.Models, cur.Models, false))
	add(setCause(results.KindFingerprint, base.Fingerprints, cur.Fingerprints, true))
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

func cacheCause(base, cur []results.Sample) (results.Cause, bool) {
	sb, tb := cacheShares(base)
	sc, tc := cacheShares(cur)
	// Shares are often all-or-nothing per request (a hit or a miss), which
	// a shift of medians cannot see: compare their means.
	if !means(sb, sc) || math.Abs(tc-tb) < MinCacheChange {
		return results.Cause{}, false
	}
	what := "cache hits fell"
	switch {
	case tc > tb:
		what = "cache hits rose"
	case tc < 0.05:
		what = "cache stopped hitting"
	}
	return results.Cause{Kind: results.KindCache, Baseline: tb, Current: tc,
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

func tokensCause(kind string, base, cur []results.Sample, of func(*results.Sample) int) (results.Cause, bool) {
	vb, vc := counts(base, of), counts(cur, of)
	s := shiftOf(vb, vc)
	mb, mc := stats.Median(vb), stats.Median(vc)
	if !s.moved() || !(mb > 0) || math.Abs(s.est)/mb < MinTokensChange || math.Abs(mc-mb)/mb < MinTokensChange {
		return results.Cause{}, false
	}
	what := map[string][2]string{
		results.KindPromptTokens: {"input got longer", "input got shorter"},
		results.KindOutputTokens: {"answers got longer", "answers got shorter"},
	}[kind]
	word := what[0]
	if mc < mb {
		word = what[1]
	}
	noun := "prompt tokens"
	if kind == results.KindOutputTokens {
		noun = "output tokens"
	}
	return results.Cause{Kind: kind, Baseline: mb, Current: mc,
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

func queueCause(base, cur []results.Sample, own float64) (results.Cause, bool) {
	vb, vc := positive(base, func(s *results.Sample) float64 { return s.TTFB }), positive(cur, func(s *results.Sample) float64 { return s.TTFB })
	s := shiftOf(vb, vc)
	if !s.moved() || own <= 0 || s.est < QueueShare*own || s.est < MinPhaseMS {
		return results.Cause{}, false
	}
	mb, mc := stats.Median(vb), stats.Median(vc)
	return results.Cause{Kind: results.KindQueueing, Baseline: mb, Current: mc,
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
	{results.KindDNS, "DNS lookups", func(s *results.Sample) float64 { return s.DNS }},
	{results.KindConnect, "TCP connects", func(s *results.Sample) float64 { return s.Connect }},
	{results.KindTLS, "TLS handshakes", func(s *results.Sample) float64 { return s.TLS }},
}

// phaseCause compares a network phase per request (0 on a reused
// connection), shown as its mean per request.
func phaseCause(ph phase, base, cur []results.Sample, own float64) (results.Cause, bool) {
	vb, vc := all(base, ph.of), all(cur, ph.of)
	s := shiftOf(vb, vc)
	mb, mc := stats.Mean(vb), stats.Mean(vc)
	if !s.moved() || math.Abs(mc-mb) < max(MinPhaseMS, PhaseShare*math.Abs(own)) || math.Abs(s.est) < MinPhaseMS {
		return results.Cause{}, false
	}
	return results.Cause{Kind: ph.kind, Baseline: mb, Current: mc,
		Text: fmt.Sprintf("%s: %s → %s per request", ph.name, numfmt.Millis(mb), numfmt.Millis(mc))}, true
}

func all(ss []results.Sample, of func(*results.Sample) float64) []float64 {
	out := make([]float64, len(ss))
	for i := range ss {
		out[i] = of(&ss[i])
	}
	return out
}

func reuseCause(base, cur []results.Sample) (results.Cause, bool) {
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
		return results.Cause{}, false
	}
	return results.Cause{Kind: results.KindReuse, Baseline: pb, Current: pc,
		Text: fmt.Sprintf("connections reused: %s → %s of requests", share(pb), share(pc))}, true
}

// rateLimited reports a request that got an HTTP 429 (retried or failed).
func rateLimited(retries int, class string) bool { return retries > 0 || class == results.ErrRateLimit }

// rateCause compares the share of requests that were rate limited (is
// rateLimited) or, with is nil, that failed for another reason.
func rateCause(kind string, base, cur Side, is func(retries int, class string) bool) (results.Cause, bool) {
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
		return results.Cause{}, false
	}
	text := fmt.Sprintf("rate limited: %s → %s of requests got HTTP 429", share(pb), share(pc))
	if is == nil {
		text = fmt.Sprintf("errors: %s → %s of requests failed", share(pb), share(pc))
	}
	return results.Cause{Kind: kind, Baseline: pb, Current: pc, Text: text}, true
}

// setCause compares the names the endpoint returned: moved when the sets
// differ (disjoint only: names rotate within a set).
func setCause(kind string, base, cur []string, disjoint bool) (results.Cause, bool) {
	if len(base) == 0 || len(cur) == 0 {
		return results.Cause{}, false
	}
	b, c := names(base), names(cur)
	if slices.Equal(b, c) || disjoint && slices.ContainsFunc(b, func(s string) bool { return slices.Contains(c, s) }) {
		return results.Cause{}, false
	}
	from, to := strings.Join(b, ", "), strings.Join(c, ", ")
	what := "the endpoint returned another model"
	if kind == results.KindFingerprint {
		what = "the system fingerprint changed"
	}
	return results.Cause{Kind: kind, From: from, To: to, Text: fmt.Sprintf("%s: %s → %s", what, from, to)}, true
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
