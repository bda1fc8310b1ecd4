package app

import (
	"testing"

	"github.com/latgate/latgate/pkg/compare"
)

// TestRoundsEndWhenNothingNew: a report that stays undecided with the same
// compared count after its round was measured (a cold head left out of the
// comparison, found in CI against Ollama spinning for minutes) ends the
// loop instead of asking for the same round for ever.
func TestRoundsEndWhenNothingNew(t *testing.T) {
	a, _, _ := testApp(t, nil)
	design := compare.NewDesign(20, 60)
	rep := compare.Report{Verdict: compare.Inconclusive, Checks: []compare.Check{{
		Target: "t", Prompt: "p", Metric: "ttft", Stat: "p50", Verdict: compare.Inconclusive,
		NBase: 60, NCur: 14, Baseline: 100, Current: 110, More: 10, Look: 1, Looks: len(design.Looks),
	}}}
	if _, more := compare.NextRound(rep, design); !more {
		t.Fatal("the report asks for no round: the test needs one")
	}
	measured := 0
	_, err := a.rounds(design, true, func() compare.Report { return rep }, func(compare.Round) error {
		measured++
		if measured > 3 {
			t.Fatal("the same round was measured over and over")
		}
		return nil
	})
	if err != nil || measured != 1 {
		t.Errorf("rounds: %v after %d rounds, want nil after 1", err, measured)
	}
}
