package results_test

import (
	"fmt"

	"github.com/latgate/latgate/pkg/results"
)

// A run is held to its error budget before anything is compared: a target
// over its max_error_rate, or a prompt none of whose requests succeeded,
// makes CheckBudget fail.
func ExampleCheckBudget() {
	f := &results.File{Targets: []results.Target{{
		Name: "api", Region: "eu", MaxErrorRate: 0.05,
		Requests: 20, Errors: 2, ErrorRate: 0.1, ByClass: map[string]int{"timeout": 2},
		Prompts: []results.Prompt{{ID: "greeting", Requests: 20, Errors: 2, Samples: make([]results.Sample, 18)}},
	}}}
	fmt.Println(f.Targets[0].Label(), "over budget:", f.Targets[0].OverBudget(f.Targets[0].MaxErrorRate))
	fmt.Println(results.CheckBudget(f))
	// Output:
	// api@eu over budget: true
	// error budget exceeded: target "api": 2 of 20 requests failed (10.0% > 5.0% max_error_rate): timeout 2
}

// Decode reads a results file from bytes; every error says what is wrong
// with the file and how to fix it.
func ExampleDecode() {
	_, err := results.Decode([]byte(`{"schema": "latgate.baseline/v1"}`), "latgate.baseline.json")
	fmt.Println(err)
	// Output:
	// latgate.baseline.json: this is a baseline file (schema latgate.baseline/v1), not a results file: pass the results JSON that a run wrote
}
