package results

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
)

// Input is one results file to merge.
type Input struct {
	// Name names the file in messages (its path, as given).
	Name string
	File *File
	// Label becomes the region of every target of the file that has none: the
	// runner or region the file was measured from. "" leaves regions as they are.
	Label string
}

// MergeOptions tune Merge.
type MergeOptions struct {
	// Force merges files whose run settings or config hash differ; each
	// difference is then returned as a warning instead of an error.
	Force bool
}

// ErrMergeMismatch is the kind of error Merge returns when the files were
// measured with different run settings or configs (and Force is off).
var ErrMergeMismatch = errors.New("results files measured with different settings")

// DuplicateTargetError is returned by Merge when two files hold the same
// target (name and region): their samples would be indistinguishable.
type DuplicateTargetError struct {
	Target, Region string
	First, Second  string // the files holding it
}

func (e *DuplicateTargetError) Error() string {
	region := "(no region)"
	if e.Region != "" {
		region = "(region " + e.Region + ")"
	}
	if e.First == e.Second {
		return fmt.Sprintf("target %q %s is twice in %s", e.Target, region, e.First)
	}
	return fmt.Sprintf("target %q %s is in both %s and %s", e.Target, region, e.First, e.Second)
}

// Merge combines results files measured from several runners or regions into
// one, so that one comparison, one report and one verdict cover them all.
//
// Targets keep their region; a file's Label fills in the region of its
// targets that have none, and a label that would change a region already set
// is an error. Every (target name, region) must be unique across the files,
// else the error is a *DuplicateTargetError. The files must share run
// settings and config hash: a difference is an error wrapping
// ErrMergeMismatch that names each difference, or with opts.Force a warning.
//
// The merged file spans the earliest start to the latest finish, is partial
// when any input is, and lists distinct latgate versions and config hashes
// (normally one of each). Targets appear in input order. A comparison stored
// in an input is dropped: compare the merged file again. Merge does not
// modify its inputs; the merged file shares their samples.
func Merge(in []Input, opts MergeOptions) (*File, []string, error) {
	if len(in) == 0 {
		return nil, nil, errors.New("merge: no results files")
	}
	for _, x := range in {
		if x.File == nil {
			return nil, nil, fmt.Errorf("merge: %s: no results", x.Name)
		}
	}
	var warnings []string
	if diffs := runDiffs(in); len(diffs) > 0 {
		if !opts.Force {
			return nil, nil, fmt.Errorf("%w:\n  - %s", ErrMergeMismatch, strings.Join(diffs, "\n  - "))
		}
		for _, d := range diffs {
			warnings = append(warnings, "merged despite a difference: "+d)
		}
	}

	first := in[0].File
	out := &File{
		Schema:     Schema,
		StartedAt:  first.StartedAt,
		FinishedAt: first.FinishedAt,
		ConfigPath: first.ConfigPath,
		Run:        first.Run,
	}
	if err := sameRun(in); err != nil {
		return nil, nil, err
	}
	var versions, hashes, partial []string
	seen := map[string]string{} // target key → file holding it
	for _, x := range in {
		f := x.File
		versions = appendNew(versions, f.Version)
		hashes = appendNew(hashes, f.ConfigHash)
		if f.ConfigPath != out.ConfigPath {
			out.ConfigPath = ""
		}
		if !f.StartedAt.IsZero() && (out.StartedAt.IsZero() || f.StartedAt.Before(out.StartedAt)) {
			out.StartedAt = f.StartedAt
		}
		if f.FinishedAt.After(out.FinishedAt) {
			out.FinishedAt = f.FinishedAt
		}
		if f.Partial {
			reason := f.PartialReason
			if reason == "" {
				reason = "stopped early"
			}
			partial = append(partial, x.Name+": "+reason)
			warnings = append(warnings, x.Name+" is partial ("+reason+"): so is the merged file")
		}
		for _, t := range f.Targets {
			if x.Label != "" {
				switch t.Region {
				case "":
					t.Region = x.Label
				case x.Label:
				default:
					return nil, nil, fmt.Errorf("merge: %s: target %q already has region %q, which the label %q would change: drop the label", x.Name, t.Name, t.Region, x.Label)
				}
			}
			key := t.Name + "\x00" + t.Region
			if prev, dup := seen[key]; dup {
				return nil, nil, &DuplicateTargetError{Target: t.Name, Region: t.Region, First: prev, Second: x.Name}
			}
			seen[key] = x.Name
			out.Targets = append(out.Targets, t)
		}
	}
	if len(versions) > 1 {
		warnings = append(warnings, "the files were written by different latgate versions: "+strings.Join(versions, ", "))
	}
	out.Version = strings.Join(versions, ", ")
	out.ConfigHash = strings.Join(hashes, ",")
	out.Partial = len(partial) > 0
	out.PartialReason = strings.Join(partial, "; ")
	return out, warnings, nil
}

// sameRun returns an error when two inputs hold a target with the same name
// and the very same measurements: one runner's file given twice (or copied
// under another name) and labelled as two regions would count its requests
// twice, and the merged comparison would be twice as sure as the data. Two
// runners never time every request to the same microsecond; a target whose
// requests all failed has no timings to tell, and is left alone.
func sameRun(in []Input) error {
	seen := map[uint64]string{} // fingerprint → file holding it
	for _, x := range in {
		for _, t := range x.File.Targets {
			fp, ok := fingerprint(t)
			if !ok {
				continue
			}
			if prev, dup := seen[fp]; dup && prev != x.Name {
				return fmt.Errorf("%s and %s hold the same measurements of target %q (the same run given twice): "+
					"merging them would count its requests twice; give each runner's results file once", prev, x.Name, t.Name)
			} else if dup {
				return fmt.Errorf("%s is given twice: merging it with itself would count its requests twice; give each runner's results file once", x.Name)
			}
			seen[fp] = x.Name
		}
	}
	return nil
}

// fingerprint hashes a target's name and the timings of its requests
// (FNV-1a); ok is false when no request has a timing.
func fingerprint(t Target) (fp uint64, ok bool) {
	const prime = 1099511628211
	fp = 14695981039346656037
	mix := func(v uint64) {
		for range 8 {
			fp ^= v & 0xff
			fp *= prime
			v >>= 8
		}
	}
	for i := 0; i < len(t.Name); i++ {
		mix(uint64(t.Name[i]))
	}
	for _, p := range t.Prompts {
		mix(uint64(len(p.Samples)))
		for _, s := range p.Samples {
			if s.TTFT != 0 || s.Total != 0 {
				ok = true
			}
			mix(uint64(s.Seq))
			mix(math.Float64bits(s.AtMS))
			mix(math.Float64bits(s.TTFT))
			mix(math.Float64bits(s.Total))
		}
	}
	return fp, ok
}

// runDiffs names each run setting and the config hash where a file differs
// from the first one.
func runDiffs(in []Input) []string {
	first := in[0]
	r0 := first.File.Run
	var diffs []string
	for _, x := range in[1:] {
		r := x.File.Run
		add := func(field, a, b string) {
			if a != b {
				diffs = append(diffs, fmt.Sprintf("%s: %s has %s, %s has %s", field, first.Name, a, x.Name, b))
			}
		}
		itoa := strconv.Itoa
		add("run.requests", itoa(r0.Requests), itoa(r.Requests))
		add("run.warmup", itoa(r0.Warmup), itoa(r.Warmup))
		add("run.concurrency", itoa(r0.Concurrency), itoa(r.Concurrency))
		add("run.rate", strconv.FormatFloat(r0.Rate, 'g', -1, 64), strconv.FormatFloat(r.Rate, 'g', -1, 64))
		add("run.arrival", strconv.Quote(r0.Arrival), strconv.Quote(r.Arrival))
		add("run.max_in_flight", itoa(r0.MaxInFlight), itoa(r.MaxInFlight))
		add("run.timeout_ms", strconv.FormatFloat(r0.TimeoutMS, 'g', -1, 64), strconv.FormatFloat(r.TimeoutMS, 'g', -1, 64))
		add("run.order", strconv.Quote(r0.Order), strconv.Quote(r.Order))
		add("run.seed", strconv.FormatInt(r0.Seed, 10), strconv.FormatInt(r.Seed, 10))
		add("config_hash (the configs differ)", orNone(first.File.ConfigHash), orNone(x.File.ConfigHash))
	}
	return diffs
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func appendNew(list []string, s string) []string {
	if s == "" {
		return list
	}
	for _, v := range list {
		if v == s {
			return list
		}
	}
	return append(list, s)
}

// labelSeparators end the parts of a file name that LabelsFromNames drops.
const labelSeparators = "/-_."

// LabelsFromNames derives a label per results file from its path: the path
// without its extension, less the leading and trailing parts that all the
// paths share (cut at "/", "-", "_" or "."). So results-us-east.json and
// results-eu-west.json give us-east and eu-west, and us/results.json and
// eu/results.json (one artifact per directory) give us and eu. A single path
// gives its base name without the extension. An empty or repeated label is an
// error naming the paths.
func LabelsFromNames(paths []string) ([]string, error) {
	labels, err := labelsFromNames(paths)
	if err != nil {
		return nil, err
	}
	for i, l := range labels {
		// A label becomes a region, which every reader holds to
		// CheckText: a name with a newline or an escape made a file that
		// latgate itself then refused as damaged.
		if !ValidLabel(l) {
			return nil, fmt.Errorf("cannot derive a label from %q: a label is printable characters without spaces; name it with FILE=LABEL", paths[i])
		}
	}
	return labels, nil
}

// ValidLabel reports whether s may label a merged file (its targets'
// region): printable characters, no spaces, as CheckText and a command
// line both take it.
func ValidLabel(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) < 0
}

func labelsFromNames(paths []string) ([]string, error) {
	stems := make([]string, len(paths))
	for i, p := range paths {
		p = filepath.ToSlash(filepath.Clean(p))
		stems[i] = strings.TrimSuffix(p, filepath.Ext(p))
	}
	if len(stems) == 1 { // nothing to compare with: drop the usual "results-"
		base := stems[0][strings.LastIndex(stems[0], "/")+1:]
		if l := strings.TrimLeft(strings.TrimPrefix(base, "results"), labelSeparators); l != "" {
			base = l
		}
		return []string{base}, nil
	}
	prefix := stems[0]
	for _, s := range stems[1:] {
		prefix = prefix[:commonPrefixLen(prefix, s)]
	}
	prefix = prefix[:strings.LastIndexAny(prefix, labelSeparators)+1]
	rest := make([]string, len(stems))
	for i, s := range stems {
		rest[i] = s[len(prefix):]
	}
	suffix := rest[0]
	for _, s := range rest[1:] {
		suffix = suffix[len(suffix)-commonSuffixLen(suffix, s):]
	}
	if i := strings.IndexAny(suffix, labelSeparators); i >= 0 {
		suffix = suffix[i:]
	} else {
		suffix = ""
	}
	labels := make([]string, len(rest))
	byLabel := map[string]string{}
	for i, r := range rest {
		labels[i] = strings.TrimSuffix(r, suffix)
		if labels[i] == "" {
			return nil, fmt.Errorf("cannot derive a label from %s: its name is all shared with the other files", paths[i])
		}

		if prev, dup := byLabel[labels[i]]; dup {
			return nil, fmt.Errorf("%s and %s both give the label %q", prev, paths[i], labels[i])
		}
		byLabel[labels[i]] = paths[i]
	}
	return labels, nil
}

func commonPrefixLen(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func commonSuffixLen(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}
