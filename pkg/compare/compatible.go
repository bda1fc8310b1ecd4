package compare

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/latgate/latgate/pkg/results"
)

// Mismatch fields: what differs between a baseline and a current run.
const (
	FieldTarget      = "target"
	FieldPrompt      = "prompt"
	FieldPromptHash  = "prompt_hash"
	FieldModel       = "model"
	FieldAPI         = "api"
	FieldBaseURL     = "base_url"
	FieldMaxTokens   = "max_tokens"
	FieldTemperature = "temperature"
	FieldStream      = "stream"
	FieldExtra       = "extra_hash"
	FieldConcurrency = "concurrency"
	// FieldRate: the load differs, an arrival rate (run.rate, run.arrival)
	// on one side and another or a closed loop on the other.
	FieldRate = "rate"
)

// Mismatch is one reason the two runs measure different things and so must
// not be compared. For FieldTarget and FieldPrompt an empty Baseline or
// Current means the target or prompt is absent from that side.
type Mismatch struct {
	Target   string `json:"target,omitempty"`
	Region   string `json:"region,omitempty"`
	Prompt   string `json:"prompt,omitempty"`
	Field    string `json:"field"`
	Baseline string `json:"baseline"`
	Current  string `json:"current"`
}

// Message says what differs and how to fix it.
func (m Mismatch) Message() string {
	const bless = "run `latgate bless` to accept"
	tgt := targetLabel(results.Target{Name: m.Target, Region: m.Region})
	switch m.Field {
	case FieldTarget:
		if m.Current == "" {
			return fmt.Sprintf("%s is in the baseline but not in this run: restore it, or %s the new target set", tgt, bless)
		}
		return fmt.Sprintf("%s is not in the baseline: %s it into the baseline, or remove it", tgt, bless)
	case FieldPrompt:
		if m.Current == "" {
			return fmt.Sprintf("prompt %q of %s is in the baseline but not in this run: restore it, or %s the new prompt set", m.Prompt, tgt, bless)
		}
		return fmt.Sprintf("prompt %q of %s is not in the baseline: %s the new prompt set, or remove it", m.Prompt, tgt, bless)
	case FieldPromptHash:
		return fmt.Sprintf("prompt %q of %s was edited since the baseline was blessed (hash %s → %s): %s the new prompt set, or revert the edit",
			m.Prompt, tgt, shortHash(m.Baseline), shortHash(m.Current), bless)
	case FieldRate:
		return fmt.Sprintf("the load changed from %s to %s since the baseline was blessed: latency at one load says nothing of another; restore run.rate, or %s the new load",
			m.Baseline, m.Current, bless)
	case FieldConcurrency:
		return fmt.Sprintf("run.concurrency changed from %s to %s since the baseline was blessed, and it changes latency: restore it, or %s the new setting",
			m.Baseline, m.Current, bless)
	}
	b, c := m.Baseline, m.Current
	if m.Field == FieldModel || m.Field == FieldBaseURL {
		b, c = strconv.Quote(b), strconv.Quote(c)
	}
	return fmt.Sprintf("%s: %s changed from %s to %s since the baseline was blessed, and it changes latency: restore it, or %s the new setting",
		tgt, m.Field, b, c, bless)
}

// Error returns Message, so a Mismatch can be returned as an error.
func (m Mismatch) Error() string { return m.Message() }

// shortHash abbreviates a hash for messages: "1a2b3c4d…".
func shortHash(h string) string {
	if len(h) > 8 {
		return h[:8] + "…"
	}
	if h == "" {
		return "(none)"
	}
	return h
}

// LoadOf names the load a run put on its endpoint, as a mismatch shows it:
// "8 requests/s (poisson)" at a rate, "a closed loop" otherwise (whose
// concurrency FieldConcurrency compares).
func LoadOf(r results.Run) string {
	if !r.OpenLoop() {
		return "a closed loop"
	}
	return fmt.Sprintf("%s requests/s (%s)", strconv.FormatFloat(r.Rate, 'g', -1, 64), r.Arrival)
}

// Compatible returns the reasons to refuse comparing cur with base: a
// different concurrency or arrival rate; targets (matched by name and region) added or
// removed; for a target present on both sides a different model, base URL
// (scheme, host and path), max_tokens, temperature, stream or extra body; and
// per target, prompts added, removed or edited (hash changed). Request and
// warmup counts may differ. The order is stable: run, then targets in
// baseline order, then targets only in cur.
func Compatible(base, cur Side) []Mismatch {
	var ms []Mismatch
	if base.Run.Concurrency != cur.Run.Concurrency {
		ms = append(ms, Mismatch{Field: FieldConcurrency,
			Baseline: strconv.Itoa(base.Run.Concurrency), Current: strconv.Itoa(cur.Run.Concurrency)})
	}
	if b, c := LoadOf(base.Run), LoadOf(cur.Run); b != c {
		ms = append(ms, Mismatch{Field: FieldRate, Baseline: b, Current: c})
	}
	curT := make(map[string]results.Target, len(cur.Targets))
	for _, t := range cur.Targets {
		curT[targetKey(t)] = t
	}
	baseT := make(map[string]bool, len(base.Targets))
	for _, bt := range base.Targets {
		baseT[targetKey(bt)] = true
		ct, ok := curT[targetKey(bt)]
		if !ok {
			ms = append(ms, Mismatch{Target: bt.Name, Region: bt.Region, Field: FieldTarget, Baseline: bt.Name})
			continue
		}
		ms = append(ms, targetMismatches(bt, ct)...)
	}
	for _, ct := range cur.Targets {
		if !baseT[targetKey(ct)] {
			ms = append(ms, Mismatch{Target: ct.Name, Region: ct.Region, Field: FieldTarget, Current: ct.Name})
		}
	}
	return ms
}

func targetMismatches(bt, ct results.Target) []Mismatch {
	var ms []Mismatch
	add := func(field, b, c string) {
		if b != c {
			ms = append(ms, Mismatch{Target: bt.Name, Region: bt.Region, Field: field, Baseline: b, Current: c})
		}
	}
	add(FieldModel, bt.Model, ct.Model)
	if endpoint(bt.BaseURL) != endpoint(ct.BaseURL) {
		add(FieldBaseURL, bt.BaseURL, ct.BaseURL)
	}
	bp, cp := bt.Params, ct.Params
	add(FieldAPI, apiName(bp.API), apiName(cp.API))
	add(FieldMaxTokens, strconv.Itoa(bp.MaxTokens), strconv.Itoa(cp.MaxTokens))
	add(FieldTemperature, fmtTemp(bp.Temperature), fmtTemp(cp.Temperature))
	add(FieldStream, strconv.FormatBool(bp.Stream), strconv.FormatBool(cp.Stream))
	if bp.ExtraHash != cp.ExtraHash {
		add(FieldExtra, shortHash(bp.ExtraHash), shortHash(cp.ExtraHash))
	}

	curP := make(map[string]results.Prompt, len(ct.Prompts))
	for _, p := range ct.Prompts {
		curP[p.ID] = p
	}
	baseP := make(map[string]bool, len(bt.Prompts))
	for _, p := range bt.Prompts {
		baseP[p.ID] = true
		c, ok := curP[p.ID]
		switch {
		case !ok:
			ms = append(ms, Mismatch{Target: bt.Name, Region: bt.Region, Prompt: p.ID, Field: FieldPrompt, Baseline: p.ID})
		case p.Hash != "" && c.Hash != "" && p.Hash != c.Hash:
			ms = append(ms, Mismatch{Target: bt.Name, Region: bt.Region, Prompt: p.ID, Field: FieldPromptHash, Baseline: p.Hash, Current: c.Hash})
		}
	}
	for _, p := range ct.Prompts {
		if !baseP[p.ID] {
			ms = append(ms, Mismatch{Target: bt.Name, Region: bt.Region, Prompt: p.ID, Field: FieldPrompt, Current: p.ID})
		}
	}
	return ms
}

// endpoint reduces a base URL to what identifies the endpoint: lower-case
// scheme and host plus the path without a trailing slash. Every simulator
// spec ("sim", "sim:PROFILE?k=v") is the same endpoint: a profile is the
// simulator's latency, which is what the gate compares, just as a real
// server getting slower stays the same endpoint.
func endpoint(raw string) string {
	if raw == "sim" || strings.HasPrefix(raw, "sim:") {
		return "sim"
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + strings.TrimSuffix(u.Path, "/")
}

func fmtTemp(t *float64) string {
	if t == nil {
		return "unset"
	}
	return strconv.FormatFloat(*t, 'g', -1, 64)
}

// apiName is a results file's API, "chat" when it names none.
func apiName(api string) string {
	if api == "" {
		return "chat"
	}
	return api
}
