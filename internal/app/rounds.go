package app

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/latgate/latgate/internal/report"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/measure"
	"github.com/latgate/latgate/pkg/results"
)

// measureSequential is check's measurement: run.requests per prompt, then,
// while compare.NextRound finds checks still undecided and run.max_requests
// allows, another round for the prompts that hold them, compared again at
// the next look. The decision is compare's; this is only the loop. It
// returns the results of every round together and the last comparison
// (empty when the measurement failed). noise is the day-to-day noise
// learned from the history (nil: the gate's day_to_day).
func (a *App) measureSequential(ctx context.Context, cfg *config.Config, base compare.Side, noise compare.Noise, quiet bool) (f *results.File, rep compare.Report, err error) {
	eps, stop, err := a.endpoints(ctx, cfg)
	if err != nil {
		return nil, compare.Report{}, err
	}
	defer stopped(stop, &err) // one simulator (and server) for every round: its schedule runs on
	withLimits(eps, base, cfg.Run.Timeout)
	f, err = a.measureOn(ctx, cfg, eps, cfg.Prompts, cfg.Run, quiet, measureHow{})
	if err == nil {
		err = budget(f)
	}
	if err != nil {
		return f, compare.Report{}, err
	}
	design := designOf(cfg.Run, f)
	rep, err = a.rounds(design, quiet, func() compare.Report {
		return compare.CompareWith(base, side(f.Run, f.Targets), cfg.Gate, compare.Setup{Design: design, Noise: noise, Rules: a.Rules})
	}, func(r compare.Round) error {
		for _, ep := range eps {
			// Each prompt is topped up to its own next look: prompts that
			// need the same number of requests are measured together.
			for _, part := range roundParts(f, ep.Target, r.Requests[compare.TargetID{Name: ep.Target.Name, Region: ep.Target.Region}]) {
				prompts := slices.DeleteFunc(slices.Clone(cfg.Prompts), func(p config.Prompt) bool { return !slices.Contains(part.ids, p.ID) })
				run := cfg.Run
				run.Requests = part.more
				g, err := a.measureOn(ctx, cfg, []measure.Endpoint{ep}, prompts, run, quiet, measureHow{before: f})
				if g != nil {
					results.AppendRound(f, g)
				}
				if err == nil {
					err = budget(f)
				}
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
	return f, rep, err
}

// designOf is the sequential design of run: its looks, and, when there is
// more than one, the cap recorded in every results file it fills (fs).
func designOf(run config.Run, fs ...*results.File) compare.Design {
	design := compare.NewDesign(run.Requests, run.Cap())
	if design.Sequential() {
		for _, f := range fs {
			f.Run.MaxRequests = design.Last()
		}
	}
	return design
}

// rounds is the loop check and ab share: compare at the look (compareAt);
// while compare.NextRound finds checks undecided that more requests could
// decide, say why on stderr and measure the round (measureRound), then
// compare again. The decisions are compare's; the loop only measures. An
// error of measureRound ends it with an empty report.
//
// A round asked again after it was measured ends the loop too. NextRound
// plans from the requests measured (Report.Measured), a cold head left out
// of the comparison included, so that should not happen; the guard keeps
// a round that measured nothing new (an endpoint that fails every request
// of it within the budget) from being asked for ever.
func (a *App) rounds(design compare.Design, quiet bool, compareAt func() compare.Report, measureRound func(compare.Round) error) (compare.Report, error) {
	var last *compare.Round
	for {
		rep := compareAt()
		r, more := compare.NextRound(rep, design)
		if !more || last != nil && reflect.DeepEqual(*last, r) {
			return rep, nil
		}
		last = &r
		if !quiet {
			a.Out.Note("%s", roundLine(r))
		}
		if err := measureRound(r); err != nil {
			return compare.Report{}, err
		}
	}
}

// requestsOf returns the fewest requests (samples and failures) any of the
// prompts ids of target t has in f (ab's paired rounds measure both sides'
// prompts together, from the least measured).
func requestsOf(f *results.File, t config.Target, ids []string) int {
	n := -1
	for _, rt := range f.Targets {
		if rt.Name != t.Name || rt.Region != t.Region {
			continue
		}
		for _, p := range rt.Prompts {
			if slices.Contains(ids, p.ID) && (n < 0 || p.Requests < n) {
				n = p.Requests
			}
		}
	}
	return max(n, 0)
}

// roundPart is a set of prompts of one target that each need more
// requests (samples and failures) to reach their next look.
type roundPart struct {
	ids  []string
	more int
}

// roundParts groups the prompts of target t that the round extends (to:
// each prompt's cumulative requests at its next look) by how many more
// requests each needs, fewest first.
func roundParts(f *results.File, t config.Target, to map[string]int) []roundPart {
	need := map[int][]string{}
	for _, rt := range f.Targets {
		if rt.Name != t.Name || rt.Region != t.Region {
			continue
		}
		for _, p := range rt.Prompts {
			if n, ok := to[p.ID]; ok && n > p.Requests {
				need[n-p.Requests] = append(need[n-p.Requests], p.ID)
			}
		}
	}
	var out []roundPart
	for more, ids := range need {
		out = append(out, roundPart{ids: ids, more: more})
	}
	slices.SortFunc(out, func(a, b roundPart) int { return a.more - b.more })
	return out
}

// roundLine says why check measures again, for the progress on stderr:
//
//	2 checks undecided: greeting ttft p90 +12% [-3%, +31%] vs +35%, ...; round 2 of 4: 90 requests per prompt for greeting, summarize
func roundLine(r compare.Round) string {
	var why []string
	for i, c := range r.Why {
		if i == 3 {
			why = append(why, fmt.Sprintf("and %d more", len(r.Why)-3))
			break
		}
		who := c.Prompt
		if who == "" {
			who = "all prompts"
		}
		why = append(why, fmt.Sprintf("%s %s %s %s vs %s", who, c.Metric, c.Stat, report.ChangePhrase(c), report.Allowed(c)))
	}
	noun := "checks"
	if len(r.Why) == 1 {
		noun = "check"
	}
	var prompts []string
	for id, ps := range r.Prompts {
		for _, p := range ps {
			label := p
			if len(r.Prompts) > 1 {
				label = id.Name + "/" + p
			}
			prompts = append(prompts, label)
		}
	}
	slices.Sort(prompts)
	return fmt.Sprintf("%d %s undecided: %s; round %d of %d: %d requests per prompt for %s",
		len(r.Why), noun, strings.Join(why, ", "), r.Look+1, r.Looks, r.To, strings.Join(prompts, ", "))
}
