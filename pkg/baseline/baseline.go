package baseline

import (
	"maps"
	"slices"
	"time"

	"github.com/latgate/latgate/internal/sanitize"
	"github.com/latgate/latgate/pkg/results"
)

// Schema is the value of the "schema" field of a baseline file.
const Schema = "latgate.baseline/v1"

// File is a baseline: the samples of a blessed run, kept raw so that every
// verdict is recomputed from samples, with their summaries and provenance.
type File struct {
	Schema string `json:"schema"`
	// Version is the latgate version that blessed the baseline.
	Version string `json:"latgate_version"`
	// BlessedAt is UTC with second precision.
	BlessedAt time.Time `json:"blessed_at"`
	// GitCommit is the commit the baseline was blessed at, when known.
	GitCommit string `json:"git_commit,omitempty"`
	// Runner is where the baseline was measured from; absent in baselines
	// blessed before latgate recorded it.
	Runner     *results.Runner `json:"runner,omitempty"`
	ConfigHash string          `json:"config_hash"`
	Run        results.Run     `json:"run"`
	// Targets are in config order, each with its prompts in config order,
	// their samples, summaries, error counts, prompt hashes and provenance
	// (base URL, model, returned models, system fingerprints, parameters).
	// A baseline keeps no failures.
	Targets []results.Target `json:"targets"`
}

// FromResults makes the baseline that blesses r, a non-nil results file. It
// keeps the samples, summaries, error counts and provenance, and drops the
// failure records and the comparison. r is not modified and shares no memory
// with the result.
func FromResults(r *results.File, blessedAt time.Time, gitCommit string) *File {
	f := &File{
		Schema:     Schema,
		Version:    r.Version,
		BlessedAt:  blessedAt.UTC().Truncate(time.Second),
		GitCommit:  gitCommit,
		ConfigHash: r.ConfigHash,
		Run:        r.Run,
		Targets:    make([]results.Target, len(r.Targets)),
	}
	for i, t := range r.Targets {
		f.Targets[i] = cloneTarget(t)
	}
	return f
}

// cloneTarget deep-copies t, dropping failure records. The text an endpoint
// sent (returned models, fingerprints, finish reasons) passes through the
// sanitiser again: a results file from elsewhere (bless --from) is outside
// text too, and the baseline is committed.
func cloneTarget(t results.Target) results.Target {
	t.ReturnedModels = sanitizeAll(t.ReturnedModels)
	t.SystemFingerprints = sanitizeAll(t.SystemFingerprints)
	t.ByClass = maps.Clone(t.ByClass)
	if t.Params.Temperature != nil {
		v := *t.Params.Temperature
		t.Params.Temperature = &v
	}
	t.Prompts = slices.Clone(t.Prompts)
	for i := range t.Prompts {
		t.Prompts[i] = clonePrompt(t.Prompts[i])
	}
	t.Overall = clonePrompt(t.Overall)
	return t
}

func clonePrompt(p results.Prompt) results.Prompt {
	p.ByClass = maps.Clone(p.ByClass)
	p.Metrics = cloneMetrics(p.Metrics)
	p.Samples = slices.Clone(p.Samples)
	for i := range p.Samples {
		p.Samples[i].ITL = slices.Clone(p.Samples[i].ITL)
		p.Samples[i].Steps = slices.Clone(p.Samples[i].Steps)
		p.Samples[i].FinishReason = sanitize.Line(p.Samples[i].FinishReason, sanitize.MaxField)
	}
	p.Failures = nil
	p.Solo = nil // a property of the run that was blessed, checked at bless
	return p
}

func sanitizeAll(ss []string) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = sanitize.Line(s, sanitize.MaxField)
	}
	return out
}

func cloneMetrics(m results.Metrics) results.Metrics {
	return results.Metrics{
		TTFB:       clonePtr(m.TTFB),
		TTFT:       clonePtr(m.TTFT),
		TTFCT:      clonePtr(m.TTFCT),
		ITL:        clonePtr(m.ITL),
		TPOT:       clonePtr(m.TPOT),
		Total:      clonePtr(m.Total),
		MaxStall:   clonePtr(m.MaxStall),
		TokensPerS: clonePtr(m.TokensPerS),
		// a chain's (results/chain.go)
		ChainTotal:    clonePtr(m.ChainTotal),
		ChainTTFTLast: clonePtr(m.ChainTTFTLast),
	}
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
