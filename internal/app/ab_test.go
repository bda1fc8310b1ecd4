package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/internal/golden"
	"github.com/latgate/latgate/internal/publish"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/measure"
	"github.com/latgate/latgate/pkg/results"
)

// replayAB is a MeasureAB that returns the sides of a recorded A/B run
// (testdata/ab/recorded.json, written by `latgate ab --out` on the
// simulator) instead of measuring, so that the report is the same bytes on
// every run. It answers only the first look; a test that needs a round
// fails.
func replayAB(t *testing.T, path string) func(context.Context, measure.ABOptions) (*results.File, *results.File, error) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	return func(_ context.Context, o measure.ABOptions) (*results.File, *results.File, error) {
		calls++
		rec, err := compare.DecodeRecordedAB(data, path)
		if err != nil {
			return nil, nil, err
		}
		if calls > 1 || o.Run.Requests != rec.Candidate.Run.Requests {
			t.Fatalf("replay: call %d for %d requests; the recording has one look of %d", calls, o.Run.Requests, rec.Candidate.Run.Requests)
		}
		for k, s := range []measure.ABSide{o.Base, o.Candidate} {
			f := []*results.File{rec.Base, rec.Candidate}[k]
			if len(s.Endpoints) != len(f.Targets) || s.Endpoints[0].Model != f.Targets[0].Model || len(s.Prompts) != len(f.Targets[0].Prompts) {
				t.Fatalf("replay: side %d asks for %d targets (model %s), %d prompts; the recording has %d (model %s), %d",
					k, len(s.Endpoints), s.Endpoints[0].Model, len(s.Prompts), len(f.Targets), f.Targets[0].Model, len(f.Targets[0].Prompts))
			}
		}
		return rec.Base, rec.Candidate, nil
	}
}

// TestABGolden pins the whole user-visible output of `latgate ab` on a
// recorded run (the candidate's model ×1.6 slower to the first token, the
// simulator's level jumping ×1.3 every 1.5 s): stdout, JUnit, Markdown, and
// the --out file it writes, which must carry both sides and the comparison.
func TestABGolden(t *testing.T) {
	t.Chdir(filepath.Join("testdata", "ab"))
	a, stdout, stderr := testApp(t, nil)
	a.MeasureAB = replayAB(t, "recorded.json")
	out := t.TempDir()
	junit, md, res := filepath.Join(out, "junit.xml"), filepath.Join(out, "report.md"), filepath.Join(out, "ab.json")
	req := ABRequest{Base: "base.yaml", Candidate: "cand.yaml", Out: res, Run: Run{Quiet: true}}
	req.Gate.Reports = publish.Reports{"junit": junit, "markdown": md}
	err := a.AB(context.Background(), req)
	if !errors.Is(err, ErrRegression) {
		t.Fatalf("AB: %v, want a regression\nstderr:\n%s", err, stderr)
	}
	read := func(p string) []byte {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	golden.Check(t, "stdout.golden", stdout.Bytes())
	golden.Check(t, "junit.golden.xml", read(junit))
	golden.Check(t, "report.golden.md", read(md))
	rec, err := compare.DecodeRecordedAB(read(res), res)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Comparison == nil || rec.Comparison.Verdict != compare.Regressed || rec.Base.Targets[0].Model != "small" || rec.Candidate.Targets[0].Model != "large" {
		t.Errorf("--out: comparison %v, models %s/%s; want a regressed comparison of small against large", rec.Comparison, rec.Base.Targets[0].Model, rec.Candidate.Targets[0].Model)
	}
	for _, want := range []string{"candidate cand.yaml against base base.yaml", "base faster: ttft p50"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	if !strings.Contains(stderr.String(), "gate settings from cand.yaml") {
		t.Errorf("stderr does not say whose gate decided:\n%s", stderr)
	}
}

// TestABPlan: targets pair by position, prompts by id; what only one side
// has is named, not fatal; nothing in common, one config without
// --targets, and an unknown target are usage errors naming the fix.
func TestABPlan(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const head = "targets:\n  - {name: a, base_url: sim, model: m}\n  - {name: b, base_url: \"sim:fast\", model: m}\n"
	base := write("base.yaml", head+"prompts:\n  - {id: p, messages: [{role: user, content: hi}]}\n  - {id: old, messages: [{role: user, content: x}]}\nrun: {concurrency: 4}\n")
	cand := write("cand.yaml", "targets:\n  - {name: c, base_url: sim, model: m}\nprompts:\n  - {id: p, messages: [{role: user, content: hello}]}\n  - {id: new, messages: [{role: user, content: y}]}\n")
	other := write("other.yaml", "targets:\n  - {name: c, base_url: sim, model: m}\nprompts:\n  - {id: q, messages: [{role: user, content: hi}]}\n")
	a, _, _ := testApp(t, nil)

	pl, err := a.planAB(ABRequest{Base: base, Candidate: cand})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for k := range 2 {
		for _, tg := range pl.targets[k] {
			got = append(got, tg.Name)
		}
		for _, p := range pl.prompts[k] {
			got = append(got, p.ID+"="+p.Messages[0].Content)
		}
	}
	if diff := cmp.Diff([]string{"a", "p=hi", "c", "p=hello"}, got); diff != "" {
		t.Errorf("pairs (-want +got):\n%s", diff)
	}
	notes := strings.Join(pl.notes, "\n")
	for _, want := range []string{"target b is only in " + base, "prompt new is only in " + cand, "prompt old is only in " + base, "concurrency 4, candidate 1"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}

	pl, err = a.planAB(ABRequest{Base: base, Candidate: base, Targets: [2]string{"b", "a"}})
	if err != nil || pl.targets[0][0].Name != "b" || pl.targets[1][0].Name != "a" || len(pl.prompts[0]) != 2 {
		t.Errorf("--targets b,a of one config: %v, %+v", err, pl.targets)
	}
	for _, tt := range []struct {
		req  ABRequest
		want string
	}{
		{ABRequest{Base: base, Candidate: other}, "no target and prompt in common"},
		{ABRequest{Base: base, Candidate: base}, "pass --targets BASE,CANDIDATE"},
		{ABRequest{Base: base, Candidate: base, Targets: [2]string{"a", "a"}}, "names one target twice"},
		{ABRequest{Base: base, Candidate: cand, Targets: [2]string{"a", "zz"}}, `has no target "zz" (it has c)`},
	} {
		_, err := a.planAB(tt.req)
		if ClassOf(err) != Usage || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("planAB(%+v) = %v, want a usage error containing %q", tt.req.Targets, err, tt.want)
		}
	}
}

// TestReseeded: a simulator only the candidate names gets a seed of its
// own, unless its spec sets one.
func TestReseeded(t *testing.T) {
	for _, tt := range []struct{ spec, want string }{
		{"default?seed=4&ttft_factor=1.3", "default?seed=4&ttft_factor=1.3"},
		{"", "?seed="},
		{"fast", "fast?seed="},
		{"default?ttft_factor=1.3", "default?ttft_factor=1.3&seed="},
	} {
		if got := reseeded(tt.spec); !strings.HasPrefix(got, tt.want) || got == tt.spec && tt.spec != tt.want {
			t.Errorf("reseeded(%q) = %q, want it to start with %q", tt.spec, got, tt.want)
		}
	}
	if reseeded("fast?ttft=3ms") == reseeded("fast?ttft=4ms") {
		t.Errorf("two specs got one seed")
	}
}

// TestABChanges: what the sides measure differently is a target's model,
// endpoint or parameters, a prompt's text, a prompt only one side has; run
// and gate settings are not.
func TestABChanges(t *testing.T) {
	dir := t.TempDir()
	const cfg = "targets:\n  - {name: t, base_url: sim, model: %s, max_tokens: %d}\nprompts:\n  - {id: p, messages: [{role: user, content: %s}]}\n%s"
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := write("base.yaml", fmt.Sprintf(cfg, "m", 16, "hi", ""))
	a, _, _ := testApp(t, nil)
	for _, tt := range []struct {
		name, body string
		want       []string
	}{
		{"run and gate only", fmt.Sprintf(cfg, "m", 16, "hi", "run: {concurrency: 3, requests: 40}\ngate: {confidence: 90%}\n"), nil},
		{"model", fmt.Sprintf(cfg, "m2", 16, "hi", ""), []string{"target t: model m → m2"}},
		{"max_tokens", fmt.Sprintf(cfg, "m", 32, "hi", ""), []string{"target t: max_tokens 16 → 32"}},
		{"prompt text", fmt.Sprintf(cfg, "m", 16, "hello", ""), []string{"prompt p of target t: its text differs"}},
		{"prompt added", fmt.Sprintf(cfg, "m", 16, "hi", "") + "  - {id: q, messages: [{role: user, content: x}]}\n", nil},
	} {
		cand := write("cand.yaml", tt.body)
		if tt.name == "prompt added" {
			tt.want = []string{"prompt q of target t: only in " + cand}
		}
		pl, err := a.planAB(ABRequest{Base: base, Candidate: cand})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if diff := cmp.Diff(tt.want, abChanges(pl)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestABGoldenWidth (#33): ab's text report keeps to 100 columns: its
// labels and verdict details move under their rows, its outcome wraps.
func TestABGoldenWidth(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "ab", "stdout.golden"))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(data), "\n") {
		if n := utf8.RuneCountInString(line); n > 100 {
			t.Errorf("ab stdout line %d: %d columns, want ≤ 100: %s", i+1, n, line)
		}
	}
}
