package cli

import (
	"fmt"
	"os"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/internal/app"
	"github.com/latgate/latgate/pkg/results"
)

func mergeCommand(a *app.App) *ucli.Command {
	return &ucli.Command{
		Name:      "merge",
		Usage:     "merge results files measured from several runners or regions into one",
		UsageText: "latgate merge [--label-from-filename] [--force] [--out merged.json] FILE[=LABEL]... > merged.json",
		Description: `EXAMPLES:
   latgate merge results-us-east.json=us-east results-eu-west.json=eu-west > merged.json
   latgate merge --label-from-filename --out merged.json results-*.json

Teams that measure from several regions or runners (a GitHub Actions
matrix running 'latgate measure --out results-REGION.json') merge the files,
so that one comparison, one report and one verdict cover them all:

  latgate merge results-us-east.json=us-east results-eu-west.json=eu-west > merged.json
  latgate merge --label-from-filename results-*.json > merged.json
  latgate compare latgate.baseline.json merged.json

Targets keep their region (region: in the config). A LABEL becomes the region
of the file's targets that have none; --label-from-filename takes it from each
file name, less the parts all names share (results-us-east.json → us-east,
us-east/results.json → us-east). The same target and region in two files is
an error, and so is one run given twice (a file, or a copy of it, under two
labels: its requests would count twice). So are different run settings or
configs, naming what differs, unless --force. The merged file is partial if
any input is.

` + mergeExitHelp,
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "label-from-filename", Aliases: []string{"L"}, Usage: "label each file's targets with a region taken from the file name"},
			&ucli.BoolFlag{Name: "force", Usage: "merge files measured with different run settings or configs"},
			&ucli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write the merged results to `FILE` (atomically) instead of stdout", TakesFile: true},
		},
		Action: func(c *ucli.Context) error {
			req := app.MergeRequest{LabelFromFilename: c.Bool("label-from-filename"), Force: c.Bool("force"), Out: c.String("out")}
			for _, arg := range c.Args().Slice() {
				p, label, err := splitLabel(arg)
				if err != nil {
					return usageErr(err)
				}
				if label != "" && req.LabelFromFilename {
					return usageErr(fmt.Errorf("%s: give labels as FILE=LABEL or with --label-from-filename, not both", arg))
				}
				req.Files = append(req.Files, app.MergeFile{Path: p, Label: label})
			}
			return a.Merge(req)
		},
	}
}

// splitLabel splits FILE=LABEL. An argument naming an existing file is a
// file, even with "=" in its name.
func splitLabel(arg string) (path, label string, err error) {
	if _, err := os.Stat(arg); err == nil {
		return arg, "", nil
	}
	i := strings.LastIndexByte(arg, '=')
	if i < 0 {
		return arg, "", nil
	}
	path, label = arg[:i], arg[i+1:]
	if path == "" || !results.ValidLabel(label) {
		return "", "", fmt.Errorf("%q: want FILE=LABEL with a label of printable characters and no spaces", arg)
	}
	return path, label, nil
}
