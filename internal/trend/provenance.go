package trend

import (
	"github.com/latgate/latgate/internal/history"
	"github.com/latgate/latgate/pkg/baseline"
	"github.com/latgate/latgate/pkg/results"
)

// OfBaseline is what a baseline says of where, when and with what it was
// blessed.
func OfBaseline(b *baseline.File) Provenance {
	p := Provenance{At: b.BlessedAt, Commit: b.GitCommit, Version: b.Version, Runner: b.Runner, Endpoints: map[string]Endpoint{}}
	for _, t := range b.Targets {
		p.Endpoints[results.Label(t.Name, t.Region)] = Endpoint{Models: t.ReturnedModels, Fingerprints: t.SystemFingerprints}
	}
	return p
}

// OfRecord is what a history record says of its run.
func OfRecord(r history.Record) Provenance {
	runner := r.Runner
	p := Provenance{At: r.At, Commit: r.Commit, Version: r.Version, Runner: &runner, Endpoints: map[string]Endpoint{}}
	for _, t := range r.Targets {
		p.Endpoints[results.Label(t.Name, t.Region)] = Endpoint{Models: t.ReturnedModels, Fingerprints: t.SystemFingerprints}
	}
	return p
}

// OfResults is what a results file says of where and with what it
// measured: not the runner, which a results file does not record (a caller
// that knows it sets Runner).
func OfResults(f *results.File) Provenance {
	p := Provenance{At: f.FinishedAt, Version: f.Version, Endpoints: map[string]Endpoint{}}
	for _, t := range f.Targets {
		p.Endpoints[results.Label(t.Name, t.Region)] = Endpoint{Models: t.ReturnedModels, Fingerprints: t.SystemFingerprints}
	}
	return p
}
