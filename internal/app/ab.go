package app

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/latgate/latgate/internal/cost"

	"github.com/latgate/latgate/internal/export"
	"github.com/latgate/latgate/internal/publish"
	"github.com/latgate/latgate/internal/report"
	"github.com/latgate/latgate/internal/view"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/measure"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/sim"
)

// ABRequest is `latgate ab`: measure a base and a candidate config now,
// interleaved, and gate the candidate against the base.
type ABRequest struct {
	// Run holds the overrides of the run settings (--requests, …), which
	// apply to both sides; its ConfigPath and BaseURL are not used.
	Run
	Gate
	// Base and Candidate are the two configs (the same file for two
	// targets of one config).
	Base, Candidate string
	// GateConfig is --config: the config whose gate decides ("": the
	// candidate's).
	GateConfig string
	// Targets is --targets BASE,CANDIDATE: the one target of each side to
	// compare (both empty: every target, paired by position).
	Targets [2]string
	// Out is where both sides' results and the comparison go ("": nowhere).
	Out string
	// SkipWithoutKey passes without measuring when a key is empty, as check.
	SkipWithoutKey bool
	// IfChanged measures only when the sides differ in what they measure
	// (a target or a prompt: ABChanges), else passes with verdict=unchanged
	// (--if-changed: the pull-request flow runs ab beside check only for a
	// change of the config's targets or prompts).
	IfChanged bool
	// Schedule and BlockFlag are --schedule and --block ("" and 0: the
	// candidate config's ab section).
	Schedule  string
	BlockFlag int
	// Block, when not 0, measures in ABBA blocks of Block rounds a side
	// instead of interleaving request by request: resolved by AB from the
	// flags and the config.
	Block int
}

// UnchangedVerdict is what `ab --if-changed` writes as its verdict when
// the two configs measure the same targets and prompts.
const UnchangedVerdict = view.UnchangedVerdict

// abPlan is what an A/B run measures: the configs, the target pairs and
// the prompts both sides have, in the candidate's order.
type abPlan struct {
	cfg     [2]*config.Config
	targets [2][]config.Target
	// unpaired are the targets only one side has (by position).
	unpaired []string
	prompts  [2][]config.Prompt
	notes    []string // what is not compared, and why
}

// AB is `latgate ab`: load both configs, pair their targets by position
// and their prompts by id, measure both sides interleaved in blocks
// (measure.RunAB) in sequential rounds while checks are undecided, gate
// the candidate against the base (compare.CompareAB, the gate of the
// candidate or --config), and publish the verdict as check does.
func (a *App) AB(ctx context.Context, req ABRequest) (err error) {
	sink := a.sink(req.Gate)
	sink.Input("BASE", req.Base)
	sink.Input("CANDIDATE", req.Candidate)
	sink.Input("--config", req.GateConfig)
	out := sink.Output("--out", req.Out)
	defer func() { a.publishFailed(sink, err) }()
	pl, err := a.planAB(req)
	if err != nil {
		return err
	}
	gate, source := pl.cfg[1].Gate, req.Candidate
	if req.GateConfig != "" {
		g, err := config.Load(req.GateConfig, ConfigOptions(a.Getenv))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return UsageError(fmt.Errorf("no config at %s (--config, the gate settings): pass an existing latgate.yaml, or leave --config out for the candidate's gate", req.GateConfig))
		case err != nil:
			return UsageError(err)
		}
		gate, source = g.Gate, req.GateConfig
	}
	if req.IfChanged {
		changes := abChanges(pl)
		if len(changes) == 0 {
			return a.publishUnchanged(sink, pl)
		}
		a.Out.Note("%s and %s measure different targets or prompts, so ab measures both: %s", pl.cfg[0].Path, pl.cfg[1].Path, strings.Join(changes, "; "))
	}
	if req.SkipWithoutKey {
		for _, cfg := range pl.cfg {
			if skip, err := a.skipWithoutKey(sink, cfg); skip {
				return err
			}
		}
	}
	for _, cfg := range pl.cfg {
		sink.InputConfig(cfg)
	}
	if err := sink.Check(); err != nil {
		return UsageError(err)
	}
	symmetric := gate
	symmetric.OkConfidence = 0 // ab holds both ends at the gate's confidence (compare.CompareAB)
	a.Out.Note("gate settings from %s: %s", source, report.DescribeGate(symmetric))
	for _, n := range pl.notes {
		a.Out.Note("%s", n)
	}
	run := pl.cfg[1].Run
	if req.Block, err = abBlock(req, pl.cfg[1]); err != nil {
		return err
	}
	files, rep, merr := a.measureAB(ctx, pl, run, gate, req.Quiet, req.Block)
	if files[0] == nil {
		return merr
	}
	a.exportOTLP(ctx, req.Run, export.Side{Name: "base", File: files[0]}, export.Side{Name: "candidate", File: files[1]})
	for k, f := range files {
		if k > 0 {
			fmt.Fprintln(a.Out.Stdout)
		}
		fmt.Fprintf(a.Out.Stdout, "%s: %s\n", []string{"base", "candidate"}[k], pl.cfg[k].Path)
		if err := report.Measure(a.Out.Stdout, f); err != nil {
			return err
		}
	}
	if merr != nil {
		if out != nil && writeAB(out, compare.RecordedAB{Schema: compare.SchemaAB, Base: files[0], Candidate: files[1]}) == nil {
			a.Out.Note("partial results written to %s", out.Path)
		}
		return merr
	}
	fmt.Fprintln(a.Out.Stdout)
	rep.Warnings = append(rep.Warnings, pl.notes...)
	rep.Warnings = append(rep.Warnings, report.InterferenceWarnings(compare.Interference(files[0], files[1]), req.Block)...)
	outErr := writeAB(out, compare.RecordedAB{Schema: compare.SchemaAB, Base: files[0], Candidate: files[1], Comparison: &rep})
	info := report.AB{Base: pl.cfg[0].Path, Candidate: pl.cfg[1].Path, Blocks: maxRequests(files[1]), Seed: run.Seed, Chunk: req.Block}
	strict := strictGate(req.Strict, gate)
	opts := report.Options{Strict: strict, OnInconclusive: gate.OnInconclusive, BaselinePath: pl.cfg[0].Path, Results: pl.cfg[1].Path, Wall: report.WallOf(files[1]),
		Rerun: abCommandLine(req, pl), Bless: "latgate bless --config " + shellQuote(pl.cfg[1].Path), Cost: abBill(files, pl.cfg), Wide: req.Wide}
	pubErr := sink.Publish(view.OfAB(rep, info, opts, locator(pl.cfg[1])).WithExport(&rep,
		export.Side{Name: "base", File: files[0]}, export.Side{Name: "candidate", File: files[1]}))
	return gateOutcome(rep, strict, outErr, pubErr)
}

// planAB loads the two configs (once when they are one file) and pairs
// their targets and prompts.
func (a *App) planAB(req ABRequest) (abPlan, error) {
	var pl abPlan
	for k, path := range []string{req.Base, req.Candidate} {
		if k == 1 && path == req.Base {
			pl.cfg[1] = pl.cfg[0]
			break
		}
		r := req.Run
		r.ConfigPath, r.BaseURL = path, ""
		cfg, err := a.loadConfig(r)
		if err != nil {
			return pl, err
		}
		pl.cfg[k] = cfg
	}
	for k, cfg := range pl.cfg {
		ts := cfg.Targets
		if want := req.Targets[k]; want != "" {
			i := slices.IndexFunc(ts, func(t config.Target) bool { return t.Name == want || results.Label(t.Name, t.Region) == want })
			if i < 0 {
				var have []string
				for _, t := range ts {
					have = append(have, results.Label(t.Name, t.Region))
				}
				return pl, UsageError(fmt.Errorf("--targets: %s has no target %q (it has %s)", cfg.Path, want, strings.Join(have, ", ")))
			}
			ts = ts[i : i+1]
		}
		pl.targets[k] = ts
	}
	if pl.cfg[0] == pl.cfg[1] && req.Targets[0] == "" {
		return pl, UsageError(fmt.Errorf("ab of one config compares two of its targets: pass --targets BASE,CANDIDATE (e.g. --targets %s,other), or two configs", firstTarget(pl.cfg[0])))
	}
	if pl.cfg[0] == pl.cfg[1] && req.Targets[0] == req.Targets[1] {
		return pl, UsageError(fmt.Errorf("--targets %s,%s names one target twice: an A/B run compares two", req.Targets[0], req.Targets[1]))
	}
	n := min(len(pl.targets[0]), len(pl.targets[1]))
	for k, ts := range pl.targets {
		for _, t := range ts[n:] {
			pl.notes = append(pl.notes, fmt.Sprintf("target %s is only in %s (targets are paired by position): not measured, not compared", results.Label(t.Name, t.Region), pl.cfg[k].Path))
			pl.unpaired = append(pl.unpaired, fmt.Sprintf("target %s: only in %s", results.Label(t.Name, t.Region), pl.cfg[k].Path))
		}
		pl.targets[k] = ts[:n]
	}
	base := map[string]config.Prompt{}
	for _, p := range pl.cfg[0].Prompts {
		base[p.ID] = p
	}
	for _, p := range pl.cfg[1].Prompts {
		if b, ok := base[p.ID]; ok {
			pl.prompts[0] = append(pl.prompts[0], b)
			pl.prompts[1] = append(pl.prompts[1], p)
			delete(base, p.ID)
			continue
		}
		pl.notes = append(pl.notes, fmt.Sprintf("prompt %s is only in %s: not measured, not compared", p.ID, pl.cfg[1].Path))
	}
	for _, p := range pl.cfg[0].Prompts {
		if _, ok := base[p.ID]; ok {
			pl.notes = append(pl.notes, fmt.Sprintf("prompt %s is only in %s: not measured, not compared", p.ID, pl.cfg[0].Path))
		}
	}
	if n == 0 || len(pl.prompts[0]) == 0 {
		return pl, UsageError(fmt.Errorf("%s and %s have no target and prompt in common (targets pair by position, prompts by id): nothing to compare", pl.cfg[0].Path, pl.cfg[1].Path))
	}
	if d := runDiffers(pl.cfg[0].Run, pl.cfg[1].Run); d != "" && pl.cfg[0] != pl.cfg[1] {
		pl.notes = append(pl.notes, fmt.Sprintf("both sides are measured with the candidate's run settings; %s's differ (%s)", pl.cfg[0].Path, d))
	}
	return pl, nil
}

func firstTarget(cfg *config.Config) string {
	if len(cfg.Targets) == 0 {
		return "a"
	}
	return cfg.Targets[0].Name
}

// abChanges lists what differs between the sides in what they measure:
// a paired target's name, model, endpoint or request parameters, a
// prompt's text, a prompt or target only one side has. Run and gate
// settings are not counted: they change how, not what, is measured.
func abChanges(pl abPlan) []string {
	out := slices.Clone(pl.unpaired)
	var bs, cs compare.Side
	for i, bt := range pl.targets[0] {
		ct := pl.targets[1][i]
		b, c := measure.Describe(bt, pl.cfg[0].Prompts), measure.Describe(ct, pl.cfg[1].Prompts)
		if b.Label() != c.Label() {
			out = append(out, fmt.Sprintf("target %s → %s", b.Label(), c.Label()))
		}
		b.Name, b.Region = c.Name, c.Region
		bs.Targets, cs.Targets = append(bs.Targets, b), append(cs.Targets, c)
	}
	for _, ch := range compare.Pair(bs, cs).Changes {
		what := report.ChangeLabel(ch)
		switch ch.Kind {
		case compare.ChangeNew:
			what = "only in " + pl.cfg[1].Path
		case compare.ChangeRemoved:
			what = "only in " + pl.cfg[0].Path
		case compare.ChangeEdited:
			what = "its text differs"
		}
		out = append(out, report.ChangeWhere(ch)+": "+what)
	}
	return out
}

// publishUnchanged reports an `ab --if-changed` that found nothing to
// compare: stdout, the job summary and verdict=unchanged; no JUnit or
// Markdown report, so nothing is published as a check run or comment.
func (a *App) publishUnchanged(sink *publish.Sink, pl abPlan) error {
	return sink.Publish(view.Unchanged(pl.cfg[0].Path, pl.cfg[1].Path))
}

// runDiffers names the run settings in which base differs from cand.
func runDiffers(base, cand config.Run) string {
	var out []string
	add := func(name string, b, c any) {
		if b != c {
			out = append(out, fmt.Sprintf("%s %v, candidate %v", name, b, c))
		}
	}
	add("requests", base.Requests, cand.Requests)
	add("max_requests", base.Cap(), cand.Cap())
	add("warmup", base.Warmup, cand.Warmup)
	add("concurrency", base.Concurrency, cand.Concurrency)
	add("timeout", base.Timeout, cand.Timeout)
	add("rate", base.Rate, cand.Rate)
	return strings.Join(out, "; ")
}

// measureAB measures both sides interleaved: run.requests blocks per
// prompt, then, while compare.NextRound finds checks undecided and
// run.max_requests allows, another round for the prompts that hold them.
// The decision is compare's; the loop is check's (rounds), with ab's
// round: both sides' blocks of the round's prompts. It returns both sides' results (nil when nothing was
// measured) and the last comparison.
func (a *App) measureAB(ctx context.Context, pl abPlan, run config.Run, gate config.Gate, quiet bool, block int) (files [2]*results.File, rep compare.Report, err error) {
	eps, stop, err := a.startAB(ctx, pl)
	if err != nil {
		return files, compare.Report{}, err
	}
	defer stopped(stop, &err)
	opts := func(pairs []int, prompts [2][]config.Prompt, run config.Run) measure.ABOptions {
		o := measure.ABOptions{Run: run, Version: a.Version, Block: block}
		sides := [2]*measure.ABSide{&o.Base, &o.Candidate}
		for k, s := range sides {
			for _, i := range pairs {
				s.Endpoints = append(s.Endpoints, eps[k][i])
			}
			s.Prompts, s.ConfigPath, s.ConfigHash, s.Before = prompts[k], pl.cfg[k].Path, pl.cfg[k].Hash, files[k]
		}
		return o
	}
	all := make([]int, len(eps[0]))
	for i := range all {
		all[i] = i
	}
	b, c, err := a.runAB(ctx, opts(all, pl.prompts, run), quiet)
	files = [2]*results.File{b, c}
	if err == nil {
		err = errors.Join(budget(b), budget(c))
	}
	if err != nil || b == nil {
		return files, compare.Report{}, err
	}
	design := designOf(run, b, c)
	rep, err = a.rounds(design, quiet, func() compare.Report {
		return compare.CompareAB(side(b.Run, b.Targets), side(c.Run, c.Targets), gate, design)
	}, func(r compare.Round) error {
		for i, t := range pl.targets[1] {
			ids := r.Prompts[compare.TargetID{Name: t.Name, Region: t.Region}]
			if len(ids) == 0 {
				continue
			}
			var prompts [2][]config.Prompt
			for k := range prompts {
				prompts[k] = slices.DeleteFunc(slices.Clone(pl.prompts[k]), func(p config.Prompt) bool { return !slices.Contains(ids, p.ID) })
			}
			more := run
			more.Requests = r.To - requestsOf(c, t, ids) // both sides' blocks, from the least measured
			if more.Requests <= 0 {
				continue
			}
			nb, nc, err := a.runAB(ctx, opts([]int{i}, prompts, more), quiet)
			if nb != nil {
				results.AppendRound(b, nb)
				results.AppendRound(c, nc)
			}
			if err == nil {
				err = errors.Join(budget(b), budget(c))
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	return files, rep, err
}

// runAB runs one interleaved measurement with progress.
func (a *App) runAB(ctx context.Context, o measure.ABOptions, quiet bool) (*results.File, *results.File, error) {
	if !quiet {
		progress := a.Out.Progress(a.Now)
		defer progress.Finish()
		o.Observer = progress
	}
	b, c, err := a.MeasureAB(ctx, o)
	if err != nil {
		return b, c, abMeasurementErr(err, o.Base.ConfigPath, o.Candidate.ConfigPath)
	}
	return b, c, nil
}

// startAB resolves both sides' targets in one call to Start, so that a
// simulator spec both sides name is one simulator serving both (one
// endpoint, as two configs of one provider share it). A simulator only the
// candidate names gets a seed of its own unless its spec sets one: two
// simulators with one seed draw the same delays for the same request
// number, which would pair the sides' noise perfectly, an artefact no real
// endpoint has. The endpoints keep their targets' base_url as configured.
func (a *App) startAB(ctx context.Context, pl abPlan) (eps [2][]measure.Endpoint, stop func() error, err error) {
	merged := *pl.cfg[1]
	merged.Targets = nil
	baseSpecs := map[string]bool{}
	for _, t := range pl.targets[0] {
		if t.IsSim() {
			baseSpecs[t.SimSpec()] = true
		}
		merged.Targets = append(merged.Targets, t)
	}
	for _, t := range pl.targets[1] {
		if t.IsSim() && !baseSpecs[t.SimSpec()] {
			t.BaseURL = "sim:" + reseeded(t.SimSpec())
		}
		merged.Targets = append(merged.Targets, t)
	}
	all, stop, err := a.endpoints(ctx, &merged)
	if err != nil {
		return eps, stop, err
	}
	n := len(pl.targets[0])
	eps[0], eps[1] = all[:n], all[n:]
	for i := range eps[1] {
		eps[1][i].Target.BaseURL = pl.targets[1][i].BaseURL
	}
	return eps, stop, nil
}

// reseeded is a simulator spec with a seed of its own (from the spec's
// text), unless it sets one.
func reseeded(spec string) string {
	name, query, _ := strings.Cut(spec, "?")
	for kv := range strings.SplitSeq(query, "&") {
		if k, _, _ := strings.Cut(kv, "="); k == "seed" {
			return spec
		}
	}
	if _, err := sim.ParseSpec(spec); err != nil {
		return spec // Start reports it
	}
	h := fnv.New64a()
	h.Write([]byte(spec))
	seed := "seed=" + strconv.FormatUint(h.Sum64()|2, 10) // never the presets' 1
	if query == "" {
		return name + "?" + seed
	}
	return spec + "&" + seed
}

// maxRequests is the most requests any prompt of f has.
func maxRequests(f *results.File) int {
	n := 0
	for _, t := range f.Targets {
		for _, p := range t.Prompts {
			n = max(n, p.Requests)
		}
	}
	return n
}

// abCommandLine is the command that runs this A/B again.
func abCommandLine(req ABRequest, pl abPlan) string {
	s := "latgate ab"
	if req.GateConfig != "" {
		s += " --config " + shellQuote(req.GateConfig)
	}
	if req.Targets[0] != "" {
		s += " --targets " + shellQuote(req.Targets[0]+","+req.Targets[1])
	}
	if req.Block > 0 {
		s += fmt.Sprintf(" --schedule blocks --block %d", req.Block)
	}
	if pl.cfg[0] == pl.cfg[1] {
		return s + " " + shellQuote(pl.cfg[0].Path)
	}
	return s + " " + shellQuote(pl.cfg[0].Path) + " " + shellQuote(pl.cfg[1].Path)
}

// writeAB atomically writes an A/B results file; a nil file is not written.
func writeAB(out *publish.File, r compare.RecordedAB) error {
	if r.Comparison != nil {
		rep := report.WithReasons(*r.Comparison)
		r.Comparison = &rep
	}
	return writeJSON(out, r)
}

// abBill is what both sides of an A/B run cost, each at its config's
// prices: one line per priced target, named by its side.
func abBill(files [2]*results.File, cfgs [2]*config.Config) cost.Bill {
	bill := cost.Bill{Sent: cost.Sent{Recorded: true}}
	sideName := [2]string{"base", "candidate"}
	for k, f := range files {
		for _, t := range f.Targets {
			bill.Sent.Add(t.Usage)
		}
		b := cost.Run(f.Targets, cost.PriceOf(cfgs[k]))
		for _, t := range b.Targets {
			t.Name = sideName[k] + " " + t.Name
			bill.Targets = append(bill.Targets, t)
		}
		for _, u := range b.Unpriced {
			bill.Unpriced = append(bill.Unpriced, sideName[k]+" "+u)
		}
	}
	return bill
}

// abBlock resolves the schedule: the flags over the candidate config's ab
// section. It returns the rounds a side per block under blocks, 0 when
// interleaved.
func abBlock(req ABRequest, cand *config.Config) (int, error) {
	schedule, block := cand.AB.Schedule, cand.AB.Block
	if req.Schedule != "" {
		schedule = req.Schedule
	}
	if req.BlockFlag > 0 {
		block = req.BlockFlag
	}
	switch schedule {
	case config.ScheduleBlocks:
		return max(block, 1), nil
	case config.ScheduleInterleave, "":
		if req.BlockFlag > 0 {
			return 0, UsageError(fmt.Errorf("--block sets the blocks of --schedule blocks; add --schedule blocks (or ab.schedule: blocks in %s) or remove --block", cand.Path))
		}
		return 0, nil
	}
	return 0, UsageError(fmt.Errorf("--schedule is interleave (the default) or blocks, got %q", schedule))
}
