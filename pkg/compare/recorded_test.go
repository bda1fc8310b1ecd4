package compare

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/latgate/latgate/internal/jsonfile"
	"github.com/latgate/latgate/pkg/results"
)

// TestRecordedRoundTrip: the comparison check writes into a results file
// reads back as the same typed Report, but for the warnings: a file carries
// their words (Warnings, from internal/report), not the values (Found).
func TestRecordedRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	p := profile{TTFTMedian: 400, TTFTSigma: 0.3, ITLMedian: 20, ITLReqSigma: 0.2, ITLGapSigma: 0.35, Gaps: 8}
	base := side(prompt("a", simSamples(rng, p, 60)), prompt("b", simSamples(rng, p, 60)))
	cur := side(prompt("a", simSamples(rng, p, 60)), prompt("b", simSamples(rng, p, 60)))
	rep := Compare(base, cur, defaultGate())
	f := &results.File{Schema: results.Schema, Run: cur.Run, Targets: cur.Targets}
	f.Run.TimeoutMS = 60000 // a file holds what a run can have (results.ValidateData)
	f.Targets[0].Requests = 120
	data, err := jsonfile.Encode(Recorded{File: f, Comparison: &rep})
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeRecorded(data, "results.json")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&rep, got.Comparison, cmpopts.IgnoreFields(Report{}, "Found", "Measured")); diff != "" {
		t.Errorf("comparison round trip (-want +got):\n%s", diff)
	}
	if len(got.Targets) != 1 || len(got.Targets[0].Prompts) != 2 {
		t.Errorf("results round trip lost targets or prompts: %+v", got.File)
	}

	plain, err := jsonfile.Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := DecodeRecorded(plain, "results.json"); err != nil || got.Comparison != nil {
		t.Errorf("a results file without a comparison: %+v, %v; want a nil comparison", got, err)
	}
	if _, err := DecodeRecorded([]byte(`{"schema": "latgate.baseline/v1"}`), "b.json"); !errors.Is(err, results.ErrFileSchema) {
		t.Errorf("a baseline: %v, want results.ErrFileSchema", err)
	}
}
