package trend

import (
	"time"

	"github.com/latgate/latgate/internal/history"
	"github.com/latgate/latgate/pkg/baseline"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

// SpecFor is the series a config's gate follows: one per target × prompt ×
// gated check, each with the tolerance and floor the gate applies (at least
// the timing resolution), and the baseline's value when base (nil: none)
// measured the same prompt text. Absolute limits and rates (tokens_per_s:
// higher is better, while change points read larger as worse) are not
// trended.
func SpecFor(cfg *config.Config, base *baseline.File) Spec {
	var spec Spec
	if base != nil {
		spec.BlessedAt = base.BlessedAt
	}
	for _, t := range cfg.Targets {
		bt := baseTarget(base, t)
		for _, p := range cfg.Prompts {
			bp := basePrompt(bt, p)
			for _, c := range cfg.Gate.Checks {
				if c.MaxOnly {
					continue // an absolute limit, not a change to trend against
				}
				stat, err := stats.ParseStat(c.Stat)
				if err != nil {
					continue // config.Load refuses such a check
				}
				tol := compare.Resolvable(c.Metric, cfg.Gate.ToleranceFor(p.ID, c))
				ss := SeriesSpec{
					Target: t.Name, Region: t.Region, Prompt: p.ID, PromptHash: p.Hash,
					Metric: c.Metric, Stat: stat,
					Tolerance: tol.Rel, FloorMS: float64(tol.Floor) / float64(time.Millisecond),
				}
				if results.HigherIsBetter(c.Metric) {
					ss.FloorMS = tol.FloorRate // a rate's floor is in tokens/s
				}
				if bp != nil {
					// The baseline's value as a history record computes it:
					// from its samples, for every statistic (p90 included).
					if st, ok := history.Summarize(bp.Samples, c.Metric); ok {
						ss.Baseline, _ = st.Get(stat)
					}
				}
				spec.Series = append(spec.Series, ss)
			}
		}
	}
	return spec
}

// baseTarget is the baseline's target t, nil when it has none.
func baseTarget(base *baseline.File, t config.Target) *results.Target {
	if base == nil {
		return nil
	}
	var bt *results.Target
	for i := range base.Targets {
		if base.Targets[i].Name == t.Name && base.Targets[i].Region == t.Region {
			bt = &base.Targets[i]
		}
	}
	return bt
}

// basePrompt is bt's prompt p when it measured the same text, else nil.
func basePrompt(bt *results.Target, p config.Prompt) *results.Prompt {
	if bt == nil {
		return nil
	}
	var bp *results.Prompt
	for i := range bt.Prompts {
		if bt.Prompts[i].ID == p.ID && (bt.Prompts[i].Hash == "" || bt.Prompts[i].Hash == p.Hash) {
			bp = &bt.Prompts[i]
		}
	}
	return bp
}
