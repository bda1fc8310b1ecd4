package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/latgate/latgate/internal/report"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/measure"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/stats"
)

// SweepRequest is `latgate sweep`: measure the config's targets at each of
// Rates in turn and find each one's knee.
type SweepRequest struct {
	Run
	// Rates are requests per second per target, ascending.
	Rates []float64
	// Duration, when set, is each step's length (requests = rate ×
	// duration, spread over the prompts); else run.requests a prompt.
	Duration time.Duration
	// Goal is the share of requests that must meet their SLO at a rate
	// below the knee (default DefaultSweepGoal).
	Goal    float64
	Out     string
	History History
}

// DefaultSweepGoal is the goodput a rate must keep to be below the knee.
const DefaultSweepGoal = 0.95

// sweepLevel is the confidence of the knee's interval.
const sweepLevel = 0.95

// pastKnee is how far below the goal (in share) every target's goodput
// must be for the sweep to stop: the higher rates would only queue more.
const pastKnee = 0.10

// Sweep measures each rate in turn, prints latency and goodput per rate
// and each target's knee, and writes the sweep file. It stops after a rate
// at which every target with an SLO was well past its knee (pastKnee), and
// on an interruption (the file then says partial).
func (a *App) Sweep(ctx context.Context, req SweepRequest) error {
	cfg, err := a.loadConfig(req.Run)
	if err != nil {
		return err
	}
	if err := sweepRates(req.Rates); err != nil {
		return UsageError(err)
	}
	goal := cmp.Or(req.Goal, DefaultSweepGoal)
	if !(goal > 0 && goal <= 1) {
		return UsageError(fmt.Errorf("--goal must be a share above 0%% and at most 100%%, got %g", goal))
	}
	if err := req.History.validate(); err != nil {
		return err
	}
	sink := a.Out.Sink()
	sink.InputConfig(cfg)
	out := sink.Output("--out", req.Out)
	hist := sink.Output("--history", orConfig(req.History.Path, cfg.History))
	if err := sink.Check(); err != nil {
		return UsageError(err)
	}
	if !slices.ContainsFunc(cfg.Targets, func(t config.Target) bool { return hasSLO(t, cfg.Prompts) }) {
		a.Out.Warn("no target has an slo: (e.g. slo: {ttft: 500ms} on a target): the sweep measures latency at each rate, and there is no knee to find")
	}
	sw := &results.Sweep{Schema: results.SweepSchema, Version: a.Version, StartedAt: a.Now().UTC().Truncate(time.Millisecond),
		ConfigPath: cfg.Path, ConfigHash: cfg.Hash, Goal: goal, Level: sweepLevel,
		Arrival: cmp.Or(cfg.Run.Arrival, config.ArrivalPoisson), Rates: req.Rates}
	for _, t := range cfg.Targets {
		sw.Targets = append(sw.Targets, results.SweepTarget{Name: t.Name, Region: t.Region, Model: t.Model})
	}
	eps, stop, err := a.endpoints(ctx, cfg)
	if err != nil {
		return err
	}
	defer stopped(stop, &err)
	var merr error
	for _, rate := range req.Rates {
		run := sweepRun(cfg, rate, req.Duration)
		if !req.Quiet {
			a.Out.Note("sweep: %s requests/s (%d requests a prompt)", fmtRate(rate), run.Requests)
		}
		f, err := a.measureOn(ctx, cfg, eps, cfg.Prompts, run, req.Quiet, measureHow{})
		if f != nil {
			for i := range sw.Targets {
				if j := slices.IndexFunc(f.Targets, func(t results.Target) bool { return t.Name == sw.Targets[i].Name && t.Region == sw.Targets[i].Region }); j >= 0 {
					sw.Targets[i].Steps = append(sw.Targets[i].Steps, stepOf(f.Targets[j], rate))
				}
			}
		}
		if errors.Is(err, measure.ErrInterrupted) && ctx.Err() != nil || f == nil {
			sw.Partial, merr = true, err
			break
		}
		// A step that gave up (its requests failing) is past the knee:
		// its failures are requests that met no SLO.
		if past(sw, goal) {
			if !req.Quiet && rate != req.Rates[len(req.Rates)-1] {
				a.Out.Note("sweep: stopped at %s requests/s: every target's goodput is more than %.0f points below the goal, and a higher rate only queues more", fmtRate(rate), 100*pastKnee)
			}
			break
		}
	}
	sw.FinishedAt = a.Now().UTC().Truncate(time.Millisecond)
	for i := range sw.Targets {
		sw.Targets[i].Knee = kneeOf(sw.Targets[i], goal)
	}
	if err := report.Sweep(a.Out.Stdout, sw); err != nil {
		return err
	}
	if werr := writeJSON(out, sw); werr != nil {
		return errors.Join(merr, werr)
	}
	if out != nil {
		a.Out.Note("sweep written to %s", out.Path)
	}
	if merr != nil {
		return merr
	}
	return a.recordSweep(ctx, hist, req.History.Keep, cfg, sw)
}

// sweepRates checks the rates of a sweep: at least one, each a rate run.rate
// accepts, ascending without repeats.
func sweepRates(rates []float64) error {
	if len(rates) == 0 {
		return fmt.Errorf("--rates is required: the arrival rates to measure at, requests per second per target, ascending (e.g. --rates 2,4,8,16)")
	}
	for i, r := range rates {
		if !(r >= 0.01 && r <= config.MaxRate) {
			return fmt.Errorf("--rates: %g is not a rate between 0.01 and %d requests per second", r, config.MaxRate)
		}
		if i > 0 && r <= rates[i-1] {
			return fmt.Errorf("--rates: %g after %g: give the rates ascending, each once (the sweep stops past the knee)", r, rates[i-1])
		}
	}
	return nil
}

// sweepRun is cfg's run settings at rate: an arrival-rate run, its
// requests a prompt from duration when set.
func sweepRun(cfg *config.Config, rate float64, duration time.Duration) config.Run {
	run := cfg.Run
	run.Rate, run.Concurrency = rate, 1
	run.Arrival = cmp.Or(run.Arrival, config.ArrivalPoisson)
	run.MaxInFlight = cmp.Or(run.MaxInFlight, 256)
	if duration > 0 && len(cfg.Prompts) > 0 {
		run.Requests = max(1, int(math.Ceil(rate*duration.Seconds()/float64(len(cfg.Prompts)))))
	}
	return run
}

// stepOf is target t measured at rate, as a sweep step.
func stepOf(t results.Target, rate float64) results.SweepStep {
	s := results.SweepStep{Rate: rate, Requests: t.Requests, Errors: t.Errors, Sends: t.Sends}
	for _, p := range t.Prompts {
		if p.SLO == nil || p.SLO.Empty() {
			continue
		}
		s.WithSLO += p.Requests
		for i := range p.Samples {
			if p.SLO.Met(&p.Samples[i]) {
				s.Met++
			}
		}
	}
	if s.WithSLO > 0 {
		s.Goodput = float64(s.Met) / float64(s.WithSLO)
		sent := rate
		if t.Sends != nil && t.Sends.SentRate > 0 {
			sent = t.Sends.SentRate
		}
		s.GoodputPerS = s.Goodput * sent
	}
	m := t.Overall.Metrics
	if m.TTFT != nil {
		s.TTFTP50, s.TTFTP95 = m.TTFT.P50, m.TTFT.P95
	}
	if m.ITL != nil {
		s.ITLP95 = m.ITL.P95
	}
	if m.Total != nil {
		s.TotalP95 = m.Total.P95
	}
	return s
}

// past reports whether every target with an SLO was, at the sweep's last
// step, more than pastKnee below the goal (false when none has one).
func past(sw *results.Sweep, goal float64) bool {
	any := false
	for _, t := range sw.Targets {
		if len(t.Steps) == 0 {
			continue
		}
		s := t.Steps[len(t.Steps)-1]
		if s.WithSLO == 0 {
			continue
		}
		if s.Goodput >= goal-pastKnee {
			return false
		}
		any = true
	}
	return any
}

// kneeOf is t's knee, nil when no prompt of its target has an SLO.
func kneeOf(t results.SweepTarget, goal float64) *results.SweepKnee {
	var steps []stats.Step
	for _, s := range t.Steps {
		if s.WithSLO > 0 {
			steps = append(steps, stats.Step{Rate: s.Rate, Met: s.Met, N: s.WithSLO})
		}
	}
	if len(steps) == 0 {
		return nil
	}
	return results.KneeFrom(stats.KneeOf(steps, goal, sweepLevel), steps[len(steps)-1].Rate)
}

// hasSLO reports whether target t has an SLO on any of prompts.
func hasSLO(t config.Target, prompts []config.Prompt) bool {
	return slices.ContainsFunc(prompts, func(p config.Prompt) bool { return config.SLOFor(t, p) != nil })
}

func fmtRate(r float64) string { return fmt.Sprintf("%g", r) }
