package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// abGates are gates for the recorded A/B run (testdata/ab/recorded.json:
// the candidate's TTFT p50 +59% [+43%, +77%], p90 +55% [+41%, +81%] at one look, ITL
// p50 +3% [-5%, +25%], pooled). Regressed: cand.yaml's own gate (TTFT p50
// tolerance 20%). Undecided: the TTFT p50 tolerance out of reach (100%),
// the p90 tolerance (60%) inside the pooled interval (+41%, +81% at one look). Ok: every tolerance
// beyond the intervals' upper ends.
const (
	abGateRegressed = "gate:\n  checks:\n    - {metric: ttft, stat: p50, tolerance: 20%, floor: 20ms}\n    - {metric: ttft, stat: p90, tolerance: 35%, floor: 40ms}\n    - {metric: itl, stat: p50, tolerance: 15%, floor: 2ms}\n"
	abGateUndecided = "gate:\n  on_inconclusive: %s\n  checks:\n    - {metric: ttft, stat: p50, tolerance: 60%, floor: 20ms}\n    - {metric: itl, stat: p50, tolerance: 60%, floor: 2ms}\n"
	abGateOK        = "gate:\n  checks:\n    - {metric: ttft, stat: p50, tolerance: 100%, floor: 20ms}\n    - {metric: itl, stat: p50, tolerance: 60%, floor: 2ms}\n"
)

// abWorkspace copies testdata/ab's configs into a directory of their own,
// run.max_requests pinned to run.requests (the recording is one look), the
// candidate's gate replaced by gate, and changes into it.
func abWorkspace(t *testing.T, gate string) {
	t.Helper()
	src, err := filepath.Abs(filepath.Join("testdata", "ab"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"base.yaml", "cand.yaml", "recorded.json"} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		s := string(data)
		if name != "recorded.json" {
			s = strings.Replace(s, "run:\n  requests: 30\n", "run:\n  requests: 30\n  max_requests: 30\n", 1)
			if !strings.Contains(s, "max_requests: 30") {
				t.Fatalf("%s: no run.requests: 30 to pin", name)
			}
		}
		if name == "cand.yaml" {
			head, _, ok := strings.Cut(s, "gate:\n")
			if !ok {
				t.Fatalf("cand.yaml has no gate")
			}
			s = head + gate
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
}

// TestABOutcomes: `latgate ab` ends as check does — gate.on_inconclusive
// (pass, warn, fail) and --strict decide what an undecided gated check
// does to the run, a regression is ErrRegression (exit 1), ok passes —
// and inside GitHub Actions it writes verdict= to $GITHUB_OUTPUT, its
// report naming both configs to the job summary, and ::error / ::warning
// annotations on the candidate's config, as check's.
func TestABOutcomes(t *testing.T) {
	for _, tt := range []struct {
		name    string
		gate    string
		strict  bool
		class   Class
		verdict string
		// what must appear on stdout (the report's text and the
		// annotations), and what must not
		want, notWant []string
	}{
		{name: "regressed", gate: abGateRegressed, class: Regression, verdict: "regressed",
			want: []string{"::error file=cand.yaml,line=", "title=latency regression%3A sim/"}},
		{name: "undecided, on_inconclusive: warn", gate: strings.Replace(abGateUndecided, "%s", "warn", 1), class: Pass, verdict: "inconclusive",
			want: []string{"::warning file=cand.yaml,line=4,title=undecided%3A sim/all prompts (pooled) ttft p50", "note: 1 gated check stayed undecided after the planned rounds (gate.on_inconclusive: warn passes it; fail, or --strict, fails it): about"}, notWant: []string{"::error"}},
		{name: "undecided, on_inconclusive: pass", gate: strings.Replace(abGateUndecided, "%s", "pass", 1), class: Pass, verdict: "inconclusive",
			want: []string{"note: 1 gated check stayed undecided after the planned rounds (gate.on_inconclusive: pass): about"}, notWant: []string{"::error", "title=undecided%3A"}},
		{name: "undecided, on_inconclusive: fail", gate: strings.Replace(abGateUndecided, "%s", "fail", 1), class: Regression, verdict: "inconclusive",
			want: []string{"title=undecided%3A sim/all prompts (pooled) ttft p50", "next: 1 gated check stayed undecided after the planned rounds: about", "more blocks per prompt would decide them (raise run.max_requests in cand.yaml)"}},
		{name: "undecided, --strict", gate: strings.Replace(abGateUndecided, "%s", "warn", 1), strict: true, class: Regression, verdict: "inconclusive"},
		{name: "ok", gate: abGateOK, class: Pass, verdict: "ok", notWant: []string{"::error", "title=undecided%3A"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			abWorkspace(t, tt.gate)
			summary, output := filepath.Join(t.TempDir(), "summary.md"), filepath.Join(t.TempDir(), "output.txt")
			a, stdout, stderr := testApp(t, map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary, "GITHUB_OUTPUT": output})
			a.MeasureAB = replayAB(t, "recorded.json")
			req := ABRequest{Base: "base.yaml", Candidate: "cand.yaml", Run: Run{Quiet: true}}
			req.Strict = tt.strict
			err := a.AB(context.Background(), req)
			if got := ClassOf(err); got != tt.class {
				t.Fatalf("AB: %v (class %v), want class %v\nstdout:\n%s\nstderr:\n%s", err, got, tt.class, stdout, stderr)
			}
			out, err := os.ReadFile(output)
			if err != nil {
				t.Fatal(err)
			}
			if !regexp.MustCompile(`(?m)^verdict=` + tt.verdict + `$`).Match(out) {
				t.Errorf("$GITHUB_OUTPUT lacks verdict=%s:\n%s", tt.verdict, out)
			}
			sum, err := os.ReadFile(summary)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(sum, []byte("`cand.yaml`")) || !bytes.Contains(sum, []byte("`base.yaml`")) {
				t.Errorf("the job summary does not name both configs:\n%s", sum)
			}
			text := strings.Join(strings.Fields(stdout.String()), " ") // the report wraps at 100 columns
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(stdout.String(), w) {
					t.Errorf("stdout has %q:\n%s", w, stdout)
				}
			}
		})
	}
}

// TestABGateFromConfig: --config's gate decides instead of the
// candidate's, and stderr says whose gate it was.
func TestABGateFromConfig(t *testing.T) {
	abWorkspace(t, abGateRegressed)
	cand, err := os.ReadFile("cand.yaml")
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(string(cand), "gate:\n")
	if err := os.WriteFile("gate.yaml", []byte(head+abGateOK), 0o644); err != nil {
		t.Fatal(err)
	}
	a, stdout, stderr := testApp(t, nil)
	a.MeasureAB = replayAB(t, "recorded.json")
	err = a.AB(context.Background(), ABRequest{Base: "base.yaml", Candidate: "cand.yaml", GateConfig: "gate.yaml", Run: Run{Quiet: true}})
	if err != nil {
		t.Fatalf("AB with --config gate.yaml (tolerances beyond the intervals): %v, want a pass\nstdout:\n%s", err, stdout)
	}
	if !strings.Contains(stderr.String(), "gate settings from gate.yaml") {
		t.Errorf("stderr does not say --config's gate decided:\n%s", stderr)
	}
}
