package results

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestUsageAdd(t *testing.T) {
	var u Usage
	u.Add(&Sample{TokenSource: "usage", PromptTokens: 100, CachedTokens: 80, OutputTokens: 10})
	u.Add(&Sample{TokenSource: "chunks", PromptTokens: 100, OutputTokens: 12})                // counted chunks are no usage
	u.Add(nil)                                                                                // a failure
	u.Add(&Sample{TokenSource: "usage", PromptTokens: 50, CachedTokens: 60, OutputTokens: 5}) // never more cached than sent
	u.Add(&Sample{TokenSource: "usage", PromptTokens: 40, CachedTokens: 10, CacheCreationTokens: 25, OutputTokens: 1})
	want := Usage{Requests: 5, Unknown: 2, PromptTokens: 190, CachedTokens: 140, CacheWriteTokens: 25, OutputTokens: 16}
	if diff := cmp.Diff(want, u); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	if err := ValidateData(Run{Requests: 1, Concurrency: 1, TimeoutMS: 1000}, []Target{{Name: "t", Usage: &u}}, false); err != nil {
		t.Errorf("a tally Add made is invalid: %v", err)
	}
	bad := u
	bad.Unknown = 6
	if err := ValidateData(Run{Requests: 1, Concurrency: 1, TimeoutMS: 1000}, []Target{{Name: "t", Usage: &bad}}, false); err == nil {
		t.Error("6 unknown of 5 requests is valid")
	}
}

// TestAppendRoundUsage: a round's usage adds to the target's and is kept
// apart as the rounds' part.
func TestAppendRoundUsage(t *testing.T) {
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	f := &File{StartedAt: start, Targets: []Target{{Name: "t", Usage: &Usage{Requests: 21, PromptTokens: 210, OutputTokens: 42}}}}
	for range 2 {
		AppendRound(f, &File{StartedAt: start, Targets: []Target{{Name: "t", Usage: &Usage{Requests: 11, Unknown: 1, PromptTokens: 100, OutputTokens: 20}}}})
	}
	if diff := cmp.Diff(&Usage{Requests: 43, Unknown: 2, PromptTokens: 410, OutputTokens: 82}, f.Targets[0].Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&Usage{Requests: 22, Unknown: 2, PromptTokens: 200, OutputTokens: 40}, f.Targets[0].RoundsUsage); diff != "" {
		t.Errorf("rounds usage (-want +got):\n%s", diff)
	}
}
