package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/internal/workflow"
	"github.com/latgate/latgate/pkg/config"
)

type initOptions struct {
	Dir string
}

func initCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "init",
		Usage:     "write a commented latgate.yaml and a GitHub Actions workflow into this repository",
		UsageText: "latgate init [--dir .]",
		Description: `Writes, at the root of the repository:

  latgate.yaml                    what to measure and how strictly; it starts
                                  on the built-in simulator (no key, no network)
  ` + workflow.Path + `   check on pull requests, a nightly check,
                                  and a manual "bless" job that opens a pull
                                  request with a new baseline

then prints the next steps. It refuses to overwrite either file (exit 2, and
nothing is written).`,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "dir", Value: ".", Usage: "the repository root to write into", TakesFile: true},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usageErr(fmt.Errorf("init takes no arguments, got %q (did you mean --dir %s?)", c.Args().First(), c.Args().First()))
			}
			return runInit(env, initOptions{Dir: c.String("dir")})
		},
	}
}

// initFile is one file init writes.
type initFile struct {
	path string
	data []byte
}

func runInit(env Env, opts initOptions) error {
	if fi, err := os.Stat(opts.Dir); err != nil || !fi.IsDir() {
		return usageErr(fmt.Errorf("--dir %s: not a directory", opts.Dir))
	}
	files := []initFile{
		{filepath.Join(opts.Dir, "latgate.yaml"), config.Example()},
		{filepath.Join(opts.Dir, filepath.FromSlash(workflow.Path)), workflow.Example()},
	}
	var existing []string
	for _, f := range files {
		if _, err := os.Lstat(f.path); err == nil {
			existing = append(existing, f.path)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return usageErr(fmt.Errorf("init: %w", err))
		}
	}
	if len(existing) > 0 {
		return usageErr(fmt.Errorf("refusing to overwrite %s: nothing was written (to see the files init writes, run it with --dir on an empty directory)",
			strings.Join(existing, " and ")))
	}
	var written []string
	for _, f := range files {
		if err := createNew(f.path, f.data); err != nil {
			for _, w := range written {
				os.Remove(w)
			}
			return usageErr(fmt.Errorf("init: %w (nothing was written)", err))
		}
		written = append(written, f.path)
	}
	fmt.Fprintf(env.Stdout, "latgate: wrote %s\n\n", strings.Join(written, " and "))
	fmt.Fprint(env.Stdout, nextSteps(opts.Dir))
	return nil
}

// createNew writes a new file, creating its directory; it fails if the file
// exists, and leaves no partial file behind.
func createNew(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
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
     From then on every pull request is checked against the baseline.
`)
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		b.WriteString("\nNote: no .git here; GitHub runs workflows only from .github/workflows at the\nrepository root.\n")
	}
	return b.String()
}
