package app

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/latgate/latgate/internal/publish"
	"github.com/latgate/latgate/internal/workflow"
	"github.com/latgate/latgate/pkg/config"
)

// Init writes, at the root of the repository dir, a commented latgate.yaml
// and the GitHub Actions workflow (with appRecipe, the recipe for the
// team's own app instead: latgate.app.yaml and its workflow), never over an
// existing file, and prints the next steps.
func (a *App) Init(dir string, appRecipe bool) error {
	if !publish.IsDir(dir) {
		return UsageError(fmt.Errorf("--dir %s: not a directory", dir))
	}
	files := []publish.NewFile{
		{Path: filepath.Join(dir, "latgate.yaml"), Data: config.Example()},
		{Path: filepath.Join(dir, filepath.FromSlash(workflow.Path)), Data: workflow.Example()},
	}
	next := nextSteps
	if appRecipe {
		files = []publish.NewFile{
			{Path: filepath.Join(dir, workflow.AppConfigPath), Data: workflow.AppConfig()},
			{Path: filepath.Join(dir, filepath.FromSlash(workflow.AppPath)), Data: workflow.AppExample()},
		}
		next = appNextSteps
	}
	var exists *publish.ExistsError
	switch err := publish.Create(files); {
	case errors.As(err, &exists):
		return UsageError(fmt.Errorf("refusing to overwrite %s: nothing was written (to see the files init writes, run it with --dir on an empty directory)",
			strings.Join(exists.Paths, " and ")))
	case err != nil:
		return UsageError(fmt.Errorf("init: %w (nothing was written)", err))
	}
	fmt.Fprintf(a.Out.Stdout, "latgate: wrote %s and %s\n\n", files[0].Path, files[1].Path)
	fmt.Fprint(a.Out.Stdout, next(dir))
	return nil
}

func appNextSteps(dir string) string {
	var b strings.Builder
	b.WriteString("Next steps:\n")
	if dir != "." {
		fmt.Fprintf(&b, "  cd %s\n", dir)
	}
	b.WriteString(`  1. Make ` + workflow.AppConfigPath + ` describe your app: each target's base_url, api
     (sse: its own stream; chat: an OpenAI-compatible one) and serve.command
     (main: the base branch's build, bin/app-base; pr: this checkout's,
     bin/app), and pass_env (the secrets the app needs; none other reaches it).
  2. Change the two build steps of ` + workflow.AppPath + ` to your app's build.
  3. Try it here, with both binaries built:
       latgate ab --targets main,pr ` + workflow.AppConfigPath + `
     or without the app, on the built-in simulator:
       latgate measure --config ` + workflow.AppConfigPath + ` --base-url sim
  4. Add the app's key as a repository secret (OPENAI_API_KEY in the
     workflow), and commit both files in a pull request; it is gated from the
     pull request after it, once the base branch has the config.
  docs/your-app.md walks through it.
`)
	return b.String()
}

func nextSteps(dir string) string {
	var b strings.Builder
	b.WriteString("Next steps:\n")
	if dir != "." {
		fmt.Fprintf(&b, "  cd %s\n", dir)
	}
	b.WriteString(`  1. Try the gate on the built-in simulator (no key, no network). It serves
     requests in parallel, so --concurrency 4 on bless and check keeps it quick:
       latgate bless --concurrency 4   # measure, write latgate.baseline.json
       latgate check --concurrency 4   # measure again and compare: passes
       latgate check --concurrency 4 --base-url 'sim:default?ttft_factor=1.6'
                                       # rehearse a 1.6x slower TTFT: fails (exit 1)
  2. Point latgate.yaml at your endpoint: targets[].base_url, model, and
     api_key_env (the variable holding the key; never the key itself). Keep
     run.concurrency: 1 for a local server (Ollama, llama.cpp, a one-GPU
     vLLM): it queues, and more requests in flight would measure the queue.
     Then latgate bless and latgate check measure it from this machine.
  3. Add the key as the repository secret OPENAI_API_KEY, and allow GitHub
     Actions to create pull requests (Settings > Actions > General).
  4. Commit latgate.yaml and ` + workflow.Path + ` in a pull request.
     Its check passes without a baseline ("no baseline: nothing was gated")
     and its job summary says how to bless the results it measured; or merge
     and run the "latgate" workflow from the Actions tab, which measures on
     the CI runner and opens a pull request with latgate.baseline.json.
     From then on every pull request is checked against the baseline; one
     that changes latency on purpose gets its new baseline, measured on the
     CI runner, from the label latgate:bless.
`)
	if !publish.Exists(filepath.Join(dir, ".git")) {
		b.WriteString("\nNote: no .git here; GitHub runs workflows only from .github/workflows at the\nrepository root.\n")
	}
	return b.String()
}
