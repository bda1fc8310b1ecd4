package config_test

import (
	"fmt"

	"github.com/latgate/latgate/pkg/config"
)

// Parse decodes, defaults and validates a latgate.yaml; every error names
// the file, line and field, and says how to fix it.
func ExampleParse() {
	noEnv := func(string) string { return "" }
	cfg, err := config.Parse([]byte(`targets:
  - {name: local, base_url: "http://127.0.0.1:11434/v1", model: llama3}
prompts:
  - {id: greeting, messages: [{role: user, content: Say hello.}]}
gate:
  checks:
    - {metric: ttft, stat: p95, tolerance: 20%, floor: 30ms}
`), "latgate.yaml", config.Options{Getenv: noEnv})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cfg.Targets[0].Name, cfg.Targets[0].Model, "requests:", cfg.Run.Requests)
	for _, c := range cfg.Gate.Checks {
		fmt.Printf("%s %s: +%g%%, floor %v\n", c.Metric, c.Stat, 100*c.Tolerance.Rel, c.Tolerance.Floor)
	}

	_, err = config.Parse([]byte("targets: [{name: a, base_url: sim}]\nprompts: []\nrun: {requests: -1}\n"), "bad.yaml", config.Options{Getenv: noEnv})
	fmt.Println(err)
	// Output:
	// local llama3 requests: 60
	// ttft p95: +20%, floor 30ms
	// bad.yaml:2: prompts: empty; add at least one prompt, e.g. prompts: [{id: greeting, messages: [{role: user, content: "Say hello."}]}]
	// bad.yaml:3: run.requests: must be between 1 and 100000, got -1; e.g. requests: 30
}
