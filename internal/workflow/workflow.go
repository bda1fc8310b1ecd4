// Package workflow owns the GitHub Actions workflow that `latgate init` writes
// into a repository (and that examples/github-workflow.yml shows): latgate
// check on pull requests, a label that blesses a pull request's baseline on
// the runner, a nightly check that keeps its results, and a manual "bless"
// job that opens a pull request with a new baseline. The workflow states
// what its runs cost in requests, computed from the config it is written
// with (Cost).
package workflow

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
)

//go:embed github-workflow.yml
var workflow string

// costMarker is the line of the workflow that Render replaces with the
// cost of its runs.
const costMarker = "@@COST@@\n"

// Path is where `latgate init` writes the workflow, relative to the
// repository root.
const Path = ".github/workflows/latgate.yml"

// ExamplePath is the copy shown in the README, relative to the repository
// root; a test keeps it equal to Example.
const ExamplePath = "examples/github-workflow.yml"

// Example returns the workflow for the config `latgate init` writes
// (config.Example). Each call returns a fresh copy.
func Example() []byte {
	cfg, err := config.Parse(config.Example(), "latgate.yaml", config.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		panic("workflow: the example config does not load: " + err.Error()) // a test catches it
	}
	return Render(cfg)
}

// Render returns the workflow with the cost of its runs for cfg.
func Render(cfg *config.Config) []byte {
	return []byte(strings.Replace(workflow, costMarker, costComment(Cost(cfg)), 1))
}

// Costs is what one run of each job sends, in requests, warmup included.
type Costs struct {
	Targets, Prompts int
	// Check is what a check (pull request or nightly) sends at its first
	// look; CheckMax at most, when checks stay undecided and it measures
	// again, up to run.max_requests, with each round's warmup.
	Check, CheckMax int
	// Bless is what a bless sends (run.bless_requests).
	Bless int
	// AB and ABMax are what the latgate ab beside a pull request's check
	// sends when the pull request changes the config's targets or prompts:
	// both configs measured, twice a check (for a base config like this one).
	AB, ABMax int
	// Requests, Cap, BlessN and Warmup are the per-prompt figures, and Rounds
	// how many rounds CheckMax counts.
	Requests, Cap, BlessN, Warmup, Rounds int
}

// Cost computes what cfg's runs send: targets × prompts × (requests +
// warmup), up to the cap of check's rounds (compare.NewDesign: its looks).
func Cost(cfg *config.Config) Costs {
	c := Costs{Targets: len(cfg.Targets), Prompts: len(cfg.Prompts), Requests: cfg.Run.Requests,
		Cap: cfg.Run.Cap(), BlessN: cfg.Run.BlessN(), Warmup: cfg.Run.Warmup}
	c.Rounds = max(len(compare.NewDesign(c.Requests, c.Cap).Looks), 1)
	tp := c.Targets * c.Prompts
	c.Check = tp * (c.Requests + c.Warmup)
	c.CheckMax = tp * (c.Cap + c.Rounds*c.Warmup)
	c.Bless = tp * (c.BlessN + c.Warmup)
	c.AB, c.ABMax = 2*c.Check, 2*c.CheckMax
	return c
}

func costComment(c Costs) string {
	plural := func(n int, one, many string) string {
		if n == 1 {
			return fmt.Sprintf("%d %s", n, one)
		}
		return fmt.Sprintf("%d %s", n, many)
	}
	text := fmt.Sprintf("Cost, for latgate.yaml as it was when this was written (%s × %s): "+
		"each pull request's check, and each night, sends %d requests (%d + %d warmup per prompt)",
		plural(c.Targets, "target", "targets"), plural(c.Prompts, "prompt", "prompts"), c.Check, c.Requests, c.Warmup)
	if c.CheckMax > c.Check {
		text += fmt.Sprintf(", and up to %d when checks stay undecided and it measures again "+
			"(run.max_requests: %d per prompt, in up to %d rounds with %d warmup each)", c.CheckMax, c.Cap, c.Rounds, c.Warmup)
	}
	text += fmt.Sprintf("; a pull request that changes latgate.yaml's targets or prompts also runs latgate ab, "+
		"which measures the base branch's config and this one together: about %d more requests (up to %d)", c.AB, c.ABMax)
	text += fmt.Sprintf("; a bless sends %d (run.bless_requests: %d + %d warmup per prompt). "+
		"After editing latgate.yaml: targets × prompts × (requests + warmup). "+
		"The simulator (base_url: sim) costs nothing.", c.Bless, c.BlessN, c.Warmup)
	var b strings.Builder
	line := "#"
	for _, w := range strings.Fields(text) {
		if len(line)+1+len(w) > 78 && line != "#" {
			b.WriteString(line + "\n")
			line = "#"
		}
		line += " " + w
	}
	b.WriteString(line + "\n")
	return b.String()
}
