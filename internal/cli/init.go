package cli

import (
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/internal/app"
	"github.com/latgate/latgate/internal/workflow"
)

func initCommand(a *app.App) *ucli.Command {
	return &ucli.Command{
		Name:      "init",
		Usage:     "write a commented latgate.yaml and a GitHub Actions workflow into this repository",
		UsageText: "latgate init [--dir .] [--app]",
		Description: `EXAMPLES:
   latgate init                 # latgate.yaml and the workflow, here
   latgate init --dir ../svc    # in another repository's root
   latgate init --app           # the recipe for your own app's server instead

Writes, at the root of the repository:

  latgate.yaml                    what to measure and how strictly; it starts
                                  on the built-in simulator (no key, no network)
  ` + workflow.Path + `   check on pull requests, a label
                                  (latgate:bless) that blesses a pull request's
                                  baseline on the runner, a nightly check, and
                                  a manual "bless" job that opens a pull
                                  request with a new baseline; its header says
                                  what each run costs in requests

then prints the next steps. With --app it writes the recipe for gating your
own app's build instead (docs/your-app.md):

  ` + workflow.AppConfigPath + `                two targets, the base branch's build and
                                  this one's, each started by its serve:
  ` + workflow.AppPath + `   on pull requests: build both,
                                  latgate ab between them

It refuses to overwrite any file (exit 2, and nothing is written).`,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "dir", Value: ".", Usage: "the repository root to write into", TakesFile: true},
			&ucli.BoolFlag{Name: "app", Usage: "write the recipe for your own app's server (" + workflow.AppConfigPath + " and " + workflow.AppPath + "): the base branch's build against the pull request's, with latgate ab"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usageErr(fmt.Errorf("init takes no arguments, got %q (did you mean --dir %s?)", c.Args().First(), c.Args().First()))
			}
			return a.Init(c.String("dir"), c.Bool("app"))
		},
	}
}
