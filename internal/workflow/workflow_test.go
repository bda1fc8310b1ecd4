package workflow

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
)

func root() string { return filepath.Join("..", "..") }

var update = flag.Bool("update", false, "rewrite examples/github-workflow.yml from the embedded workflow")

// TestExampleInSync keeps examples/github-workflow.yml, shown in the README,
// equal to what `latgate init` writes (github-workflow.yml with the cost of
// the example config's runs filled in).
func TestExampleInSync(t *testing.T) {
	path := filepath.Join(root(), filepath.FromSlash(ExamplePath))
	if *update {
		if err := os.WriteFile(path, Example(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got), strings.TrimSpace(costMarker)) {
		t.Errorf("%s still holds the marker %s", ExamplePath, costMarker)
	}
	if diff := cmp.Diff(string(Example()), string(got)); diff != "" {
		t.Errorf("%s differs from internal/workflow/github-workflow.yml (-embedded +example); "+
			"edit the embedded one and render it:\n  go test ./internal/workflow -run TestExampleInSync -update\n%s", ExamplePath, diff)
	}
}

type workflowFile struct {
	On   map[string]any `yaml:"on"`
	Jobs map[string]struct {
		If    string
		Steps []workflowStep
	}
}

type workflowStep struct {
	ID   string
	Uses string
	With map[string]string
	Env  map[string]string
}

// TestExampleShape checks the three jobs the workflow promises, that each
// uses this repository's action with inputs it declares, and that the API key
// reaches it only through env from a secret.
func TestExampleShape(t *testing.T) {
	var wf workflowFile
	if err := yaml.Unmarshal(Example(), &wf); err != nil {
		t.Fatal(err)
	}
	var triggers []string
	for k := range wf.On {
		triggers = append(triggers, k)
	}
	sort.Strings(triggers)
	if diff := cmp.Diff([]string{"pull_request", "schedule", "workflow_dispatch"}, triggers); diff != "" {
		t.Errorf("triggers (-want +got):\n%s", diff)
	}

	var action struct {
		Inputs map[string]any
	}
	data, err := os.ReadFile(filepath.Join(root(), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatal(err)
	}
	wantJobs := map[string]string{
		"check":    "github.event_name == 'pull_request' && github.event.action != 'labeled'",
		"bless-pr": "github.event_name == 'pull_request' && github.event.action == 'labeled' && github.event.label.name == 'latgate:bless' && github.event.pull_request.head.repo.full_name == github.repository",
		"nightly":  "github.event_name == 'schedule'",
		"bless":    "github.event_name == 'workflow_dispatch'",
	}
	for name, cond := range wantJobs {
		job, ok := wf.Jobs[name]
		if !ok {
			t.Errorf("no job %s", name)
			continue
		}
		if job.If != cond {
			t.Errorf("job %s runs if %q, want %q", name, job.If, cond)
		}
		i := slices.IndexFunc(job.Steps, func(s workflowStep) bool { return s.Uses == "latgate/latgate@v1" })
		if i < 0 {
			t.Errorf("job %s does not use latgate/latgate@v1", name)
			continue
		}
		step := job.Steps[i]
		for in := range step.With {
			if _, ok := action.Inputs[in]; !ok {
				t.Errorf("job %s passes input %q, which action.yml does not declare", name, in)
			}
		}
		if key := step.Env["OPENAI_API_KEY"]; key != "${{ secrets.OPENAI_API_KEY }}" {
			t.Errorf("job %s: OPENAI_API_KEY = %q, want it from the secret", name, key)
		}
		wantCommand := ""
		if strings.HasPrefix(name, "bless") {
			wantCommand = "bless"
		}
		if step.With["command"] != wantCommand {
			t.Errorf("job %s: command = %q, want %q", name, step.With["command"], wantCommand)
		}
	}
	// Secrets reach steps only through env: (never pasted into a script, an
	// input or a file): every occurrence in the file is in a step's env.
	inEnv := 0
	for _, job := range wf.Jobs {
		for _, s := range job.Steps {
			for _, v := range s.Env {
				inEnv += strings.Count(v, "secrets.")
			}
		}
	}
	if n := bytes.Count(Example(), []byte("secrets.")); n != inEnv || n < len(wantJobs) {
		t.Errorf("secrets. appears %d times, %d of them in steps' env:; want all of them there (at least one per job)", n, inEnv)
	}
}

// pinned is a uses: that names a commit: OWNER/REPO[/PATH]@<40 hex> # vX.Y.Z.
var pinned = regexp.MustCompile(`^([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_./-]+)?)@([0-9a-f]{40}) # (v\d+\.\d+\.\d+)$`)

// usesLine finds the uses: lines of a workflow or action file, with their
// trailing comment (YAML decoding drops comments).
var usesLine = regexp.MustCompile(`(?m)^\s*(?:- )?uses:\s*(.*?)\s*$`)

// TestActionsPinned holds #16 item 9: every action the written workflow,
// action.yml and this repository's own workflows use is pinned to a full
// commit SHA, with its version in a comment, so a moved tag of a third-party
// action (some run with checks, pull-requests or contents write) cannot run
// other code. A local action (./) is part of the checkout, and
// latgate/latgate@v1 is this repository's own action: its moving major tag
// is how users get fixes, and the release binary it runs is verified against
// the release's SHA256SUMS. The same action is pinned to the same commit
// everywhere.
func TestActionsPinned(t *testing.T) {
	files := map[string][]byte{"latgate init's workflow": Example()}
	for _, p := range []string{"action.yml", ".github/workflows/ci.yml", ".github/workflows/release.yml"} {
		data, err := os.ReadFile(filepath.Join(root(), filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		files[p] = data
	}
	seen := map[string]string{} // action → SHA # version
	n := 0
	for name, data := range files {
		for _, m := range usesLine.FindAllStringSubmatch(string(data), -1) {
			uses := m[1]
			if strings.HasPrefix(uses, "./") || uses == "latgate/latgate@v1" {
				continue
			}
			n++
			p := pinned.FindStringSubmatch(uses)
			if p == nil {
				t.Errorf("%s: uses: %s is not pinned to a full commit SHA with its version in a comment (OWNER/REPO@<40 hex> # vX.Y.Z)", name, uses)
				continue
			}
			if prev, ok := seen[p[1]]; ok && prev != p[2]+" "+p[3] {
				t.Errorf("%s: %s is pinned to %s here and %s elsewhere", name, p[1], p[2]+" "+p[3], prev)
			}
			seen[p[1]] = p[2] + " " + p[3]
		}
	}
	if n < 8 {
		t.Errorf("found %d third-party uses:, fewer than the files hold; is the pattern right?", n)
	}
	// The test itself: a tag, a short SHA and a SHA without its version fail.
	for _, bad := range []string{"actions/checkout@v6", "actions/checkout@d23441a", "actions/checkout@d23441a48e516b6c34aea4fa41551a30e30af803"} {
		if pinned.MatchString(bad) {
			t.Errorf("%q counts as pinned", bad)
		}
	}
}

// TestCost: the workflow states what its runs send, computed from the
// config: targets × prompts × (requests + warmup), up to the cap of
// check's rounds with each round's warmup, and bless's own count (#23 item
// 4: every pull request ran 124–300+ requests and nothing said so).
func TestCost(t *testing.T) {
	cfg, err := config.Parse([]byte(`targets: [{name: a, base_url: sim}, {name: b, base_url: sim}]
prompts:
  - {id: p1, messages: [{role: user, content: a}]}
  - {id: p2, messages: [{role: user, content: b}]}
  - {id: p3, messages: [{role: user, content: c}]}
run: {requests: 10, warmup: 1, max_requests: 20, bless_requests: 40}
`), "latgate.yaml", config.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	looks := compare.NewDesign(10, 20).Looks
	want := Costs{Targets: 2, Prompts: 3, Requests: 10, Cap: 20, BlessN: 40, Warmup: 1, Rounds: len(looks),
		Check: 2 * 3 * (10 + 1), CheckMax: 2 * 3 * (20 + len(looks)*1), Bless: 2 * 3 * (40 + 1),
		AB: 2 * 2 * 3 * (10 + 1), ABMax: 2 * 2 * 3 * (20 + len(looks)*1)}
	if len(looks) < 2 {
		t.Fatalf("the design has %d looks; the test wants extra rounds", len(looks))
	}
	if d := cmp.Diff(want, Cost(cfg)); d != "" {
		t.Errorf("Cost (-want +got):\n%s", d)
	}
	// The example workflow states the example config's figures.
	ex, err := config.Parse(config.Example(), "latgate.yaml", config.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	c := Cost(ex)
	text := strings.Join(strings.Fields(strings.ReplaceAll(string(Example()), "\n#", "")), " ")
	for _, w := range []string{
		fmt.Sprintf("sends %d requests (%d + %d warmup per prompt)", c.Check, ex.Run.Requests, ex.Run.Warmup),
		fmt.Sprintf("up to %d when checks stay undecided", c.CheckMax),
		fmt.Sprintf("a bless sends %d", c.Bless),
		fmt.Sprintf("also runs latgate ab, which measures the base branch's config and this one together: about %d more requests (up to %d)", c.AB, c.ABMax),
	} {
		if !strings.Contains(text, w) {
			t.Errorf("the workflow does not say %q", w)
		}
	}
}

// TestAppExampleInSync: examples/app holds what `latgate init --app`
// writes.
func TestAppExampleInSync(t *testing.T) {
	for path, want := range map[string][]byte{AppExamplePath: AppExample(), AppConfigExamplePath: AppConfig()} {
		p := filepath.Join(root(), filepath.FromSlash(path))
		if *update {
			if err := os.WriteFile(p, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("%s differs from internal/workflow's copy (-embedded +example); edit the embedded one and run\n  go test ./internal/workflow -run TestAppExampleInSync -update\n%s", path, diff)
		}
	}
}
