package workflow

import _ "embed"

// This file holds the recipe for a team's own app that `latgate init --app`
// writes (and examples/app shows): a config with two targets, the base
// branch's build and the pull request's, each started by its serve:, and a
// workflow that builds both and runs latgate ab between them.

//go:embed app-workflow.yml
var appWorkflow []byte

//go:embed app-latgate.yaml
var appConfig []byte

// Where `latgate init --app` writes the recipe, relative to the repository
// root, and where examples/ shows it (a test keeps them equal).
const (
	AppPath              = ".github/workflows/app-latency.yml"
	AppConfigPath        = "latgate.app.yaml"
	AppExamplePath       = "examples/app/github-workflow.yml"
	AppConfigExamplePath = "examples/app/latgate.yaml"
)

// AppExample returns the app recipe's workflow; each call a fresh copy.
func AppExample() []byte { return append([]byte(nil), appWorkflow...) }

// AppConfig returns the app recipe's config; each call a fresh copy.
func AppConfig() []byte { return append([]byte(nil), appConfig...) }
