package cli

import (
	"context"
	"fmt"
	"runtime"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/internal/publish"
	"github.com/latgate/latgate/internal/sanitize"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/history"
	"github.com/latgate/latgate/pkg/results"
)

// historyFlags are the history flags of check and measure.
type historyFlags struct {
	History string
	Keep    int
}

// defaultHistoryKeep bounds the history: about three years of nightly runs,
// some 5 MB with 10 prompts.
const defaultHistoryKeep = 1000

func historyFlagDefs() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "history", Usage: "append this run's summary to the history `FILE` (JSON Lines; default: the config's history:)", TakesFile: true},
		&ucli.IntFlag{Name: "history-keep", Value: defaultHistoryKeep, Usage: "keep at most `N` runs in the history, dropping the oldest (0: keep all)"},
	}
}

func parseHistoryFlags(c *ucli.Context) historyFlags {
	return historyFlags{History: c.String("history"), Keep: c.Int("history-keep")}
}

// path is the history file to append to: the flag, else the config's.
func (h historyFlags) path(cfg *config.Config) string {
	if h.History != "" {
		return h.History
	}
	return cfg.History
}

func (h historyFlags) validate() error {
	if h.Keep < 0 {
		return usageErr(fmt.Errorf("--history-keep must be 0 (keep all) or more, got %d", h.Keep))
	}
	return nil
}

// recordHistory appends a complete run to the history, when one is kept. A
// failure to write it is returned: a nightly run that loses its record must
// fail visibly (the caller publishes the verdict first, and says it); the
// history file is left as it was.
func recordHistory(ctx context.Context, env Env, hist *publish.File, keep int, cfg *config.Config, f *results.File, command, verdict string) error {
	if hist == nil || f == nil || f.Partial {
		return nil
	}
	rec := history.FromResults(f, history.Meta{
		At:       f.FinishedAt,
		Commit:   gitCommit(ctx, env, cfg.Dir),
		Runner:   runnerIdentity(env),
		Command:  command,
		Verdict:  verdict,
		Sanitize: sanitizer(env, cfg),
	})
	res, err := hist.AppendHistory(rec, keep)
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("history: run added to %s (%d bytes; %s kept)", hist.Path, res.Bytes, plural(res.Records, "run", "runs"))
	if res.Dropped > 0 {
		msg += fmt.Sprintf("; %s dropped by --history-keep %d", plural(res.Dropped, "old line", "old lines"), keep)
	}
	fmt.Fprintln(env.Stderr, msg)
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// runnerIdentity says where this run measured from: the GitHub Actions
// runner's variables when there are any, else this machine's OS and arch.
// LATGATE_RUNNER_LABELS and LATGATE_REGION let a workflow add what Actions
// does not expose (e.g. labels: ${{ join(matrix.labels) }}).
func runnerIdentity(env Env) history.Runner {
	r := history.Runner{
		OS:          env.Getenv("RUNNER_OS"),
		Arch:        env.Getenv("RUNNER_ARCH"),
		Name:        env.Getenv("RUNNER_NAME"),
		Environment: env.Getenv("RUNNER_ENVIRONMENT"),
		Labels:      env.Getenv("LATGATE_RUNNER_LABELS"),
		Region:      env.Getenv("LATGATE_REGION"),
	}
	if r.OS == "" {
		r.OS = runtime.GOOS
	}
	if r.Arch == "" {
		r.Arch = runtime.GOARCH
	}
	return r
}

// sanitizeRunner passes every field of r through san and history.Clean.
func sanitizeRunner(r history.Runner, san func(string) string) history.Runner {
	for _, f := range []*string{&r.OS, &r.Arch, &r.Name, &r.Labels, &r.Region, &r.Environment} {
		*f = history.Clean(san(*f))
	}
	return r
}

// sanitizer is the one place history text passes through the project's
// sanitiser: every credential form this config sends is redacted, and the
// text made one printable line of bounded length.
func sanitizer(env Env, cfg *config.Config) func(string) string {
	r := sanitize.NewRedactor()
	for _, t := range cfg.Targets {
		r.Add(sanitize.Credentials(env.Getenv(t.APIKeyEnv), t.BaseURL)...)
	}
	return func(s string) string { return sanitize.Field(r, s, 400) }
}
