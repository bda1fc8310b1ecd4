// Package workflow owns the GitHub Actions workflow that `latgate init` writes
// into a repository (and that examples/github-workflow.yml shows): latgate
// check on pull requests, a nightly check that keeps its results, and a
// manual "bless" job that opens a pull request with a new baseline.
package workflow

import _ "embed"

//go:embed github-workflow.yml
var workflow string

// Path is where `latgate init` writes the workflow, relative to the
// repository root.
const Path = ".github/workflows/latgate.yml"

// ExamplePath is the copy shown in the README, relative to the repository
// root; a test keeps it equal to Example.
const ExamplePath = "examples/github-workflow.yml"

// Example returns the workflow file. Each call returns a fresh copy.
func Example() []byte { return []byte(workflow) }
