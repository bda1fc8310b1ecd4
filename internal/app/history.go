package app

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/latgate/latgate/internal/history"
	"github.com/latgate/latgate/internal/publish"
	"github.com/latgate/latgate/internal/sanitize"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/measure"
	"github.com/latgate/latgate/pkg/results"
)

// History is where check and measure add a record of a complete run:
// Path (--history; "": the config's history:) keeping the newest Keep runs
// (--history-keep; 0: all).
type History struct {
	Path string
	Keep int
}

func (h History) validate() error {
	if h.Keep < 0 {
		return UsageError(fmt.Errorf("--history-keep must be 0 (keep all) or more, got %d", h.Keep))
	}
	return nil
}

// recordHistory appends a complete run to the history, when one is kept
// (with when the baseline it was compared with was blessed, zero for none). A
// failure to write it is returned: a nightly run that loses its record must
// fail visibly (the caller publishes the verdict first, and says it); the
// history file is left as it was.
func (a *App) recordHistory(ctx context.Context, hist *publish.File, keep int, cfg *config.Config, f *results.File, command, verdict string, blessedAt time.Time) error {
	if hist == nil || f == nil || f.Partial {
		return nil
	}
	commit := a.commit(ctx, cfg.Dir)
	rec := history.FromResults(f, history.Meta{
		At:        f.FinishedAt,
		Commit:    commit,
		CommitURL: a.commitURL(commit),
		Runner:    a.runner(),
		Command:   command,
		Verdict:   verdict,
		BlessedAt: blessedAt,
		Sanitize:  a.sanitizer(cfg),
	})
	res, err := hist.AppendHistory(rec, keep)
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("history: run added to %s (%d bytes; %s kept)", hist.Path, res.Bytes, plural(res.Records, "run", "runs"))
	if res.Dropped > 0 {
		msg += fmt.Sprintf("; %s dropped by --history-keep %d", plural(res.Dropped, "old line", "old lines"), keep)
	}
	fmt.Fprintln(a.Out.Stderr, msg)
	return nil
}

// recordSweep appends a finished sweep's knees to the history, when one is
// kept: trend then follows each target's capacity night by night.
func (a *App) recordSweep(ctx context.Context, hist *publish.File, keep int, cfg *config.Config, sw *results.Sweep) error {
	if hist == nil || sw.Partial {
		return nil
	}
	commit := a.commit(ctx, cfg.Dir)
	rec := history.FromSweep(sw, history.Meta{At: sw.FinishedAt, Commit: commit, CommitURL: a.commitURL(commit), Runner: a.runner(),
		Command: "sweep", Sanitize: a.sanitizer(cfg)})
	res, err := hist.AppendHistory(rec, keep)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.Out.Stderr, "history: sweep added to %s (%d bytes; %s kept)\n", hist.Path, res.Bytes, plural(res.Records, "run", "runs"))
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// runner says where this run measured from: the GitHub Actions runner's
// variables when there are any, else this machine's OS and arch.
// LATGATE_RUNNER_LABELS and LATGATE_REGION let a workflow add what Actions
// does not expose (e.g. labels: ${{ join(matrix.labels) }}).
func (a *App) runner() history.Runner {
	r := history.Runner{
		OS:          a.Getenv("RUNNER_OS"),
		Arch:        a.Getenv("RUNNER_ARCH"),
		Name:        a.Getenv("RUNNER_NAME"),
		Environment: a.Getenv("RUNNER_ENVIRONMENT"),
		Labels:      a.Getenv("LATGATE_RUNNER_LABELS"),
		Region:      a.Getenv("LATGATE_REGION"),
	}
	if r.OS == "" {
		r.OS = runtime.GOOS
	}
	if r.Arch == "" {
		r.Arch = runtime.GOARCH
	}
	return r
}

// sanitizedRunner is the runner as a baseline and a run's provenance store
// it: every field through the sanitiser and history.Clean.
func (a *App) sanitizedRunner(cfg *config.Config) history.Runner {
	r, san := a.runner(), a.sanitizer(cfg)
	for _, f := range []*string{&r.OS, &r.Arch, &r.Name, &r.Labels, &r.Region, &r.Environment} {
		*f = history.Clean(san(*f))
	}
	return r
}

// sanitizer is the one place history text passes through the project's
// sanitiser: every credential form this config sends is redacted, and the
// text made one printable line of bounded length.
func (a *App) sanitizer(cfg *config.Config) func(string) string {
	r := sanitize.NewRedactor()
	for _, t := range cfg.Targets {
		for _, name := range measure.SecretEnv(t) { // the key and an app's secret headers
			r.Add(sanitize.Credentials(a.Getenv(name), t.BaseURL)...)
		}
	}
	return func(s string) string { return sanitize.Field(r, s, 400) }
}
