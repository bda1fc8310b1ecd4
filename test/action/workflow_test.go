package action

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latgate/latgate/internal/testkit"

	"go.yaml.in/yaml/v3"

	"github.com/latgate/latgate/internal/history"
	"github.com/latgate/latgate/internal/workflow"
	"github.com/latgate/latgate/pkg/baseline"
	"github.com/latgate/latgate/pkg/config"
)

// This file runs the jobs of the workflow that `latgate init` writes
// (internal/workflow/github-workflow.yml) the way the Actions runner would:
// job and step if: conditions evaluated (with the implicit success()), env:
// and with: expressions substituted, run: steps in bash with the runner's
// files, `uses: latgate/latgate@v1` running this repository's action.yml
// through the runner above, and other uses: steps (checkout, upload-artifact,
// publish) recorded with their evaluated inputs instead of run. `gh` is a
// fake on PATH that keeps pull-request comments in a JSON file.

type workflowDoc struct {
	Env  map[string]string
	Jobs map[string]workflowJob
}

type workflowJob struct {
	If    string
	Env   map[string]string
	Steps []workflowStep
}

type workflowStep struct {
	Name, ID, If, Uses, Run string
	Shell                   string
	With                    map[string]string
	Env                     map[string]string
	ContinueOnError         bool `yaml:"continue-on-error"`
}

func loadWorkflow(t *testing.T) *workflowDoc {
	t.Helper()
	var wf workflowDoc
	if err := yaml.Unmarshal(workflow.Example(), &wf); err != nil {
		t.Fatalf("workflow: %v", err)
	}
	return &wf
}

// event is what the runner knows about the run: the github and secrets
// contexts, and the job env overrides a test sets.
type event struct {
	name      string // pull_request, schedule, workflow_dispatch
	repo      string // github.repository
	headRepo  string // the pull request's head repository
	prNumber  int
	sha       string
	secrets   map[string]string
	jobEnv    map[string]string // overrides of the job's env:
	extraArgs string            // appended to the action's args: input
	runID     int
	// A pull request's: the event's action (opened, labeled), the label
	// added, its author, its base commit and head branch.
	action, label, author string
	baseSHA, headRef      string
}

// context returns the github context of the event, by path; a path it
// lacks is null, as on GitHub (pull_request.* off a pull request).
func (e event) context() map[string]string {
	c := map[string]string{
		"github.event_name": e.name, "github.repository": e.repo, "github.server_url": "https://github.com",
		"github.run_id": strconv.Itoa(e.runID), "github.token": "ghs_faketoken", "github.sha": e.sha,
		"github.actor": "octocat",
	}
	if e.name == "pull_request" {
		author := e.author
		if author == "" {
			author = "octocat"
		}
		if author == "dependabot[bot]" {
			c["github.actor"] = author
		}
		for k, v := range map[string]string{
			"action": e.action, "pull_request.number": strconv.Itoa(e.prNumber),
			"pull_request.head.repo.full_name": e.headRepo, "pull_request.head.ref": e.headRef,
			"pull_request.base.sha": e.baseSHA, "pull_request.base.ref": "main", "pull_request.user.login": author,
		} {
			c["github.event."+k] = v
		}
		if e.action == "" {
			c["github.event.action"] = "synchronize"
		}
		if e.label != "" {
			c["github.event.label.name"] = e.label
		}
	}
	return c
}

// stepRun records a step as the runner handled it.
type stepRun struct {
	name    string
	skipped bool
	outcome string // success, failure, skipped
	with    map[string]string
	outputs map[string]string
}

// jobRun is one run of a workflow job.
type jobRun struct {
	t       *testing.T
	ev      event
	job     workflowJob
	env     map[string]string // workflow env, then job env
	r       *runner           // the action runner, sharing the job's files
	steps   map[string]*stepRun
	ran     []*stepRun
	failed  bool
	log     bytes.Buffer
	ghState string
	ghLog   string
	binDir  string
}

// fakeGH is `gh api` for the three calls the comment step makes, over a
// JSON array of comments in $FAKE_GH_STATE, for the three the nightly
// issue step makes, over a JSON array of issues in $FAKE_GH_STATE.issues
// (each with its comments), and for removing a label (its name appended to
// $FAKE_GH_STATE.labels-removed); --jq filters run through jq.
const fakeGH = `#!/usr/bin/env bash
set -euo pipefail
echo "gh $*" >> "$FAKE_GH_LOG"
[[ -n "${GH_TOKEN:-}" ]] || { echo "gh: GH_TOKEN is empty" >&2; exit 4; }
[[ "$1" == api ]] || { echo "fake gh: only api" >&2; exit 1; }
shift
method=GET jq_filter="" path="" body="" title=""
while (($#)); do
  case "$1" in
    --method) method=$2; shift 2 ;;
    --paginate) shift ;;
    --jq) jq_filter=$2; shift 2 ;;
    -F) body=${2#body=@}; shift 2 ;;
    -f) title=${2#title=}; shift 2 ;;
    *) path=$1; shift ;;
  esac
done
state=$FAKE_GH_STATE
[[ -s "$state" ]] || echo '[]' > "$state"
issues=$FAKE_GH_STATE.issues
[[ -s "$issues" ]] || echo '[]' > "$issues"
num=${path#repos/*/*/issues/}
num=${num%%/*}
case "$method $path" in
  "GET repos/"*"/issues?"*)
    if [[ -n "$jq_filter" ]]; then jq -r "$jq_filter" "$issues"; else cat "$issues"; fi ;;
  "POST repos/"*/issues)
    n=$(( $(jq length "$issues") + 1 ))
    jq --arg title "$title" --arg body "$(cat "$body")" --argjson n "$n" '. + [{number: $n, title: $title, body: $body, comments: []}]' "$issues" > "$issues.new"
    mv "$issues.new" "$issues" ;;
  "POST repos/"*/issues/*/comments)
    if [[ $(jq --argjson n "$num" 'map(select(.number == $n)) | length' "$issues") == 1 ]]; then
      jq --arg body "$(cat "$body")" --argjson n "$num" 'map(if .number == $n then .comments += [$body] else . end)' "$issues" > "$issues.new"
      mv "$issues.new" "$issues"
    else
      id=$(( $(jq length "$state") + 1000 ))
      jq --arg body "$(cat "$body")" --argjson id "$id" '. + [{id: $id, user: {login: "github-actions[bot]"}, body: $body}]' "$state" > "$state.new"
      mv "$state.new" "$state"
    fi ;;
  "GET repos/"*/issues/*/comments)
    if [[ -n "$jq_filter" ]]; then jq -r "$jq_filter" "$state"; else cat "$state"; fi ;;
  "DELETE repos/"*/issues/*/labels/*)
    echo "${path##*/}" >> "$FAKE_GH_STATE.labels-removed" ;;
  "PATCH repos/"*/issues/comments/*)
    id=${path##*/}
    jq --arg body "$(cat "$body")" --argjson id "$id" 'map(if .id == $id then .body = $body else . end)' "$state" > "$state.new"
    mv "$state.new" "$state" ;;
  *) echo "fake gh: unexpected $method $path" >&2; exit 1 ;;
esac
`

// newJobRun prepares a job of the workflow in workspace ws.
func newJobRun(t *testing.T, wf *workflowDoc, name string, ev event, ws string) *jobRun {
	t.Helper()
	job, ok := wf.Jobs[name]
	if !ok {
		t.Fatalf("the workflow has no job %q", name)
	}
	j := &jobRun{t: t, ev: ev, job: job, env: map[string]string{}, r: newRunner(t, loadAction(t), ws), steps: map[string]*stepRun{}}
	for k, v := range wf.Env {
		j.env[k] = v
	}
	for k, v := range job.Env {
		j.env[k] = v
	}
	for k, v := range ev.jobEnv {
		j.env[k] = v
	}
	j.binDir = filepath.Join(j.r.tmp, "fakebin")
	j.ghState, j.ghLog = filepath.Join(j.r.tmp, "gh-comments.json"), filepath.Join(j.r.tmp, "gh.log")
	if err := os.MkdirAll(j.binDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(j.binDir, "gh"), []byte(fakeGH), 0o755); err != nil {
		t.Fatal(err)
	}
	return j
}

// lookup resolves a context path (github.…, secrets.…, env.…, steps.…,
// runner.temp); a missing value is null, which compares equal to ”.
func (j *jobRun) lookup(path string) (string, bool) {
	e := j.ev
	if path == "runner.temp" {
		return j.r.runnerTemp, true
	}
	if strings.HasPrefix(path, "github.") {
		v, ok := e.context()[path]
		return v, ok
	}
	parts := strings.Split(path, ".")
	switch {
	case parts[0] == "secrets" && len(parts) == 2:
		v, ok := e.secrets[parts[1]]
		return v, ok
	case parts[0] == "env" && len(parts) == 2:
		v, ok := j.env[parts[1]]
		return v, ok
	case parts[0] == "steps" && len(parts) == 4 && parts[2] == "outputs":
		s, ok := j.steps[parts[1]]
		if !ok {
			return "", false
		}
		v, ok := s.outputs[parts[3]]
		return v, ok
	case parts[0] == "steps" && len(parts) == 3 && (parts[2] == "outcome" || parts[2] == "conclusion"):
		if s, ok := j.steps[parts[1]]; ok {
			return s.outcome, true
		}
		return "", false
	}
	j.t.Fatalf("expression context %q is not modeled by this test", path)
	return "", false
}

// interpolate substitutes every ${{ }} in s.
func (j *jobRun) interpolate(s string) string {
	return exprRE.ReplaceAllStringFunc(s, func(m string) string {
		return exprString(j.eval(exprRE.FindStringSubmatch(m)[1]))
	})
}

// condition evaluates an if: for the job.
func (j *jobRun) condition(cond string) bool {
	return evalCondition(j.t, cond, j.failed, j.lookup)
}

// evalCondition evaluates an if:, with the implicit success() GitHub adds
// when it names no status function; failed says whether a step failed.
func evalCondition(t *testing.T, cond string, failed bool, lookup func(string) (string, bool)) bool {
	t.Helper()
	cond = strings.TrimSpace(cond)
	if m := regexp.MustCompile(`^\$\{\{\s*(.*?)\s*\}\}$`).FindStringSubmatch(cond); m != nil {
		cond = m[1]
	}
	if cond == "" {
		return !failed
	}
	v := truthy(evalExpr(t, cond, failed, lookup))
	if !regexp.MustCompile(`\b(success|failure|always|cancelled)\(\)`).MatchString(cond) {
		v = v && !failed
	}
	return v
}

// exprValue is a value of the expression language: string, bool or nil.
type exprValue any

func exprString(v exprValue) string {
	switch v := v.(type) {
	case nil:
		return ""
	case bool:
		return strconv.FormatBool(v)
	default:
		return v.(string)
	}
}

func truthy(v exprValue) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	default:
		return v.(string) != ""
	}
}

var exprTokenRE = regexp.MustCompile(`\s*(?:('(?:[^']|'')*')|(==|!=|&&|\|\||!|\(|\))|([A-Za-z_][A-Za-z0-9_.-]*(?:\(\))?))`)

// eval evaluates the subset of GitHub's expression language the workflow
// uses: context paths, 'strings', true/false, ==, !=, !, &&, ||, parentheses
// and the status functions. == compares strings case-insensitively, with
// null as ” (GitHub's coercion for these operands).
func (j *jobRun) eval(expr string) exprValue { return evalExpr(j.t, expr, j.failed, j.lookup) }

func evalExpr(t *testing.T, expr string, failed bool, lookup func(string) (string, bool)) exprValue {
	t.Helper()
	var toks []string
	rest := expr
	for strings.TrimSpace(rest) != "" {
		m := exprTokenRE.FindStringSubmatchIndex(rest)
		if m == nil || m[0] != 0 {
			t.Fatalf("expression %q: cannot parse at %q", expr, rest)
		}
		toks = append(toks, strings.TrimSpace(rest[:m[1]]))
		rest = rest[m[1]:]
	}
	p := &exprParser{t: t, failed: failed, lookup: lookup, toks: toks, expr: expr}
	v := p.or()
	if p.pos != len(toks) {
		t.Fatalf("expression %q: unexpected %q", expr, toks[p.pos])
	}
	return v
}

type exprParser struct {
	t      *testing.T
	failed bool
	lookup func(string) (string, bool)
	toks   []string
	pos    int
	expr   string
}

func (p *exprParser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

func (p *exprParser) or() exprValue {
	v := p.and()
	for p.peek() == "||" {
		p.pos++
		w := p.and()
		if !truthy(v) {
			v = w
		}
	}
	return v
}

func (p *exprParser) and() exprValue {
	v := p.cmp()
	for p.peek() == "&&" {
		p.pos++
		w := p.cmp()
		if truthy(v) {
			v = w
		}
	}
	return v
}

func (p *exprParser) cmp() exprValue {
	v := p.unary()
	for op := p.peek(); op == "==" || op == "!="; op = p.peek() {
		p.pos++
		w := p.unary()
		eq := strings.EqualFold(exprString(v), exprString(w))
		v = eq == (op == "==")
	}
	return v
}

func (p *exprParser) unary() exprValue {
	switch tok := p.peek(); {
	case tok == "!":
		p.pos++
		return !truthy(p.unary())
	case tok == "(":
		p.pos++
		v := p.or()
		if p.peek() != ")" {
			p.t.Fatalf("expression %q: missing )", p.expr)
		}
		p.pos++
		return v
	case strings.HasPrefix(tok, "'"):
		p.pos++
		return strings.ReplaceAll(tok[1:len(tok)-1], "''", "'")
	case tok == "true" || tok == "false":
		p.pos++
		return tok == "true"
	case tok == "success()":
		p.pos++
		return !p.failed
	case tok == "failure()":
		p.pos++
		return p.failed
	case tok == "always()":
		p.pos++
		return true
	case tok == "cancelled()":
		p.pos++
		return false
	case tok != "" && !strings.HasSuffix(tok, "()") && strings.ContainsAny(tok[:1], "abcdefghijklmnopqrstuvwxyz"):
		p.pos++
		if v, ok := p.lookup(tok); ok {
			return v
		}
		return nil
	}
	p.t.Fatalf("expression %q: unexpected %q", p.expr, p.peek())
	return nil
}

// run runs the job if its if: holds; it reports whether it ran.
func (j *jobRun) run(ctx context.Context) bool {
	j.t.Helper()
	if !j.condition(j.job.If) {
		return false
	}
	for i, s := range j.job.Steps {
		name := s.Name
		if name == "" {
			name = s.Uses
		}
		sr := &stepRun{name: name, outputs: map[string]string{}}
		j.ran = append(j.ran, sr)
		if s.ID != "" {
			j.steps[s.ID] = sr
		}
		if !j.condition(s.If) {
			sr.skipped, sr.outcome = true, "skipped"
			fmt.Fprintf(&j.log, "step %d (%s): skipped\n", i+1, name)
			continue
		}
		sr.with = map[string]string{}
		for k, v := range s.With {
			sr.with[k] = j.interpolate(v)
		}
		stepEnv := map[string]string{}
		for k, v := range j.env {
			stepEnv[k] = j.interpolate(v)
		}
		for k, v := range s.Env {
			stepEnv[k] = j.interpolate(v)
		}
		code := 0
		switch {
		case s.Uses == "latgate/latgate@v1":
			if j.ev.extraArgs != "" {
				sr.with["args"] = strings.TrimSpace(sr.with["args"] + " " + j.ev.extraArgs)
			}
			j.r.callerEnv, j.r.github = nil, j.ev.context()
			for k, v := range stepEnv {
				j.r.callerEnv = append(j.r.callerEnv, k+"="+v)
			}
			j.r.use(ctx, sr.with)
			sr.outputs = j.r.outputs
			code = j.r.exitCode
			fmt.Fprintf(&j.log, "step %d (%s): the action: exit %d\nstdout:\n%s\nstderr:\n%s\n", i+1, name, code, j.r.stdout.String(), j.r.stderr.String())
		case s.Uses != "":
			fmt.Fprintf(&j.log, "step %d (%s): uses %s: recorded, not run: %v\n", i+1, name, s.Uses, sr.with)
		default:
			code = j.runScript(ctx, i, s, sr, stepEnv)
		}
		sr.outcome = "success"
		if code != 0 {
			sr.outcome = "failure"
			if !s.ContinueOnError {
				j.failed = true
			}
		}
	}
	return true
}

func (j *jobRun) runScript(ctx context.Context, i int, s workflowStep, sr *stepRun, stepEnv map[string]string) int {
	j.t.Helper()
	if exprRE.MatchString(s.Run) {
		j.t.Errorf("step %d (%s): run: holds a ${{ }} expression; pass it through env:", i+1, sr.name)
	}
	dir := j.r.tmp
	script := filepath.Join(dir, fmt.Sprintf("job-step%d.sh", i+1))
	output := filepath.Join(dir, fmt.Sprintf("job-output%d", i+1))
	for _, f := range []struct {
		path string
		data string
	}{{script, s.Run}, {output, ""}} {
		if err := os.WriteFile(f.path, []byte(f.data), 0o644); err != nil {
			j.t.Fatal(err)
		}
	}
	env := baseEnv()
	env = append(env, "PATH="+strings.Join(append(slices.Clone(j.r.extraPath), j.binDir, os.Getenv("PATH")), string(os.PathListSeparator)),
		"CI=true", "GITHUB_ACTIONS=true", "GITHUB_WORKSPACE="+j.r.workspace,
		"GITHUB_OUTPUT="+output, "GITHUB_STEP_SUMMARY="+j.r.summary, "GITHUB_PATH="+j.r.pathFile,
		"GITHUB_ENV="+j.r.envFile, "RUNNER_TEMP="+j.r.runnerTemp, "GITHUB_SHA="+j.ev.sha,
		"GITHUB_RUN_ID="+strconv.Itoa(j.ev.runID), "GITHUB_REPOSITORY="+j.ev.repo, "GITHUB_EVENT_NAME="+j.ev.name,
		"FAKE_GH_STATE="+j.ghState, "FAKE_GH_LOG="+j.ghLog, "GITHUB_SERVER_URL=https://github.com")
	for k, v := range stepEnv {
		env = append(env, k+"="+v)
	}
	// The runner's default shell for run: steps on Linux.
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir, cmd.Env = j.r.workspace, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	fmt.Fprintf(&j.log, "step %d (%s): %v\nstdout:\n%s\nstderr:\n%s\n", i+1, sr.name, err, stdout.String(), stderr.String())
	sr.outputs = parseOutputs(j.t, output)
	sr.outputs["_stdout"] = stdout.String()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode()
	case err != nil:
		j.t.Fatalf("step %d (%s): %v", i+1, sr.name, err)
	}
	return 0
}

func (j *jobRun) step(name string) *stepRun {
	j.t.Helper()
	for _, s := range j.ran {
		if s.name == name {
			return s
		}
	}
	j.t.Fatalf("no step %q ran or was skipped; steps: %v", name, j.stepNames())
	return nil
}

func (j *jobRun) stepNames() []string {
	var names []string
	for _, s := range j.ran {
		names = append(names, s.name)
	}
	return names
}

func (j *jobRun) summary() string {
	j.t.Helper()
	data, err := os.ReadFile(j.r.summary)
	if err != nil {
		j.t.Fatal(err)
	}
	return string(data)
}

// comments is what the fake gh holds: the pull request's comments' bodies.
func (j *jobRun) comments() []string {
	j.t.Helper()
	data, err := os.ReadFile(j.ghState)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		j.t.Fatal(err)
	}
	var comments []struct{ Body string }
	if err := json.Unmarshal(data, &comments); err != nil {
		j.t.Fatalf("%s: %v\n%s", j.ghState, err, data)
	}
	var bodies []string
	for _, c := range comments {
		bodies = append(bodies, c.Body)
	}
	return bodies
}

// seedHistory appends nights of history to ws/.latgate-history for the
// test config's series (target sim, prompt hello, TTFT P50 and P95), built
// from the baseline's values: factor× slower from night step on, with 2%
// night-to-night noise (seeded).
func seedHistory(t *testing.T, ws string, nights, step int, factor float64) {
	t.Helper()
	cfg, err := config.Load(filepath.Join(ws, "latgate.yaml"), config.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	base, err := baseline.Load(cfg.Baseline)
	if err != nil {
		t.Fatal(err)
	}
	ttft := base.Targets[0].Prompts[0].Metrics.TTFT
	rng := rand.New(rand.NewPCG(1, 2))
	path := filepath.Join(ws, ".latgate-history", "latgate.history.jsonl")
	for k := 1; k <= nights; k++ {
		f := math.Exp(0.02 * rng.NormFloat64())
		if k >= step {
			f *= factor
		}
		r := history.Record{
			Schema: history.Schema, At: time.Now().UTC().Add(time.Duration(k) * time.Minute), Commit: fmt.Sprintf("c%03d", k), Command: "check",
			Runner: history.Runner{OS: "Linux", Arch: "X64"},
			Targets: []history.Target{{Name: "sim", Model: "sim", Prompts: []history.Prompt{{ID: "hello", Hash: cfg.Prompts[0].Hash,
				Metrics: map[string]history.Stats{"ttft": history.MakeStats(60, map[string]float64{"p50": ttft.P50 * f, "p95": ttft.P95 * f})}}}}},
		}
		if _, err := history.Append(path, r, 0); err != nil {
			t.Fatal(err)
		}
	}
}

// issues is what the fake gh holds of the repository's issues.
type fakeIssue struct {
	Number   int
	Title    string
	Body     string
	Comments []string
}

func (j *jobRun) issues() []fakeIssue {
	j.t.Helper()
	data, err := os.ReadFile(j.ghState + ".issues")
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		j.t.Fatal(err)
	}
	var out []fakeIssue
	if err := json.Unmarshal(data, &out); err != nil {
		j.t.Fatalf("%s: %v\n%s", j.ghState+".issues", err, data)
	}
	return out
}

// git runs git in dir (the process's directory when dir is "").
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=test", "-c", "user.email=test@example.invalid", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(baseEnv(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// historyRemote stands in for the nightly job's "Check out the history
// branch" step (the runner here records uses: steps without running them):
// a bare repository with one commit on main as origin, cloned into
// ws/.latgate-history. It returns the bare repository.
func historyRemote(t *testing.T, ws string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	origin := filepath.Join(t.TempDir(), "origin.git")
	git(t, "", "init", "--quiet", "--bare", origin)
	seed := t.TempDir()
	git(t, seed, "init", "--quiet")
	if err := os.WriteFile(filepath.Join(seed, "README.md"), []byte("app\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, seed, "add", "README.md")
	git(t, seed, "commit", "--quiet", "-m", "app")
	git(t, seed, "push", "--quiet", origin, "HEAD:main")
	git(t, "", "clone", "--quiet", origin, filepath.Join(ws, ".latgate-history"))
	return origin
}

// requireCheckFlag skips the test unless this tree's check has flag.
func requireCheckFlag(t *testing.T, flag string) {
	t.Helper()
	out, _ := exec.Command(latgateBin(t), "check", "--help").CombinedOutput()
	if !bytes.Contains(out, []byte(flag)) {
		t.Skipf("latgate check has no %s yet", flag)
	}
}

const (
	thisRepo = "acme/app"
	forkRepo = "someone/app"
)

func prEvent(head string, secrets map[string]string) event {
	return event{name: "pull_request", repo: thisRepo, headRepo: head, prNumber: 7, sha: "0123456789abcdef0123456789abcdef01234567",
		secrets: secrets, runID: 1001}
}

// workflowConfig is the config of the workflow and binary tests, which test
// the wiring, not the gate: a check that regresses only when TTFT more than
// doubles and grows by 50 ms, so a loaded machine cannot fail them (the
// gate's own tests are elsewhere; TestActionAgainstSimulator rehearses a
// regression through the action).
const workflowConfig = `baseline: latgate.baseline.json
targets:
  - name: sim
    base_url: "sim:fast?ttft=30ms"
    model: sim
    max_tokens: 16
prompts:
  - id: hello
    messages:
      - {role: user, content: "Say hello."}
run:
  requests: 30
  warmup: 1
  concurrency: 2
gate:
  checks:
    - {metric: ttft, stat: p50, tolerance: 100%, floor: 50ms}
`

// wiringWorkspace is a workspace with workflowConfig.
func wiringWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "latgate.yaml"), []byte(workflowConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws
}

func newWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "latgate.yaml"), []byte(testConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws
}

// bless writes a baseline into ws through the action, as the bless job does.
func blessInto(ctx context.Context, t *testing.T, ws string) {
	t.Helper()
	r := newRunner(t, loadAction(t), ws)
	r.use(ctx, map[string]string{"command": "bless", "args": "--quiet --force"})
	if r.failedStep != "" {
		r.logOutput()
		t.Fatalf("bless: step %q exited %d", r.failedStep, r.exitCode)
	}
}

// prWorkspace is a pull request's checkout, as actions/checkout leaves it
// (one commit deep): a bare repository stands in for origin, its main
// branch holding base (the default branch's latgate.yaml; "" for none) and
// the branch feature one commit on top; the workspace is a clone of feature
// at depth 1, so the action must fetch the base commit to read the trusted
// config, and its latgate.yaml is head (the pull request's). It returns the
// workspace, origin and main's commit (the pull request's base).
func prWorkspace(t *testing.T, base, head string) (ws, origin, baseSHA string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	origin = filepath.Join(t.TempDir(), "origin.git")
	git(t, "", "init", "--quiet", "--bare", origin)
	seed := t.TempDir()
	git(t, seed, "init", "--quiet")
	write := func(dir, name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(seed, "README.md", "app\n")
	if base != "" {
		write(seed, "latgate.yaml", base)
	}
	git(t, seed, "add", ".")
	git(t, seed, "commit", "--quiet", "-m", "main")
	baseSHA = strings.TrimSpace(git(t, seed, "rev-parse", "HEAD"))
	git(t, seed, "push", "--quiet", origin, "HEAD:main")
	write(seed, "feature.txt", "a change\n")
	git(t, seed, "add", ".")
	git(t, seed, "commit", "--quiet", "-m", "feature")
	git(t, seed, "push", "--quiet", origin, "HEAD:feature")
	ws = filepath.Join(t.TempDir(), "ws")
	git(t, "", "clone", "--quiet", "--depth=1", "--branch", "feature", "file://"+origin, ws)
	write(ws, "latgate.yaml", head)
	return ws, origin, baseSHA
}

// unreachableConfig is workflowConfig on an endpoint that is not the
// simulator (nothing listens on port 9, the discard port): it needs a key,
// and measuring it would fail, so a run that passes measured nothing.
var unreachableConfig = strings.Replace(workflowConfig, `base_url: "sim:fast?ttft=30ms"`, `base_url: "http://127.0.0.1:9/v1"`, 1)

func TestWorkflowJobs(t *testing.T) {
	testkit.Scripts(t)
	t.Parallel()
	if testing.Short() {
		t.Skip("builds latgate and measures the simulator")
	}
	requireCheck(t)
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq is not installed: the fake gh needs it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	t.Cleanup(cancel)
	wf := loadWorkflow(t)
	key := map[string]string{"OPENAI_API_KEY": "sk-test-not-a-real-key"}
	pr := func(head string, secrets map[string]string, baseSHA string) event {
		ev := prEvent(head, secrets)
		ev.baseSHA, ev.headRef = baseSHA, "feature"
		return ev
	}

	t.Run("pull request: checked, one sticky comment updated per run", func(t *testing.T) {
		t.Parallel()
		ws, _, baseSHA := prWorkspace(t, workflowConfig, workflowConfig)
		blessInto(ctx, t, ws)
		var j *jobRun
		for run, sha := range []string{"aaaaaaaaaaaa1111", "bbbbbbbbbbbb2222"} {
			ev := pr(thisRepo, key, baseSHA)
			ev.sha, ev.runID, ev.extraArgs = sha, 2000+run, "--quiet"
			next := newJobRun(t, wf, "check", ev, ws)
			if j != nil {
				next.ghState = j.ghState // the same pull request's comments
			}
			j = next
			if !j.run(ctx) {
				t.Fatal("the check job did not run on pull_request")
			}
			if j.failed {
				t.Fatalf("run %d: the job failed:\n%s", run+1, j.log.String())
			}
			s := j.step("latgate check")
			if s.skipped || s.outputs["exit-code"] != "0" || s.outputs["verdict"] == "skipped" {
				t.Fatalf("run %d: latgate check: skipped %t, outputs %v\n%s", run+1, s.skipped, s.outputs, j.log.String())
			}
			// The base commit was fetched and its config passed as the trusted one.
			if !strings.Contains(j.log.String(), "the key may go only to the endpoints of latgate.yaml as of the base commit "+baseSHA[:12]) {
				t.Errorf("run %d: no trusted config from the base commit:\n%s", run+1, j.log.String())
			}
			comments := j.comments()
			if len(comments) != 1 {
				t.Fatalf("run %d: %d comments, want exactly 1 (one sticky comment):\n%q\n%s", run+1, len(comments), comments, j.log.String())
			}
			body := comments[0]
			if !strings.HasPrefix(body, "<!-- latgate: sticky comment") || !strings.Contains(body, "on "+sha[:12]) || !strings.Contains(body, "| hello | ttft p50 |") {
				t.Errorf("run %d: the comment is not this run's report:\n%s", run+1, body)
			}
			if up := j.step("Upload the report and results"); up.skipped || !strings.Contains(up.with["path"], "results.json") {
				t.Errorf("run %d: the report is not uploaded: %+v", run+1, up)
			}
			// #19: the config did not change, so no latgate ab was run.
			if s.outputs["ab-verdict"] != "unchanged" || s.outputs["ab-markdown"] != "" || strings.Contains(j.summary(), "which gate decided") {
				t.Errorf("run %d: an unchanged config ran ab: outputs %v\n%s", run+1, s.outputs, j.summary())
			}
			if !strings.Contains(j.log.String(), "measure the same targets and prompts, so ab was not run") {
				t.Errorf("run %d: the log does not say why ab did not run:\n%s", run+1, j.log.String())
			}
		}
		log, err := os.ReadFile(j.ghLog)
		if err != nil || !strings.Contains(string(log), "--method PATCH repos/acme/app/issues/comments/1000") {
			t.Errorf("the second run did not update the first comment (err %v):\n%s", err, log)
		}
	})

	// #29: the pull request's check learns the day-to-day noise from the
	// nightly history (the branch latgate-history, checked out without
	// credentials), and never writes it.
	t.Run("pull request: learns the day-to-day noise from the nightly history, read only", func(t *testing.T) {
		t.Parallel()
		ws, _, baseSHA := prWorkspace(t, workflowConfig, workflowConfig)
		blessInto(ctx, t, ws)
		seedHistory(t, ws, 24, 99, 1)
		hist := filepath.Join(ws, ".latgate-history", "latgate.history.jsonl")
		before, err := os.ReadFile(hist)
		if err != nil {
			t.Fatal(err)
		}
		ev := pr(thisRepo, key, baseSHA)
		ev.extraArgs = "--quiet"
		j := newJobRun(t, wf, "check", ev, ws)
		j.run(ctx)
		if j.failed {
			t.Fatalf("the check job failed:\n%s", j.log.String())
		}
		if co := j.step("Check out the nightly history"); co.with["ref"] != "latgate-history" || co.with["persist-credentials"] != "false" {
			t.Errorf("the history's checkout: %v, want ref latgate-history without credentials", co.with)
		}
		if log := strings.Join(strings.Fields(j.log.String()), " "); !strings.Contains(log, "runs of the history)") {
			t.Errorf("the check did not learn the noise from the nightly history:\n%s", j.log.String())
		}
		if after, err := os.ReadFile(hist); err != nil || !bytes.Equal(after, before) {
			t.Errorf("the pull request's check wrote the nightly history (err %v)", err)
		}
	})

	// #19: a pull request that switches the model is decided by latgate ab,
	// the base commit's config against this one measured together. The
	// baseline here was blessed with the new model but not committed in the
	// pull request, so check passes and ab's regression fails the job.
	slowerModel := strings.NewReplacer("model: sim", "model: sim-large", `base_url: "sim:fast?ttft=30ms"`, `base_url: "sim:fast?ttft=30ms&ttft_factor=4"`).Replace(workflowConfig)
	t.Run("pull request switching to a slower model: fails through ab, both configs named", func(t *testing.T) {
		t.Parallel()
		ws, _, baseSHA := prWorkspace(t, workflowConfig, slowerModel)
		blessInto(ctx, t, ws)
		ev := pr(thisRepo, key, baseSHA)
		ev.extraArgs = "--quiet"
		j := newJobRun(t, wf, "check", ev, ws)
		j.run(ctx)
		s := j.step("latgate check")
		if !j.failed || s.outputs["exit-code"] != "1" || s.outputs["verdict"] != "ok" || s.outputs["ab-verdict"] != "regressed" {
			t.Fatalf("failed %t, outputs %v; want check ok, ab regressed, exit 1\n%s", j.failed, s.outputs, j.log.String())
		}
		base := "latgate@" + baseSHA[:12] + ".yaml"
		summary := j.summary()
		for _, want := range []string{"latgate ab: FAIL", "Candidate `latgate.yaml` against base `" + base + "`", "model sim → sim-large", "which gate decided", "up to twice a check's requests"} {
			if !strings.Contains(summary, want) {
				t.Errorf("the job summary lacks %q:\n%s", want, summary)
			}
		}
		if _, err := os.Stat(filepath.Join(ws, base)); !os.IsNotExist(err) {
			t.Errorf("the base config %s was left in the workspace (err %v)", base, err)
		}
		for _, out := range []string{"ab-markdown", "ab-junit", "ab-results"} {
			if _, err := os.Stat(s.outputs[out]); err != nil {
				t.Errorf("output %s %q: %v", out, s.outputs[out], err)
			}
		}
		if up := j.step("Upload the report and results"); !strings.Contains(up.with["path"], s.outputs["ab-results"]) {
			t.Errorf("ab's results are not uploaded: %+v", up)
		}
		if c := j.comments(); len(c) != 1 || !strings.Contains(c[0], "latgate ab: FAIL") {
			t.Errorf("the comment does not hold ab's report: %q", c)
		}
	})

	// #19: the same change with its baseline blessed in the pull request is
	// intended: ab's regression is a warning, the job passes.
	t.Run("pull request switching to a slower model, baseline blessed in it: ab warns", func(t *testing.T) {
		t.Parallel()
		ws, _, baseSHA := prWorkspace(t, workflowConfig, slowerModel)
		blessInto(ctx, t, ws)
		git(t, ws, "add", "latgate.yaml", "latgate.baseline.json")
		git(t, ws, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", "bless the slower model")
		ev := pr(thisRepo, key, baseSHA)
		ev.extraArgs = "--quiet"
		j := newJobRun(t, wf, "check", ev, ws)
		j.run(ctx)
		s := j.step("latgate check")
		if j.failed || s.outputs["exit-code"] != "0" || s.outputs["ab-verdict"] != "regressed" {
			t.Fatalf("failed %t, outputs %v; want ab regressed, taken as intended, exit 0\n%s", j.failed, s.outputs, j.log.String())
		}
		if !strings.Contains(j.log.String(), "::warning title=latgate ab::") || !strings.Contains(j.summary(), "taken as intended") {
			t.Errorf("no warning that the slowdown was taken as intended:\n%s\n%s", j.log.String(), j.summary())
		}
	})

	t.Run("pull request comment can be turned off", func(t *testing.T) {
		t.Parallel()
		ws, _, baseSHA := prWorkspace(t, workflowConfig, workflowConfig)
		blessInto(ctx, t, ws)
		ev := pr(thisRepo, key, baseSHA)
		ev.extraArgs, ev.jobEnv = "--quiet", map[string]string{"LATGATE_PR_COMMENT": "false"}
		j := newJobRun(t, wf, "check", ev, ws)
		j.run(ctx)
		if j.failed || j.step("latgate check").skipped {
			t.Fatalf("the check did not run and pass:\n%s", j.log.String())
		}
		if !j.step("Comment on the pull request").skipped || len(j.comments()) != 0 {
			t.Errorf("commented with LATGATE_PR_COMMENT=false:\n%s", j.log.String())
		}
	})

	// #23 item 4: a fork's or Dependabot's pull request gets no secrets; the
	// action itself skips it (so the one-uses: snippet needs nothing more).
	for _, tc := range []struct{ name, head, author string }{
		{"fork", forkRepo, ""},
		{"Dependabot", thisRepo, "dependabot[bot]"},
	} {
		t.Run(tc.name+" without the secret: skipped with a notice, no comment", func(t *testing.T) {
			t.Parallel()
			ws, _, baseSHA := prWorkspace(t, unreachableConfig, unreachableConfig)
			ev := pr(tc.head, nil, baseSHA)
			ev.author = tc.author
			j := newJobRun(t, wf, "check", ev, ws)
			if !j.run(ctx) {
				t.Fatal("the check job did not run")
			}
			if j.failed {
				t.Fatalf("the job failed; a pull request without the secret must skip, not fail:\n%s", j.log.String())
			}
			s := j.step("latgate check")
			if s.outputs["verdict"] != "skipped" || s.outputs["exit-code"] != "0" {
				t.Errorf("outputs %v, want verdict skipped, exit-code 0\n%s", s.outputs, j.log.String())
			}
			if !strings.Contains(j.log.String(), "::notice title=latgate skipped::") || !strings.Contains(j.log.String(), "$OPENAI_API_KEY (target sim) is empty") {
				t.Errorf("no ::notice, or latgate did not say which key is empty:\n%s", j.log.String())
			}
			for _, name := range []string{"Upload the report and results", "Comment on the pull request", "Publish the JUnit report", "Say how to bless the first baseline"} {
				if !j.step(name).skipped {
					t.Errorf("step %q ran on a pull request without the secret", name)
				}
			}
			if !strings.Contains(j.summary(), "## latgate: skipped") || !strings.Contains(j.summary(), "no secrets") {
				t.Errorf("the job summary has no skip notice:\n%s", j.summary())
			}
			if len(j.comments()) != 0 {
				t.Errorf("commented: %q", j.comments())
			}
		})
	}

	t.Run("fork with a key (the simulator needs none): checked, but no comment", func(t *testing.T) {
		t.Parallel()
		ws, _, baseSHA := prWorkspace(t, workflowConfig, workflowConfig)
		blessInto(ctx, t, ws)
		ev := pr(forkRepo, key, baseSHA)
		ev.extraArgs = "--quiet"
		j := newJobRun(t, wf, "check", ev, ws)
		j.run(ctx)
		if j.failed || j.step("latgate check").skipped || j.step("latgate check").outputs["verdict"] == "skipped" {
			t.Fatalf("the check did not run and pass:\n%s", j.log.String())
		}
		if !j.step("Comment on the pull request").skipped {
			t.Errorf("the comment step ran for a fork:\n%s", j.log.String())
		}
		if n := len(j.comments()); n != 0 {
			t.Errorf("%d comments on a fork's pull request", n)
		}
	})

	// #16: a pull request's latgate.yaml pointing the key at a new host is
	// refused before any request; the base branch's endpoints pass.
	t.Run("pull request pointing the key at a new endpoint: refused, nothing sent", func(t *testing.T) {
		t.Parallel()
		var hits atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			http.Error(w, "no", http.StatusTeapot)
		}))
		t.Cleanup(srv.Close)
		head := strings.Replace(unreachableConfig, "http://127.0.0.1:9/v1", srv.URL+"/v1", 1)
		ws, _, baseSHA := prWorkspace(t, unreachableConfig, head)
		ev := pr(thisRepo, key, baseSHA)
		ev.extraArgs = "--quiet"
		j := newJobRun(t, wf, "check", ev, ws)
		j.run(ctx)
		s := j.step("latgate check")
		if !j.failed || s.outputs["exit-code"] != "2" || s.outputs["verdict"] != "error" {
			t.Fatalf("failed %t, outputs %v; want exit 2, verdict error\n%s", j.failed, s.outputs, j.log.String())
		}
		for _, want := range []string{"would send $OPENAI_API_KEY (in header Authorization) to " + srv.URL, "land the change on the default branch first", "nothing was sent"} {
			if !strings.Contains(j.log.String(), want) {
				t.Errorf("the log lacks %q:\n%s", want, j.log.String())
			}
		}
		if n := hits.Load(); n != 0 {
			t.Errorf("the new endpoint got %d requests", n)
		}
	})

	t.Run("the pull request that adds latgate: no baseline, passes, says how to bless", func(t *testing.T) {
		t.Parallel()
		requireCheckFlag(t, "--require-baseline")
		ws, _, baseSHA := prWorkspace(t, "", workflowConfig) // no baseline, no config on main
		ev := pr(thisRepo, key, baseSHA)
		ev.extraArgs = "--quiet"
		j := newJobRun(t, wf, "check", ev, ws)
		j.run(ctx)
		if j.failed {
			t.Fatalf("the first pull request fails its own check:\n%s", j.log.String())
		}
		s := j.step("latgate check")
		if s.outputs["verdict"] != "no-baseline" || s.outputs["exit-code"] != "0" {
			t.Errorf("outputs %v, want verdict no-baseline, exit-code 0", s.outputs)
		}
		if _, err := os.Stat(s.outputs["results"]); err != nil {
			t.Errorf("no results to bless: %v", err)
		}
		up := j.step("Upload the report and results")
		if up.skipped || !strings.Contains(up.with["path"], s.outputs["results"]) {
			t.Errorf("the results are not uploaded: %+v", up)
		}
		if !strings.Contains(j.summary(), "latgate bless --config latgate.yaml --from results.json") || !strings.Contains(j.summary(), "latgate:bless") {
			t.Errorf("the job summary does not say how to bless:\n%s", j.summary())
		}
		if c := j.comments(); len(c) != 1 || !strings.Contains(c[0], "--from results.json") {
			t.Errorf("the comment does not say how to bless: %q", c)
		}
	})

	// #23 item 5: an intended change is blessed in its own pull request, on
	// the runner: the label latgate:bless commits the new baseline to the
	// branch and is removed.
	t.Run("label latgate:bless: bless on the runner, commit to the branch", func(t *testing.T) {
		t.Parallel()
		ws, origin, baseSHA := prWorkspace(t, workflowConfig, workflowConfig)
		ev := pr(thisRepo, key, baseSHA)
		ev.action, ev.label, ev.extraArgs = "labeled", "latgate:bless", "--quiet"
		if j := newJobRun(t, wf, "check", ev, ws); j.run(ctx) {
			t.Error("the check job ran on the label event")
		}
		j := newJobRun(t, wf, "bless-pr", ev, ws)
		if !j.run(ctx) {
			t.Fatal("the bless-pr job did not run on the label")
		}
		if j.failed {
			t.Fatalf("the bless-pr job failed:\n%s", j.log.String())
		}
		if s := j.step("latgate bless"); s.outputs["verdict"] != "blessed" {
			t.Errorf("bless outputs %v", s.outputs)
		}
		if co := j.step("actions/checkout@d23441a48e516b6c34aea4fa41551a30e30af803"); co.with["ref"] != "feature" || co.with["persist-credentials"] != "false" {
			t.Errorf("the checkout is not the pull request's branch without credentials: %v", co.with)
		}
		// The baseline is on the branch in origin, in a commit of its own.
		pushed := git(t, "", "--git-dir", origin, "show", "feature:latgate.baseline.json")
		local, err := os.ReadFile(filepath.Join(ws, "latgate.baseline.json"))
		if err != nil || pushed != string(local) || !strings.Contains(pushed, `"schema"`) {
			t.Errorf("the pushed baseline is not the blessed one (err %v)", err)
		}
		if msg := git(t, "", "--git-dir", origin, "log", "-1", "--format=%s", "feature"); !strings.Contains(msg, "latgate: bless the baseline on the CI runner") {
			t.Errorf("the branch's last commit: %q", msg)
		}
		if removed, _ := os.ReadFile(j.ghState + ".labels-removed"); strings.TrimSpace(string(removed)) != "latgate:bless" {
			t.Errorf("the label was not removed: %q", removed)
		}
		if !strings.Contains(j.summary(), "latgate: baseline committed") {
			t.Errorf("the job summary does not say so:\n%s", j.summary())
		}
		// Another label, or a fork's pull request, runs no bless.
		other := ev
		other.label = "documentation"
		fork := ev
		fork.headRepo = forkRepo
		for _, e := range []event{other, fork} {
			if newJobRun(t, wf, "bless-pr", e, ws).run(ctx) {
				t.Errorf("bless-pr ran for label %q from %s", e.label, e.headRepo)
			}
		}
	})

	t.Run("nightly: --require-baseline", func(t *testing.T) {
		t.Parallel()
		ev := event{name: "schedule", repo: thisRepo, sha: "cccccccccccc", secrets: key, runID: 3000}
		if j := newJobRun(t, wf, "check", ev, wiringWorkspace(t)); j.run(ctx) {
			t.Error("the pull-request job ran on schedule")
		}
		nightly := wf.Jobs["nightly"]
		i := slices.IndexFunc(nightly.Steps, func(s workflowStep) bool { return s.Uses == "latgate/latgate@v1" })
		if i < 0 || !slices.Contains(strings.Fields(nightly.Steps[i].With["args"]), "--require-baseline") {
			t.Fatalf("the nightly job does not run check with --require-baseline")
		}
		requireCheckFlag(t, "--require-baseline")

		ws := wiringWorkspace(t) // the baseline is lost
		historyRemote(t, ws)
		ev.extraArgs = "--quiet"
		j := newJobRun(t, wf, "nightly", ev, ws)
		if !j.run(ctx) {
			t.Fatal("the nightly job did not run on schedule")
		}
		s := j.step("latgate check")
		if !j.failed || s.outputs["exit-code"] != "2" {
			t.Fatalf("a nightly run without a baseline: failed %t, outputs %v; want exit 2\n%s", j.failed, s.outputs, j.log.String())
		}
		if strings.Contains(j.log.String(), "flag provided but not defined") || !strings.Contains(strings.ToLower(j.log.String()), "baseline") {
			t.Errorf("the nightly failure does not name the missing baseline:\n%s", j.log.String())
		}

		blessInto(ctx, t, ws)
		j = newJobRun(t, wf, "nightly", ev, ws)
		j.run(ctx)
		if j.failed {
			t.Fatalf("a nightly run with a baseline failed:\n%s", j.log.String())
		}
		keep := j.step("Keep the results")
		if keep.skipped || !strings.Contains(keep.with["path"], "results.json") {
			t.Errorf("the nightly results are not kept: %+v", keep)
		}
	})

	t.Run("nightly: history on its branch, trend, one issue per change", func(t *testing.T) {
		t.Parallel()
		ev := event{name: "schedule", repo: thisRepo, sha: "dddddddddddd", secrets: key, runID: 4000, extraArgs: "--quiet"}
		ws := newWorkspace(t)
		origin := historyRemote(t, ws)
		blessInto(ctx, t, ws)
		var prev *jobRun
		night := func() *jobRun {
			t.Helper()
			// A fresh checkout each night, as the runner's would be.
			if err := os.RemoveAll(filepath.Join(ws, ".latgate-history")); err != nil {
				t.Fatal(err)
			}
			git(t, "", "clone", "--quiet", origin, filepath.Join(ws, ".latgate-history"))
			ev.runID++
			j := newJobRun(t, wf, "nightly", ev, ws)
			// The repository's issues outlive a run: carry them over.
			if prev != nil {
				if data, err := os.ReadFile(prev.ghState + ".issues"); err == nil {
					if err := os.WriteFile(j.ghState+".issues", data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			j.run(ctx)
			prev = j
			return j
		}
		branchLines := func() int {
			return strings.Count(git(t, "", "--git-dir", origin, "show", "latgate-history:latgate.history.jsonl"), "\n")
		}

		// The first night starts the branch; one run is too few for a verdict.
		j := night()
		if j.failed {
			t.Fatalf("the first nightly run failed:\n%s", j.log.String())
		}
		if n := branchLines(); n != 1 {
			t.Fatalf("the history branch has %d runs after the first night, want 1", n)
		}
		if tr := j.step("latgate trend"); tr.skipped || !strings.Contains(tr.outputs["_stdout"], "not enough runs") {
			t.Errorf("trend on one run: %+v", tr)
		}
		if is := j.issues(); len(is) != 0 {
			t.Errorf("issues after a quiet night: %+v", is)
		}

		// 24 earlier nights, TTFT four times as slow from the 15th (beyond the
		// test config's +100% tolerance and 60 ms floor), pushed to the
		// branch as if measured; the next two nights fail with one issue.
		seedHistory(t, ws, 24, 15, 4)
		hist := filepath.Join(ws, ".latgate-history")
		git(t, hist, "add", "latgate.history.jsonl")
		git(t, hist, "commit", "--quiet", "-m", "earlier nights")
		git(t, hist, "push", "--quiet", "origin", "HEAD:latgate-history")
		for i := 1; i <= 2; i++ {
			j = night()
			tr := j.step("latgate trend")
			if !j.failed || tr.outcome != "failure" || tr.outputs["verdict"] != "regressed" {
				t.Fatalf("night %d after the step: failed %t, trend %+v\n%s", i, j.failed, tr, j.log.String())
			}
			if !strings.Contains(j.summary(), "xychart-beta") || !strings.Contains(j.summary(), "change") {
				t.Errorf("the job summary has no trend chart:\n%s", j.summary())
			}
			if n := branchLines(); n != 26+i-1 {
				t.Errorf("night %d: the branch has %d runs, want %d", i, n, 26+i-1)
			}
			is := j.issues()
			if len(is) != 1 {
				t.Fatalf("night %d: %d issues, want exactly 1: %+v", i, len(is), is)
			}
			if !strings.HasPrefix(is[0].Body, "<!-- latgate-trend: sim/") || !strings.Contains(is[0].Title, "latency regression on sim") {
				t.Errorf("the issue: %+v", is[0])
			}
			if len(is[0].Comments) != i-1 {
				t.Errorf("night %d: the issue has %d comments, want %d", i, len(is[0].Comments), i-1)
			}
		}
	})
}
