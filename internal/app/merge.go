package app

import (
	"errors"
	"fmt"
	"github.com/latgate/latgate/internal/inputfile"
	"strings"

	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/results"
)

// MergeRequest is `latgate merge`: results files from several runners or
// regions merged into one.
type MergeRequest struct {
	Files []MergeFile
	// LabelFromFilename labels each file's targets with a region taken from
	// its name, less the parts all names share.
	LabelFromFilename bool
	// Force merges files measured with different run settings or configs.
	Force bool
	// Out is where the merged file goes ("": stdout).
	Out string
}

// MergeFile is one input: its path, and the region its targets without one
// get ("": none).
type MergeFile struct {
	Path, Label string
}

// Merge merges the files, so that one comparison, one report and one
// verdict cover them all.
func (a *App) Merge(req MergeRequest) error {
	if len(req.Files) == 0 {
		return UsageError(errors.New("merge takes the results files to merge: latgate merge FILE[=LABEL]..."))
	}
	paths := make([]string, len(req.Files))
	labels := make([]string, len(req.Files))
	for i, f := range req.Files {
		paths[i], labels[i] = f.Path, f.Label
	}
	if req.LabelFromFilename {
		var err error
		if labels, err = results.LabelsFromNames(paths); err != nil {
			return UsageError(fmt.Errorf("--label-from-filename: %w", err))
		}
	}
	sink := a.Out.Sink()
	for _, p := range paths {
		sink.Input("the input", p)
	}
	out := sink.Output("--out", req.Out)
	if err := sink.Check(); err != nil {
		return UsageError(err)
	}
	in := make([]results.Input, len(paths))
	for i, p := range paths {
		f, err := results.Read(p)
		if err != nil {
			return UsageError(err)
		}
		in[i] = results.Input{Name: p, File: f, Label: labels[i]}
	}
	merged, warnings, err := results.Merge(in, results.MergeOptions{Force: req.Force})
	var dup *results.DuplicateTargetError
	switch {
	case errors.As(err, &dup):
		return UsageError(fmt.Errorf("%w: label each file with its runner or region (FILE=LABEL, e.g. %s=us-east %s=eu-west), use --label-from-filename, or set region: in each runner's config", err, dup.First, dup.Second))
	case errors.Is(err, results.ErrMergeMismatch):
		return UsageError(fmt.Errorf("cannot merge: %w\n(merge runs of the same config and settings; --force merges anyway)", err))
	case err != nil:
		return UsageError(err)
	}
	for _, w := range warnings {
		a.Out.Warn("%s", w)
	}
	// Every reader caps a results file at inputfile.MaxData: a merge past
	// it would write a file no latgate command can read back.
	var size byteCount
	if err := results.Encode(&size, merged); err == nil && size > inputfile.MaxData {
		return UsageError(fmt.Errorf("the merged results would be %.1f MiB, over the %d MiB a results file may hold, so nothing could read them back: "+
			"merge fewer files at a time, or measure fewer requests (or max_tokens) per run", float64(size)/(1<<20), inputfile.MaxData>>20))
	}
	if out != nil {
		if err := writeResults(out, compare.Recorded{File: merged}); err != nil {
			return outputErr("", false, err)
		}
	} else if err := results.Encode(a.Out.Stdout, merged); err != nil {
		return outputErr("", false, fmt.Errorf("could not write the merged results to stdout: %w", err))
	}
	names := make([]string, len(merged.Targets))
	for i, t := range merged.Targets {
		names[i] = t.Label()
	}
	a.Out.Note("merged %s: targets %s", plural(len(in), "file", "files"), strings.Join(names, ", "))
	return nil
}

// byteCount is an io.Writer that counts what is written to it.
type byteCount int64

func (n *byteCount) Write(p []byte) (int, error) {
	*n += byteCount(len(p))
	return len(p), nil
}
