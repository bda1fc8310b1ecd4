package cli

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/latgate/latgate/pkg/baseline"
	"github.com/latgate/latgate/pkg/compare"
)

// admit decides whether cur may be gated against base. By default a changed
// config is gated and labelled (compare.Pair), and only two runs with no
// target × prompt in common are refused; with --strict-baseline any
// difference is refused, as before latgate gated changes.
func admit(basePath string, base, cur compare.Side, strict bool) error {
	ms := compare.Compatible(base, cur)
	if len(ms) == 0 {
		return nil
	}
	if strict {
		return mismatchError(fmt.Sprintf("cannot compare with the baseline %s (--strict-baseline: any change is refused; without it, latgate gates the change and labels it): it measured something else:", basePath), ms)
	}
	if compare.Pair(base, cur).Comparable() {
		return nil
	}
	return mismatchError(fmt.Sprintf("cannot compare with the baseline %s: it has no target and prompt in common with this run, so nothing can be gated; bless a baseline for this config (latgate bless). What differs:", basePath), ms)
}

// defaultResultsPath is where check writes the results of a run without a
// baseline when --out is not given: beside the baseline, so that
// `latgate bless --from` can make them the first baseline.
func defaultResultsPath(basePath string) string {
	return filepath.Join(filepath.Dir(basePath), "latgate.results.json")
}

// noBaselineNotice is the warning of a check without a baseline.
func noBaselineNotice(basePath, resultsPath, configPath string) string {
	return fmt.Sprintf("no baseline: nothing was gated. There is no baseline at %s, so this run was measured and reported but "+
		"compared with nothing (exit 0; --require-baseline makes this exit 2). The results are in %s: make them the baseline "+
		"with `latgate bless --config %s --from %s`, review and commit it.", basePath, resultsPath, configPath, resultsPath)
}

// limitsOnlyNotice is the warning of a check without a baseline whose gate
// has absolute limits: only those were gated.
func limitsOnlyNotice(basePath, resultsPath, configPath string) string {
	return fmt.Sprintf("no baseline: only the absolute limits (max) were gated. There is no baseline at %s, so the relative checks "+
		"compared with nothing. The results are in %s: make them the baseline with `latgate bless --config %s --from %s`, "+
		"review and commit it.", basePath, resultsPath, configPath, resultsPath)
}

// errNoBaseline reports whether err is a baseline file that does not exist.
func errNoBaseline(err error) bool { return errors.Is(err, baseline.ErrNotFound) }
