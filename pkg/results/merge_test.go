package results

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// runnerFile is a results file of one runner: target "api" (with region, if
// given) measured from start for a minute.
func runnerFile(start time.Time, region string) *File {
	return &File{
		Schema: Schema, Version: "v1.0.0",
		StartedAt: start, FinishedAt: start.Add(time.Minute),
		ConfigPath: "latgate.yaml", ConfigHash: "c0ffee",
		Run: Run{Requests: 60, Warmup: 2, Concurrency: 2, TimeoutMS: 60000, Order: "interleave", Seed: 1},
		Targets: []Target{{
			Name: "api", Region: region, BaseURL: "https://api.example.com/v1", Model: "m",
			Prompts: []Prompt{{ID: "greeting", Hash: "1a2b", Requests: 1,
				Samples: []Sample{{Seq: 0, TTFT: float64(start.Minute())}}}},
			Requests: 1,
		}},
	}
}

func TestMerge(t *testing.T) {
	t0 := time.Date(2025, 6, 1, 3, 0, 0, 0, time.UTC)
	us, eu := runnerFile(t0.Add(2*time.Minute), ""), runnerFile(t0, "")
	eu.Version = "v1.0.1"
	eu.Partial, eu.PartialReason = true, "interrupted"
	snapshot := *us

	got, warnings, err := Merge([]Input{{Name: "us.json", File: us, Label: "us-east"}, {Name: "eu.json", File: eu, Label: "eu-west"}}, MergeOptions{})
	if err != nil {
		t.Fatalf("Merge: %v", err)
	}
	usT, euT := us.Targets[0], eu.Targets[0]
	usT.Region, euT.Region = "us-east", "eu-west"
	want := &File{
		Schema: Schema, Version: "v1.0.0, v1.0.1",
		StartedAt: t0, FinishedAt: t0.Add(3 * time.Minute), // eu's start, us's finish
		ConfigPath: "latgate.yaml", ConfigHash: "c0ffee",
		Partial: true, PartialReason: "eu.json: interrupted",
		Run:     us.Run,
		Targets: []Target{usT, euT},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merged file (-want +got):\n%s", diff)
	}
	wantWarnings := []string{
		"eu.json is partial (interrupted): so is the merged file",
		"the files were written by different latgate versions: v1.0.0, v1.0.1",
	}
	if diff := cmp.Diff(wantWarnings, warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if us.Targets[0].Region != "" {
		t.Errorf("Merge modified its input: %+v", us)
	}
	if diff := cmp.Diff(snapshot, *us); diff != "" {
		t.Errorf("Merge modified its input (-before +after):\n%s", diff)
	}
}

func TestMergeKeepsRegions(t *testing.T) {
	t0 := time.Date(2025, 6, 1, 3, 0, 0, 0, time.UTC)
	a, b := runnerFile(t0, "us-east"), runnerFile(t0, "eu-west")
	b.ConfigPath = "eu/latgate.yaml"
	got, warnings, err := Merge([]Input{{Name: "a.json", File: a}, {Name: "b.json", File: b, Label: "eu-west"}}, MergeOptions{})
	if err != nil {
		t.Fatalf("Merge: %v", err)
	}
	var regions []string
	for _, tg := range got.Targets {
		regions = append(regions, tg.Region)
	}
	if diff := cmp.Diff([]string{"us-east", "eu-west"}, regions); diff != "" {
		t.Errorf("regions (-want +got):\n%s", diff)
	}
	if got.ConfigPath != "" {
		t.Errorf("ConfigPath = %q, want empty for files from different configs", got.ConfigPath)
	}
	if len(warnings) != 0 {
		t.Errorf("unexpected warnings: %q", warnings)
	}
}

func TestMergeErrors(t *testing.T) {
	t0 := time.Date(2025, 6, 1, 3, 0, 0, 0, time.UTC)
	file := func(edit func(*File)) *File {
		f := runnerFile(t0, "")
		if edit != nil {
			edit(f)
		}
		return f
	}
	tests := []struct {
		name   string
		in     []Input
		kind   error
		frags  []string
		forced bool // succeeds with Force
	}{
		{name: "nothing", frags: []string{"no results files"}},
		{name: "same target twice, unlabeled",
			in:    []Input{{Name: "a.json", File: file(nil)}, {Name: "b.json", File: file(nil)}},
			frags: []string{`target "api" (no region) is in both a.json and b.json`}},
		{name: "same label twice",
			in:    []Input{{Name: "a.json", File: file(nil), Label: "us"}, {Name: "b.json", File: file(nil), Label: "us"}},
			frags: []string{`target "api" (region us) is in both a.json and b.json`}},
		{name: "label would change a region",
			in:    []Input{{Name: "a.json", File: file(func(f *File) { f.Targets[0].Region = "eu" }), Label: "us"}},
			frags: []string{`a.json: target "api" already has region "eu", which the label "us" would change`}},
		{name: "different run settings",
			in: []Input{{Name: "a.json", File: file(nil), Label: "us"},
				{Name: "b.json", File: file(func(f *File) { f.Run.Requests, f.Run.Concurrency = 30, 4 }), Label: "eu"}},
			kind: ErrMergeMismatch, forced: true,
			frags: []string{"run.requests: a.json has 60, b.json has 30", "run.concurrency: a.json has 2, b.json has 4"}},
		{name: "different configs",
			in: []Input{{Name: "a.json", File: file(nil), Label: "us"},
				{Name: "b.json", File: file(func(f *File) { f.ConfigHash = "beef" }), Label: "eu"}},
			kind: ErrMergeMismatch, forced: true,
			frags: []string{"config_hash (the configs differ): a.json has c0ffee, b.json has beef"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _, err := Merge(tt.in, MergeOptions{})
			if err == nil {
				t.Fatalf("Merge succeeded: %+v", f)
			}
			t.Log(err)
			if tt.kind != nil && !errors.Is(err, tt.kind) {
				t.Errorf("error %q is not %v", err, tt.kind)
			}
			for _, frag := range tt.frags {
				if !strings.Contains(err.Error(), frag) {
					t.Errorf("error %q does not contain %q", err, frag)
				}
			}
			f, warnings, err := Merge(tt.in, MergeOptions{Force: true})
			switch {
			case tt.forced && err != nil:
				t.Errorf("Merge with Force: %v", err)
			case tt.forced:
				joined := strings.Join(warnings, "\n")
				for _, frag := range tt.frags {
					if !strings.Contains(joined, frag) {
						t.Errorf("forced merge warnings %q do not contain %q", warnings, frag)
					}
				}
				if len(f.Targets) != len(tt.in) {
					t.Errorf("forced merge has %d targets, want %d", len(f.Targets), len(tt.in))
				}
			case err == nil:
				t.Errorf("Merge with Force succeeded; Force must only override setting differences")
			}
		})
	}
}

func TestMergeDuplicateTargetError(t *testing.T) {
	f := runnerFile(time.Date(2025, 6, 1, 3, 0, 0, 0, time.UTC), "")
	_, _, err := Merge([]Input{{Name: "a.json", File: f}, {Name: "b.json", File: f}}, MergeOptions{})
	var dup *DuplicateTargetError
	if !errors.As(err, &dup) {
		t.Fatalf("error %v is not a *DuplicateTargetError", err)
	}
	if diff := cmp.Diff(DuplicateTargetError{Target: "api", First: "a.json", Second: "b.json"}, *dup); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestLabelsFromNames(t *testing.T) {
	tests := []struct {
		paths []string
		want  []string
	}{
		{[]string{"results-us-east.json", "results-eu-west.json"}, []string{"us-east", "eu-west"}},
		{[]string{"out/results_us.json", "out/results_eu.json", "out/results_ap.json"}, []string{"us", "eu", "ap"}},
		{[]string{"artifacts/us-east/results.json", "artifacts/eu-west/results.json"}, []string{"us-east", "eu-west"}},
		{[]string{"us-results.json", "eu-results.json"}, []string{"us", "eu"}},
		// Shared characters that are not whole parts stay.
		{[]string{"results-east.json", "results-west.json"}, []string{"east", "west"}},
		{[]string{"results-a.json", "results-ab.json"}, []string{"a", "ab"}},
		// One file: nothing to compare with, so the usual "results-" goes.
		{[]string{"dir/results-us-east.json"}, []string{"us-east"}},
		{[]string{"eu.json"}, []string{"eu"}},
		{[]string{"results.json"}, []string{"results"}},
	}
	for _, tt := range tests {
		got, err := LabelsFromNames(tt.paths)
		if err != nil {
			t.Errorf("LabelsFromNames(%q): %v", tt.paths, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("LabelsFromNames(%q) (-want +got):\n%s", tt.paths, diff)
		}
	}
	for _, paths := range [][]string{
		{"a/results.json", "a/results.json"},
		{"a/results.json", "./a/results.json"},
		// A label becomes a region: none that CheckText refuses.
		{"esc/results-x\n::error::x.json", "esc/results-y.json"},
		{"esc/results-y\x1b[2J.json", "esc/results-z.json"},
		{"esc/results-a b.json"},
	} {
		if got, err := LabelsFromNames(paths); err == nil {
			t.Errorf("LabelsFromNames(%q) = %q, want an error", paths, got)
		} else {
			t.Log(err)
		}
	}
}
