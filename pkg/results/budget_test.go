package results

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckBudget(t *testing.T) {
	ok := Prompt{ID: "ok", Requests: 20, Samples: make([]Sample, 19), Errors: 1, ByClass: map[string]int{"server": 1}}
	dead := Prompt{ID: "long", Requests: 1, Errors: 1, ByClass: map[string]int{"http": 1}}
	target := func(rate float64, prompts ...Prompt) Target {
		t := Target{Name: "t", MaxErrorRate: rate, Prompts: prompts, ByClass: map[string]int{}}
		for _, p := range prompts {
			t.Requests += p.Requests
			t.Errors += p.Errors
			for k, v := range p.ByClass {
				t.ByClass[k] += v
			}
		}
		t.ErrorRate = float64(t.Errors) / float64(t.Requests)
		return t
	}
	tests := []struct {
		name string
		t    Target
		want []string // fragments of the error; nil for no error
	}{
		{"within budget", target(0.05, ok), nil},
		{"over budget", target(0.01, ok), []string{`target "t": 1 of 20 requests failed (5.0% > 1.0% max_error_rate): server 1`}},
		// 2 of 21 is under a 10% budget, but one prompt has no sample at all:
		// it would go ungated.
		{"a prompt with no sample", target(0.10, ok, dead), []string{"every request failed for t/long (http 1)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckBudget(&File{Targets: []Target{tt.t}})
			if tt.want == nil {
				if err != nil {
					t.Fatalf("CheckBudget = %v, want nil", err)
				}
				return
			}
			var be *BudgetError
			if !errors.As(err, &be) {
				t.Fatalf("CheckBudget = %v, want a *BudgetError", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}
