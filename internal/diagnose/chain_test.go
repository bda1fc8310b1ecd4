package diagnose

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/results"
)

// chainSide is n chains of three steps of about 150 ms (lognormal noise),
// the step slow (0-based; -1: none) taking extra ms more.
func chainSide(n int, slow int, extra float64, seed uint64) Side {
	rng := rand.New(rand.NewPCG(seed, 3))
	s := Side{Requests: n}
	for i := range n {
		smp := results.Sample{Seq: i + 1}
		at := 0.0
		for k := range 3 {
			ttft := 120 * math.Exp(0.25*rng.NormFloat64())
			if k == slow {
				ttft += extra
			}
			st := results.Step{StartMS: at, TTFT: ttft, Total: ttft + 30, OutputTokens: 8}
			smp.Steps = append(smp.Steps, st)
			at += st.Total + 0.2
		}
		last := smp.Steps[2]
		smp.TTFT, smp.Total, smp.OutputTokens = last.TTFT, last.Total, 8
		smp.ChainTotal, smp.ChainTTFTLast = last.StartMS+last.Total, last.StartMS+last.TTFT
		s.Samples = append(s.Samples, smp)
	}
	return s
}

// TestStepCause: a chain metric's regression names the step that moved,
// first; an unchanged chain, or one whose steps all moved a little, names
// no step; other metrics never name one.
func TestStepCause(t *testing.T) {
	base := chainSide(60, -1, 0, 1)
	for _, tt := range []struct {
		name, metric string
		cur          Side
		want         []string
		text         string
	}{
		{"step 2 slower", results.ChainTotal, chainSide(60, 1, 300, 2), []string{results.KindStep}, "step 2 of 3 got slower: "},
		{"step 1 slower, the last first token later", results.ChainTTFTLast, chainSide(60, 0, 300, 2), []string{results.KindStep}, "step 1 of 3 got slower: "},
		{"unchanged", results.ChainTotal, chainSide(60, -1, 0, 2), nil, ""},
		{"not a chain metric", results.Total, chainSide(60, 1, 300, 2), nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := Attribute(tt.metric, base, tt.cur)
			if diff := cmp.Diff(tt.want, kinds(a)); diff != "" {
				t.Errorf("kinds (-want +got):\n%s\nline: %s", diff, a.Line())
			}
			if tt.text != "" && !strings.HasPrefix(a.Line(), tt.text) {
				t.Errorf("line %q, want it to open with %q", a.Line(), tt.text)
			}
		})
	}
}
