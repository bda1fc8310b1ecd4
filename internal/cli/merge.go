package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/results"
)

type mergeOptions struct {
	// Args are the files, each FILE or FILE=LABEL.
	Args              []string
	LabelFromFilename bool
	Force             bool
	Out               string
}

func mergeCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "merge",
		Usage:     "merge results files measured from several runners or regions into one",
		UsageText: "latgate merge [--label-from-filename] [--force] [--out merged.json] FILE[=LABEL]... > merged.json",
		Description: `Teams that measure from several regions or runners (a GitHub Actions
matrix running 'latgate measure --out results-REGION.json') merge the files,
so that one comparison, one report and one verdict cover them all:

  latgate merge results-us-east.json=us-east results-eu-west.json=eu-west > merged.json
  latgate merge --label-from-filename results-*.json > merged.json
  latgate compare latgate.baseline.json merged.json

Targets keep their region (region: in the config). A LABEL becomes the region
of the file's targets that have none; --label-from-filename takes it from each
file name, less the parts all names share (results-us-east.json → us-east,
us-east/results.json → us-east). The same target and region in two files is
an error. So are different run settings or configs, naming what differs,
unless --force. The merged file is partial if any input is.

` + mergeExitHelp,
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "label-from-filename", Aliases: []string{"L"}, Usage: "label each file's targets with a region taken from the file name"},
			&ucli.BoolFlag{Name: "force", Usage: "merge files measured with different run settings or configs"},
			&ucli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write the merged results to `FILE` (atomically) instead of stdout", TakesFile: true},
		},
		Action: func(c *ucli.Context) error {
			return runMerge(env, mergeOptions{
				Args: c.Args().Slice(), LabelFromFilename: c.Bool("label-from-filename"),
				Force: c.Bool("force"), Out: c.String("out"),
			})
		},
	}
}

func runMerge(env Env, opts mergeOptions) error {
	if len(opts.Args) == 0 {
		return usageErr(errors.New("merge takes the results files to merge: latgate merge FILE[=LABEL]..."))
	}
	paths := make([]string, len(opts.Args))
	labels := make([]string, len(opts.Args))
	for i, arg := range opts.Args {
		p, label, err := splitLabel(arg)
		if err != nil {
			return usageErr(err)
		}
		if label != "" && opts.LabelFromFilename {
			return usageErr(fmt.Errorf("%s: give labels as FILE=LABEL or with --label-from-filename, not both", arg))
		}
		paths[i], labels[i] = p, label
	}
	if opts.LabelFromFilename {
		var err error
		if labels, err = results.LabelsFromNames(paths); err != nil {
			return usageErr(fmt.Errorf("--label-from-filename: %w", err))
		}
	}
	sink := env.out.Sink()
	for _, p := range paths {
		sink.Input("the input", p)
	}
	out := sink.Output("--out", opts.Out)
	if err := sink.Check(); err != nil {
		return usageErr(err)
	}
	in := make([]results.Input, len(paths))
	for i, p := range paths {
		f, err := results.Read(p)
		if err != nil {
			return usageErr(err)
		}
		in[i] = results.Input{Name: p, File: f, Label: labels[i]}
	}
	merged, warnings, err := results.Merge(in, results.MergeOptions{Force: opts.Force})
	var dup *results.DuplicateTargetError
	switch {
	case errors.As(err, &dup):
		return usageErr(fmt.Errorf("%w: label each file with its runner or region (FILE=LABEL, e.g. %s=us-east %s=eu-west), use --label-from-filename, or set region: in each runner's config", err, dup.First, dup.Second))
	case errors.Is(err, results.ErrMergeMismatch):
		return usageErr(fmt.Errorf("cannot merge: %w\n(merge runs of the same config and settings; --force merges anyway)", err))
	case err != nil:
		return usageErr(err)
	}
	for _, w := range warnings {
		fmt.Fprintf(env.Stderr, "latgate: warning: %s\n", w)
	}
	if out != nil {
		if err := writeRecorded(out, compare.Recorded{File: merged}); err != nil {
			return outputErr("", false, err)
		}
	} else if err := results.Encode(env.Stdout, merged); err != nil {
		return usageErr(fmt.Errorf("writing merged results: %w", err))
	}
	names := make([]string, len(merged.Targets))
	for i, t := range merged.Targets {
		names[i] = t.Label()
	}
	files := fmt.Sprintf("%d files", len(in))
	if len(in) == 1 {
		files = "1 file"
	}
	fmt.Fprintf(env.Stderr, "latgate: merged %s: targets %s\n", files, strings.Join(names, ", "))
	return nil
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
	if path == "" || label == "" || strings.IndexFunc(label, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0 {
		return "", "", fmt.Errorf("%q: want FILE=LABEL with a label of printable characters and no spaces", arg)
	}
	return path, label, nil
}
