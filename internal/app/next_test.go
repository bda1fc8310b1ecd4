package app

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/latgate/latgate/pkg/measure"
	"github.com/latgate/latgate/pkg/results"
)

// TestNextStep: a measurement failure's next step follows the class that
// stopped the run (the most frequent), through the wrapping the use cases
// add, and names the config to try again; an interrupted run and an error
// that is no measurement's have none.
func TestNextStep(t *testing.T) {
	giveUp := func(byClass map[string]int) error {
		return &measure.GiveUpError{Target: "t", Reason: "r", Done: 4, Planned: 124, ByClass: byClass}
	}
	tests := []struct {
		name string
		err  error
		want string // "" for no next step
	}{
		{"connect", giveUp(map[string]int{results.ErrConnect: 4}), "nothing answered at base_url"},
		{"mostly timeouts", giveUp(map[string]int{results.ErrTimeout: 3, results.ErrServer: 1}), "did not finish within run.timeout"},
		{"rate limited", giveUp(map[string]int{results.ErrRateLimit: 5}), "lower run.concurrency"},
		{"truncated streams", giveUp(map[string]int{results.ErrTruncated: 5}), "check the target's api:"},
		{"budget, wrapped", fmt.Errorf("%w; the baseline x was not changed", &results.BudgetError{Over: []results.Target{{Name: "t", ByClass: map[string]int{results.ErrServer: 9}}}}), "server errors (5xx)"},
		{"auth", &measure.AuthError{Target: "t", EnvVar: "K", Status: 401, Msg: "$K is empty"}, "fix the key as the message says"},
		{"interrupted", fmt.Errorf("%w: 3 of 10 done", measure.ErrInterrupted), ""},
		{"not a measurement's", errors.New("disk full"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NextOf(fmt.Errorf("bless: %w", measurementErr(tt.err, "my dir/latgate.yaml")))
			if tt.want == "" {
				if got != "" {
					t.Errorf("next step %q, want none", got)
				}
				return
			}
			if !strings.Contains(got, tt.want) || !strings.Contains(got, "latgate measure --config 'my dir/latgate.yaml' --requests 5") {
				t.Errorf("next step %q, want %q and the command with the quoted config", got, tt.want)
			}
		})
	}
	ab := NextOf(abMeasurementErr(giveUp(map[string]int{results.ErrConnect: 2}), "base.yaml", "cand.yaml"))
	if !strings.Contains(ab, "nothing answered at base_url") || !strings.Contains(ab, "--config base.yaml --requests 5, and the same with --config cand.yaml") {
		t.Errorf("ab's next step %q, want the class's advice and both configs", ab)
	}
	if got := NextOf(UsageError(errors.New("bad"))); got != "" {
		t.Errorf("a usage error has the next step %q", got)
	}
}
