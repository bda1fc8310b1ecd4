// Package action tests action.yml, latgate's composite GitHub Action, by
// running its run: steps the way the Actions runner would: bash with
// GITHUB_ACTIONS=true, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and GITHUB_PATH in
// temp files, ${{ }} expressions substituted, uses: steps (actions/setup-go)
// skipped since Go is already here, against the built-in simulator.
package action

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/latgate/latgate/internal/testkit"
	"github.com/latgate/latgate/internal/view"
	"github.com/latgate/latgate/pkg/compare"
)

// actionFile is the part of the action metadata syntax this test models.
type actionFile struct {
	Name        string
	Description string
	Author      string
	Branding    struct{ Icon, Color string }
	Inputs      map[string]struct {
		Description string
		Required    bool
		Default     string
	}
	Outputs map[string]struct {
		Description string
		Value       string
	}
	Runs struct {
		Using string
		Steps []step
	}
}

type step struct {
	Name             string
	ID               string
	If               string
	Uses             string
	With             map[string]string
	Shell            string
	Run              string
	Env              map[string]string
	WorkingDirectory string `yaml:"working-directory"`
}

func loadAction(t *testing.T) *actionFile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testkit.RepoRoot(t), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return &a
}

var exprRE = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// TestActionMetadata checks what actionlint does not: the steps of action.yml.
func TestActionMetadata(t *testing.T) {
	a := loadAction(t)
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using = %q, want composite", a.Runs.Using)
	}
	ids := map[string]bool{}
	used := map[string]bool{}
	var texts []string
	for i, s := range a.Runs.Steps {
		where := fmt.Sprintf("step %d (%s)", i+1, s.Name)
		if s.ID != "" {
			ids[s.ID] = true
		}
		if (s.Run == "") == (s.Uses == "") {
			t.Errorf("%s: want exactly one of run: and uses:", where)
		}
		if s.Run != "" && s.Shell != "bash" {
			t.Errorf("%s: shell is %q; composite run steps need one, and the scripts are bash", where, s.Shell)
		}
		// Expressions reach scripts through env: only, never pasted into the
		// script text, where an input could inject shell code.
		if exprRE.MatchString(s.Run) {
			t.Errorf("%s: run: holds a ${{ }} expression; pass it through env:", where)
		}
		texts = append(texts, s.If, s.Name)
		for _, v := range s.With {
			texts = append(texts, v)
		}
		for _, v := range s.Env {
			texts = append(texts, v)
		}
	}
	for name, o := range a.Outputs {
		m := regexp.MustCompile(`^\$\{\{ steps\.([a-z-]+)\.outputs\.([a-z-]+) \}\}$`).FindStringSubmatch(o.Value)
		if m == nil || !ids[m[1]] {
			t.Errorf("output %s: value %q does not name a step's output", name, o.Value)
		}
		if o.Description == "" {
			t.Errorf("output %s has no description", name)
		}
	}
	// The verdict output names every verdict check can write (#23: it
	// lacked no-baseline), and bless's.
	verdict := a.Outputs["verdict"].Description
	for _, v := range []string{string(compare.OK), string(compare.Improved), string(compare.Inconclusive), string(compare.Regressed),
		view.NoBaselineVerdict, view.SkippedVerdict, view.ErrorVerdict, "blessed"} {
		if !regexp.MustCompile(`\b` + regexp.QuoteMeta(v) + `\b`).MatchString(verdict) {
			t.Errorf("the verdict output's description does not name %q: %q", v, verdict)
		}
	}
	inputRE := regexp.MustCompile(`inputs\.([a-zA-Z0-9_-]+)`)
	for _, text := range texts {
		for _, m := range inputRE.FindAllStringSubmatch(text, -1) {
			used[m[1]] = true
			if _, ok := a.Inputs[m[1]]; !ok {
				t.Errorf("inputs.%s is used but not declared", m[1])
			}
		}
	}
	for name, in := range a.Inputs {
		if !used[name] {
			t.Errorf("input %s is declared but never used", name)
		}
		if in.Description == "" {
			t.Errorf("input %s has no description", name)
		}
	}
}

// TestRunScriptsShellcheck runs shellcheck on each run: script of action.yml
// (actionlint checks only the workflows' scripts). It skips without
// shellcheck, unless LATGATE_REQUIRE_SHELLCHECK=1 (scripts/lint-actions.sh).
func TestRunScriptsShellcheck(t *testing.T) {
	if _, err := exec.LookPath("shellcheck"); err != nil {
		if os.Getenv("LATGATE_REQUIRE_SHELLCHECK") == "1" {
			t.Fatal("shellcheck is not installed")
		}
		t.Skip("shellcheck is not installed; scripts/lint-actions.sh requires it")
	}
	dir := t.TempDir()
	n := 0
	for i, s := range loadAction(t).Runs.Steps {
		if s.Run == "" {
			continue
		}
		n++
		// The runner runs `bash --noprofile --norc -eo pipefail {0}`.
		path := filepath.Join(dir, fmt.Sprintf("step%d.sh", i+1))
		if err := os.WriteFile(path, []byte("#!/usr/bin/env bash\nset -eo pipefail\n"+s.Run), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("shellcheck", "--shell=bash", "--severity=style", path).CombinedOutput()
		if err != nil {
			t.Errorf("shellcheck of step %d (%s): %v\n%s", i+1, s.Name, err, out)
		}
	}
	if n == 0 {
		t.Fatal("action.yml has no run: steps")
	}
}

// runner runs the steps of action.yml like one job of the Actions runner.
type runner struct {
	t      *testing.T
	action *actionFile
	// repo is the action's checkout; workspace the caller's.
	repo, workspace, tmp string
	// The runner's files and temp dir.
	summary, pathFile, envFile, runnerTemp string
	// extraPath is what steps added to GITHUB_PATH, first first.
	extraPath []string
	inputs    map[string]string
	// callerEnv is the env: of the workflow step that uses the action
	// (KEY=VALUE); composite steps inherit it.
	callerEnv []string
	// actionRef and actionRepo are github.action_ref and
	// github.action_repository: empty as with uses: ./ unless a test sets them.
	actionRef, actionRepo string
	// serverURL is GITHUB_SERVER_URL, where releases are downloaded from.
	serverURL string
	// cacheDir holds the simulated actions/cache entries, one directory per
	// key; tests share it between runners to model a repository's cache.
	cacheDir string
	// extraEnv is added to every step (GOCACHE for a cold runner).
	extraEnv []string
	// github is the github context the action's expressions see, by path
	// (github.event_name, github.event.pull_request.base.sha, ...); a path
	// it lacks is null, as on GitHub. The workflow runner sets it from its
	// event; alone, the action runs as on a push (no pull request).
	github map[string]string
	// steps is how long each step of the last use took, and what it did.
	steps []stepTime
	// What the last use of the action did.
	stepOutputs    map[string]map[string]string
	stdout, stderr bytes.Buffer
	failedStep     string
	exitCode       int
	outputs        map[string]string
}

// stepTime is one step of a use of the action: its name, what happened
// (ran, skipped, cache hit...) and how long it took.
type stepTime struct {
	name, what string
	took       time.Duration
}

// newRunner prepares a job in the workspace dir: its runner temp and files.
func newRunner(t *testing.T, a *actionFile, workspace string) *runner {
	t.Helper()
	tmp := t.TempDir()
	r := &runner{
		t: t, action: a, repo: testkit.RepoRoot(t), workspace: workspace, tmp: tmp,
		summary: filepath.Join(tmp, "step_summary.md"), pathFile: filepath.Join(tmp, "path"),
		envFile: filepath.Join(tmp, "env"), runnerTemp: filepath.Join(tmp, "runner-temp"),
		serverURL: "https://github.invalid", cacheDir: sharedCache(),
	}
	for _, f := range []string{r.summary, r.pathFile, r.envFile} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(r.runnerTemp, 0o755); err != nil {
		t.Fatal(err)
	}
	return r
}

// eval substitutes the ${{ }} expressions of s that composite actions use here.
func (r *runner) eval(s string) string {
	r.t.Helper()
	return exprRE.ReplaceAllStringFunc(s, func(m string) string {
		return exprString(evalExpr(r.t, exprRE.FindStringSubmatch(m)[1], false, r.lookup))
	})
}

// lookup resolves the contexts a composite action's steps see.
func (r *runner) lookup(path string) (string, bool) {
	r.t.Helper()
	switch {
	case strings.HasPrefix(path, "inputs."):
		name := strings.TrimPrefix(path, "inputs.")
		in, ok := r.action.Inputs[name]
		if !ok {
			r.t.Fatalf("%s: no such input", path)
		}
		if v, ok := r.inputs[name]; ok {
			return v, true
		}
		return r.eval(in.Default), true // a default may be an expression: ${{ github.token }}
	case path == "github.action_path":
		return r.repo, true
	case path == "github.action_ref":
		return r.actionRef, true
	case path == "github.action_repository":
		return r.actionRepo, true
	case path == "runner.temp":
		return r.runnerTemp, true
	case strings.HasPrefix(path, "github."):
		v, ok := r.github[path]
		return v, ok
	case strings.HasPrefix(path, "steps."):
		parts := strings.Split(path, ".")
		if len(parts) != 4 || parts[2] != "outputs" {
			r.t.Fatalf("%s: this test models only steps.ID.outputs.NAME", path)
		}
		v, ok := r.stepOutputs[parts[1]][parts[3]]
		return v, ok
	}
	r.t.Fatalf("%s: expression not modeled by this test", path)
	return "", false
}

// uses runs a uses: step of the action the way the runner would, for the
// actions it models: setup-go is skipped (Go is installed), actions/cache
// restore and save copy the path to and from r.cacheDir/KEY.
func (r *runner) uses(s step) (outputs map[string]string, what string) {
	r.t.Helper()
	with := map[string]string{}
	for k, v := range s.With {
		with[k] = r.eval(v)
	}
	entry := filepath.Join(r.cacheDir, with["key"])
	switch {
	case strings.HasPrefix(s.Uses, "actions/setup-go@"):
		return nil, "skipped, Go is installed"
	case strings.HasPrefix(s.Uses, "actions/cache/restore@"):
		if with["key"] == "" || with["path"] == "" {
			r.t.Fatalf("%s without key or path: %v", s.Uses, with)
		}
		if _, err := os.Stat(entry); err != nil {
			return map[string]string{"cache-hit": "false"}, "cache miss"
		}
		copyDir(r.t, entry, with["path"])
		return map[string]string{"cache-hit": "true", "cache-matched-key": with["key"]}, "cache hit"
	case strings.HasPrefix(s.Uses, "actions/cache/save@"):
		if _, err := os.Stat(entry); err == nil {
			return nil, "already cached"
		}
		copyDir(r.t, with["path"], entry)
		return nil, "saved"
	}
	r.t.Fatalf("uses: %s is not modeled by this test", s.Uses)
	return nil, ""
}

// copyDir copies the files of directory from into to (created), keeping modes.
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-pR", from+"/.", to).CombinedOutput(); err != nil {
		t.Fatalf("cp %s %s: %v\n%s", from, to, err, out)
	}
}

// baseEnv is this process's environment without anything of a real runner.
func baseEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GITHUB_") || strings.HasPrefix(kv, "RUNNER_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// use runs the action with inputs, stopping at the first failing step like
// the runner, and records the action's outputs.
func (r *runner) use(ctx context.Context, inputs map[string]string) {
	r.t.Helper()
	for name := range inputs {
		if _, ok := r.action.Inputs[name]; !ok {
			r.t.Fatalf("input %q is not declared in action.yml", name)
		}
	}
	defer r.holdSharedCache()()
	r.inputs, r.stepOutputs, r.failedStep, r.exitCode = inputs, map[string]map[string]string{}, "", 0
	r.stdout.Reset()
	r.stderr.Reset()
	r.steps = nil
	for i, s := range r.action.Runs.Steps {
		if s.WorkingDirectory != "" {
			r.t.Fatalf("step %d (%s): working-directory: is not modeled by this test", i+1, s.Name)
		}
		start := time.Now()
		if s.If != "" && !evalCondition(r.t, s.If, false, r.lookup) {
			r.steps = append(r.steps, stepTime{s.Name, "skipped", 0})
			continue
		}
		if s.Uses != "" {
			out, what := r.uses(s)
			if s.ID != "" {
				r.stepOutputs[s.ID] = out
			}
			r.t.Logf("step %d (%s): uses %s: %s", i+1, s.Name, s.Uses, what)
			r.steps = append(r.steps, stepTime{s.Name, what, time.Since(start)})
			continue
		}
		code := r.runStep(ctx, i, s)
		r.steps = append(r.steps, stepTime{s.Name, "ran", time.Since(start)})
		if code != 0 {
			r.failedStep, r.exitCode = s.Name, code
			break
		}
	}
	r.outputs = map[string]string{}
	for name, o := range r.action.Outputs {
		r.outputs[name] = r.eval(o.Value)
	}
}

func (r *runner) runStep(ctx context.Context, i int, s step) int {
	r.t.Helper()
	script := filepath.Join(r.tmp, fmt.Sprintf("step%d.sh", i+1))
	if err := os.WriteFile(script, []byte(s.Run), 0o644); err != nil {
		r.t.Fatal(err)
	}
	output := filepath.Join(r.tmp, fmt.Sprintf("output%d", i+1))
	if err := os.WriteFile(output, nil, 0o644); err != nil {
		r.t.Fatal(err)
	}
	env := baseEnv()
	path := os.Getenv("PATH")
	if len(r.extraPath) > 0 {
		path = strings.Join(r.extraPath, string(os.PathListSeparator)) + string(os.PathListSeparator) + path
	}
	env = append(env, "PATH="+path, "CI=true", "GITHUB_ACTIONS=true",
		"GITHUB_WORKSPACE="+r.workspace, "GITHUB_ACTION_PATH="+r.repo,
		"GITHUB_OUTPUT="+output, "GITHUB_STEP_SUMMARY="+r.summary,
		"GITHUB_PATH="+r.pathFile, "GITHUB_ENV="+r.envFile, "RUNNER_TEMP="+r.runnerTemp,
		"GITHUB_SERVER_URL="+r.serverURL, "RUNNER_OS="+runnerOS(), "RUNNER_ARCH="+runnerArch(),
		"GITHUB_EVENT_NAME="+r.github["github.event_name"])
	env = append(env, r.extraEnv...)
	env = append(env, r.callerEnv...)
	for k, v := range s.Env {
		env = append(env, k+"="+r.eval(v))
	}
	// What the runner runs for shell: bash.
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir, cmd.Env = r.workspace, env
	cmd.Stdout, cmd.Stderr = &r.stdout, &r.stderr
	start := time.Now()
	err := cmd.Run()
	r.t.Logf("step %d (%s): %v, %.1fs", i+1, s.Name, err, time.Since(start).Seconds())
	var ee *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		r.t.Fatalf("step %d (%s): %v", i+1, s.Name, err)
	}
	if s.ID != "" {
		r.stepOutputs[s.ID] = parseOutputs(r.t, output)
	}
	pathData, err := os.ReadFile(r.pathFile)
	if err != nil {
		r.t.Fatal(err)
	}
	r.extraPath = nil
	for _, p := range strings.Fields(string(pathData)) {
		r.extraPath = slices.Insert(r.extraPath, 0, p) // later lines come first
	}
	return code
}

// runnerOS and runnerArch are RUNNER_OS and RUNNER_ARCH for this machine.
func runnerOS() string {
	switch runtime.GOOS {
	case "darwin":
		return "macOS"
	case "windows":
		return "Windows"
	}
	return "Linux"
}

func runnerArch() string {
	if runtime.GOARCH == "arm64" {
		return "ARM64"
	}
	return "X64"
}

// parseOutputs reads a GITHUB_OUTPUT file: name=value lines and
// name<<DELIMITER blocks.
func parseOutputs(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if name, delim, ok := strings.Cut(line, "<<"); ok && !strings.Contains(name, "=") {
			var lines []string
			for sc.Scan() && sc.Text() != delim {
				lines = append(lines, sc.Text())
			}
			out[name] = strings.Join(lines, "\n")
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("%s: malformed line %q", path, line)
		}
		out[name] = value
	}
	return out
}

func (r *runner) logOutput() {
	r.t.Helper()
	r.t.Logf("stdout:\n%s\nstderr:\n%s", r.stdout.String(), r.stderr.String())
}

// testConfig is a small, quick config: one prompt, 60 requests to a
// simulator with a fixed 30 ms TTFT and 8 one-millisecond tokens, gated on
// TTFT P50 and P95 (two statistics, so the job summary's chart has two
// categories to draw). It tests the action's wiring, not the gate: the
// simulator runs in latgate's process, and on a loaded machine its P95 was
// seen 30 ms late between two unchanged runs, so the tolerance (+100%) and
// floor (60 ms) are far above scheduling noise.
const testConfig = `baseline: latgate.baseline.json
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
  requests: 60
  warmup: 1
  concurrency: 2
gate:
  checks:
    - {metric: ttft, stat: p50, tolerance: 100%, floor: 60ms}
    - {metric: ttft, stat: p95, tolerance: 100%, floor: 60ms}
`

// regressionArgs makes the simulator's TTFT 6× slower: +150 ms, beyond the
// 60 ms floor and the +100% tolerance.
const regressionArgs = "--base-url sim:fast?ttft=30ms&ttft_factor=6 --quiet"

// requireCheck skips the test unless this tree's latgate has a check command.
func requireCheck(t *testing.T) {
	t.Helper()
	if out, err := exec.Command(latgateBin(t), "check", "--help").CombinedOutput(); err != nil {
		t.Skipf("latgate check --help failed (%v): the check command is not there yet, so the action cannot run\n%s", err, out)
	}
}

func TestActionAgainstSimulator(t *testing.T) {
	testkit.Scripts(t)
	t.Parallel()
	if testing.Short() {
		t.Skip("builds latgate and measures the simulator")
	}
	requireCheck(t)
	// The bless builds latgate (a cold build took 197 s on a loaded 2-core
	// runner, and the checks after it ran out of a deadline they shared
	// with it): the build has its own budget, the checks theirs.
	bctx, bcancel := context.WithTimeout(context.Background(), 10*time.Minute)
	t.Cleanup(bcancel)
	a := loadAction(t)
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "latgate.yaml"), []byte(testConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newRunner(t, a, ws)

	// bless: writes the baseline into the workspace, for a pull request.
	r.use(bctx, map[string]string{"command": "bless", "args": "--quiet --force"})
	if r.failedStep != "" {
		r.logOutput()
		t.Fatalf("bless: step %q exited %d", r.failedStep, r.exitCode)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	t.Cleanup(cancel)
	if diff := cmp.Diff(map[string]string{
		"verdict": "blessed", "exit-code": "0", "markdown": filepath.Join(r.runnerTemp, "latgate", "report.md"),
		"junit": "", "results": "", "ab-verdict": "", "ab-junit": "", "ab-markdown": "", "ab-results": "",
	}, r.outputs); diff != "" {
		t.Errorf("bless outputs (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(ws, "latgate.baseline.json")); err != nil {
		t.Fatalf("bless wrote no baseline: %v", err)
	}
	if !slices.Contains(r.extraPath, filepath.Join(r.runnerTemp, "latgate-action", "bin")) {
		t.Errorf("GITHUB_PATH does not hold latgate's directory: %q", r.extraPath)
	}

	t.Run("unchanged", func(t *testing.T) {
		t.Parallel()
		r := newRunner(t, a, ws) // the workspace and its baseline are shared, read only
		r.use(ctx, map[string]string{"args": "--quiet"})
		if r.failedStep != "" {
			r.logOutput()
			t.Fatalf("check of an unchanged endpoint: step %q exited %d", r.failedStep, r.exitCode)
		}
		// The same simulator again: ok, or inconclusive on a very noisy machine.
		if v := r.outputs["verdict"]; v != "ok" && v != "inconclusive" {
			r.logOutput()
			t.Errorf("verdict = %q, want ok (or inconclusive)", v)
		}
		if got := r.outputs["exit-code"]; got != "0" {
			t.Errorf("exit-code = %q, want 0", got)
		}
		for _, name := range []string{"junit", "markdown", "results"} {
			if p := r.outputs[name]; p == "" {
				t.Errorf("output %s is empty", name)
			} else if _, err := os.Stat(p); err != nil {
				t.Errorf("output %s: %v", name, err)
			}
		}
		if strings.Contains(r.stdout.String(), "::error") {
			t.Errorf("annotations on a pass:\n%s", r.stdout.String())
		}
	})

	t.Run("regression", func(t *testing.T) {
		t.Parallel()
		r := newRunner(t, a, ws) // the workspace and its baseline are shared, read only
		r.use(ctx, map[string]string{"args": regressionArgs, "junit": "reports/junit.xml"})
		if r.failedStep != "Run latgate" || r.exitCode != 1 {
			r.logOutput()
			t.Fatalf("failed step %q with exit code %d, want step \"Run latgate\" to fail with 1", r.failedStep, r.exitCode)
		}
		if got := r.outputs["verdict"]; got != "regressed" {
			t.Errorf("verdict = %q, want regressed", got)
		}
		if got := r.outputs["exit-code"]; got != "1" {
			t.Errorf("exit-code = %q, want 1", got)
		}
		if got := r.outputs["junit"]; got != "reports/junit.xml" {
			t.Errorf("junit = %q, want reports/junit.xml as given", got)
		}
		if junit, err := os.ReadFile(filepath.Join(ws, "reports", "junit.xml")); err != nil || !bytes.Contains(junit, []byte("<failure")) {
			t.Errorf("the JUnit report has no <failure> (err %v):\n%s", err, junit)
		}
		if !regexp.MustCompile(`(?m)^::error\b`).MatchString(r.stdout.String()) {
			r.logOutput()
			t.Errorf("no ::error annotation on stdout")
		}
		data, err := os.ReadFile(r.summary)
		if err != nil {
			t.Fatal(err)
		}
		summary := string(data)
		if !regexp.MustCompile(`(?m)^\|.*\|[ \t]*\n\|([ \t]*:?-+:?[ \t]*\|)+[ \t]*$`).MatchString(summary) {
			t.Errorf("the job summary has no Markdown table:\n%s", summary)
		}
		if !strings.Contains(summary, "```mermaid") {
			t.Errorf("the job summary has no mermaid chart:\n%s", summary)
		}
	})

	t.Run("config error", func(t *testing.T) {
		t.Parallel()
		r := newRunner(t, a, ws) // the workspace and its baseline are shared, read only
		r.use(ctx, map[string]string{"config": "missing.yaml"})
		if r.failedStep != "Run latgate" || r.exitCode != 2 {
			r.logOutput()
			t.Fatalf("failed step %q with exit code %d, want step \"Run latgate\" to fail with 2", r.failedStep, r.exitCode)
		}
		// A check that cannot decide still writes its reports (an errored
		// JUnit testcase, an ERROR Markdown note), so publishing steps show why.
		junit, markdown := filepath.Join(r.runnerTemp, "latgate", "junit.xml"), filepath.Join(r.runnerTemp, "latgate", "report.md")
		want := map[string]string{"verdict": "error", "exit-code": "2", "junit": junit, "markdown": markdown, "results": "",
			"ab-verdict": "", "ab-junit": "", "ab-markdown": "", "ab-results": ""}
		if diff := cmp.Diff(want, r.outputs); diff != "" {
			t.Errorf("outputs (-want +got):\n%s", diff)
		}
		if data, err := os.ReadFile(junit); err != nil || !bytes.Contains(data, []byte("<error")) {
			t.Errorf("the JUnit report has no <error> (err %v):\n%s", err, data)
		}
	})

	t.Run("pull request without a Git checkout", func(t *testing.T) {
		t.Parallel()
		r := newRunner(t, a, ws) // a plain directory
		r.github = map[string]string{"github.event_name": "pull_request", "github.repository": "acme/app",
			"github.event.pull_request.head.repo.full_name": "acme/app", "github.event.pull_request.base.sha": "0123456789abcdef0123456789abcdef01234567"}
		r.use(ctx, map[string]string{"args": "--quiet"})
		if r.failedStep != "Run latgate" || r.exitCode != 2 || !strings.Contains(r.stdout.String(), "::error title=latgate::latgate.yaml is not in a Git checkout") {
			r.logOutput()
			t.Errorf("failed step %q with exit code %d, want step \"Run latgate\" to fail with 2 and say why", r.failedStep, r.exitCode)
		}
		if r.outputs["verdict"] != "error" || r.outputs["exit-code"] != "2" {
			t.Errorf("outputs %v, want verdict error, exit-code 2", r.outputs)
		}
	})

	t.Run("bad input", func(t *testing.T) {
		t.Parallel()
		r := newRunner(t, a, ws) // the workspace and its baseline are shared, read only
		r.use(ctx, map[string]string{"strict": "yes"})
		if r.failedStep != "Run latgate" || r.exitCode != 2 || !strings.Contains(r.stdout.String(), "::error title=latgate::input strict must be true or false") {
			r.logOutput()
			t.Errorf("failed step %q with exit code %d, want step \"Run latgate\" to fail with 2 and an annotation", r.failedStep, r.exitCode)
		}
		want := map[string]string{"verdict": "error", "exit-code": "2", "junit": "", "markdown": "", "results": "",
			"ab-verdict": "", "ab-junit": "", "ab-markdown": "", "ab-results": ""}
		if diff := cmp.Diff(want, r.outputs); diff != "" {
			t.Errorf("outputs (-want +got):\n%s", diff)
		}
	})
}

// TestBlessSummaryFence holds #16 item 7's Markdown half: the bless step
// wraps latgate's output in a code fence in the job summary (and the bless
// pull request's body); a run of backticks in that output (here from the
// model name, which may hold them) must not close it, so the fence is
// longer than any run inside.
func TestBlessSummaryFence(t *testing.T) {
	testkit.Scripts(t)
	t.Parallel()
	if testing.Short() {
		t.Skip("builds latgate and measures the simulator")
	}
	requireCheck(t)
	// The bless builds latgate first: minutes on a loaded runner.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	ws := t.TempDir()
	cfg := strings.Replace(workflowConfig, "model: sim", "model: \"sim```` # <img src=x>\"", 1)
	if err := os.WriteFile(filepath.Join(ws, "latgate.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newRunner(t, loadAction(t), ws)
	r.use(ctx, map[string]string{"command": "bless", "args": "--quiet --force"})
	if r.failedStep != "" {
		r.logOutput()
		t.Fatalf("bless: step %q exited %d", r.failedStep, r.exitCode)
	}
	md, err := os.ReadFile(r.outputs["markdown"])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(md), "\n"), "\n")
	if len(lines) < 4 || lines[0] != "## latgate bless" {
		t.Fatalf("bless markdown:\n%s", md)
	}
	fence, body := lines[2], lines[3:len(lines)-1]
	if strings.Trim(fence, "`") != "" || lines[len(lines)-1] != fence {
		t.Fatalf("not a fenced block: %q … %q", fence, lines[len(lines)-1])
	}
	if !strings.Contains(string(md), "sim````") {
		t.Fatalf("the output does not hold the model's backticks; the test proves nothing:\n%s", md)
	}
	for _, l := range body {
		if strings.HasPrefix(strings.TrimLeft(l, " "), fence) || strings.Contains(l, fence) {
			t.Errorf("line %q holds the fence %q", l, fence)
		}
	}
	if summary, _ := os.ReadFile(r.summary); !bytes.Contains(summary, md) {
		t.Errorf("the job summary does not hold the bless markdown")
	}
}
