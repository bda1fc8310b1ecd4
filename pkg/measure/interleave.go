package measure

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// # Interleaved A/B
//
// RunAB measures two sides together (`latgate ab`'s base and candidate), so
// that whatever the endpoints do during the run — a provider's load rising,
// a level that jumps — hits both alike. Target i of one side is paired with
// target i of the other, and prompt k with prompt k (the same id; the texts
// may differ). The schedule is a sequence of blocks: in each round every
// target pair × prompt gets one block, the pairs and prompts in the run's
// order (interleave, or shuffled per round), and a block is one base and one
// candidate request of that pair and prompt, in a seeded random order (AB or
// BA: a drift between the two requests of a block then favours neither
// side). run.concurrency workers take the requests in schedule order, so the
// two requests of a block are in flight together (one after the other at
// concurrency 1), and each side gets half of the concurrency on average.
//
// Both sides run on the executor check uses (exec.go), one lane per side ×
// target: warm-cache prompts are primed per side, pair by pair, before the
// blocks; at concurrency > 1 the warmup's last round of blocks is the solo
// round, one request at a time; each side tallies its usage.
//
// A block's two requests carry the same seq in their sides' results (1-based
// per target, warmup 0): the block is the target pair, the prompt and the
// seq. An earlier round's requests keep their blocks when results.AppendRound
// shifts both sides' seqs by the same count.

// ABSide is one side of an interleaved measurement.
type ABSide struct {
	// Endpoints are the side's targets: Endpoints[i] is paired with the
	// other side's Endpoints[i].
	Endpoints []Endpoint
	// Prompts are the side's prompts: Prompts[k] is paired with the other
	// side's Prompts[k] (both sides list the same ids in the same order).
	Prompts []config.Prompt
	// ConfigPath and ConfigHash go into the side's results provenance.
	ConfigPath, ConfigHash string
	// Before holds what earlier rounds measured of this side, or nil (see
	// Options.Before).
	Before *results.File
}

// ABOptions configures an interleaved measurement: the two sides and the
// run settings both share (requests and warmup per target × prompt and side;
// concurrency in all; timeout; order and seed of the schedule).
type ABOptions struct {
	Base, Candidate ABSide
	Run             config.Run
	// Observer receives progress; calls are serialized. The events name the
	// target pair ("base ⇄ candidate") and, for a failure, the side; Done
	// and Total count both sides' requests.
	Observer Observer
	// Version goes into both results files.
	Version string
	// MaxRetries and MaxRetryWait are as in Options.
	MaxRetries   int
	MaxRetryWait time.Duration
	// Block, when not 0, measures in ABBA blocks of Block rounds a side
	// (abBlocks) instead of one request of each side per block: for a
	// server that interleaving itself slows (one that holds one model at
	// a time and reloads it on every switch). The warmup stays
	// interleaved.
	Block int
}

// abJob is one request of the interleaved schedule.
type abJob struct {
	side, pair, prompt int
	seq                int // the block's seq: 1-based per target pair; 0 for warmup
}

// Sides of an interleaved run, the index of ABOptions' sides in abJob.side.
const (
	sideBase = iota
	sideCandidate
)

var sideNames = [2]string{"base", "candidate"}

// abStream separates the seeded AB/BA coin from the shuffles of the order.
const abStream = 0xab_ab_5eed

// RunAB measures the two sides interleaved in blocks and returns each
// side's results. Both files are returned even with an error (partial on
// interruption, auth failure or give-up: one side's target given up stops
// the whole run, as its pairs could no longer be completed).
func RunAB(ctx context.Context, opts ABOptions) (base, cand *results.File, err error) {
	if len(opts.Base.Endpoints) != len(opts.Candidate.Endpoints) || len(opts.Base.Prompts) != len(opts.Candidate.Prompts) {
		return nil, nil, fmt.Errorf("measure: an A/B run needs as many targets and prompts on each side (%d/%d targets, %d/%d prompts)",
			len(opts.Base.Endpoints), len(opts.Candidate.Endpoints), len(opts.Base.Prompts), len(opts.Candidate.Prompts))
	}
	for k, p := range opts.Base.Prompts {
		if q := opts.Candidate.Prompts[k]; q.ID != p.ID {
			return nil, nil, fmt.Errorf("measure: A/B prompt %d is %q on the base side and %q on the candidate side", k+1, p.ID, q.ID)
		}
	}
	if opts.MaxRetries == 0 {
		opts.MaxRetries = 3
	}
	if opts.MaxRetryWait == 0 {
		opts.MaxRetryWait = 30 * time.Second
	}
	sides := [2]ABSide{opts.Base, opts.Candidate}
	started := time.Now()
	files := [2]*results.File{}
	for s, sd := range sides {
		files[s] = &results.File{
			Schema: results.Schema, Version: opts.Version,
			StartedAt:  started.UTC().Truncate(time.Millisecond),
			ConfigPath: sd.ConfigPath, ConfigHash: sd.ConfigHash,
			Run: RunOf(opts.Run),
		}
	}
	pairs, prompts := len(opts.Base.Endpoints), len(opts.Base.Prompts)
	if pairs == 0 || prompts == 0 {
		for _, f := range files {
			f.FinishedAt = time.Now().UTC().Truncate(time.Millisecond)
		}
		return files[0], files[1], nil
	}

	conc := max(opts.Run.Concurrency, 1)
	warm := abSchedule(pairs, prompts, opts.Run.Warmup, opts.Run, false)
	meas := abSchedule(pairs, prompts, opts.Run.Requests, opts.Run, true)
	if opts.Block > 0 {
		meas = abBlocks(pairs, prompts, opts.Run.Requests, opts.Block, priorRounds(opts.Base.Before), opts.Run)
	}
	laneOf := func(side, pair int) int { return side*pairs + pair }
	// Each lane's measured jobs, in schedule order, and each measured
	// request's index among them.
	measOf := make([][]job, 2*pairs)
	slot := make([]int, len(meas))
	for i, j := range meas {
		l := laneOf(j.side, j.pair)
		slot[i] = len(measOf[l])
		measOf[l] = append(measOf[l], job{prompt: j.prompt, seq: j.seq})
	}
	// Priming, pair by pair and prompt by prompt, both sides in turn.
	var prime []task
	primed := make([]int, 2*pairs)
	for pair := range pairs {
		for k := range prompts {
			for s, sd := range sides {
				if slices.ContainsFunc(primeJobs(sd.Prompts, opts.Run.Warmup), func(j job) bool { return j.prompt == k }) {
					prime = append(prime, task{lane: laneOf(s, pair), prompt: k, slot: -1})
					primed[laneOf(s, pair)]++
				}
			}
		}
	}
	// At a rate, one arrival stream carries both sides' requests in the
	// schedule's order: each lane gets its run.rate, the stream 2 × pairs
	// times that.
	p := paceOf(opts.Run)
	conns := conc
	if p != nil {
		p.rate *= float64(2 * pairs)
		conns = p.maxInFlight
	}
	lanes := make([]*lane, 2*pairs)
	for s, sd := range sides {
		for pair, ep := range sd.Endpoints {
			hc, closeIdle := newHTTPClient(conns)
			defer closeIdle()
			lo := Options{Endpoints: []Endpoint{ep}, Prompts: sd.Prompts, Run: opts.Run, MaxRetries: opts.MaxRetries, MaxRetryWait: opts.MaxRetryWait, Before: sd.Before}
			l, err := newLane(ep, hc, lo, opts.Run.Warmup*prompts+primed[laneOf(s, pair)], measOf[laneOf(s, pair)])
			if err != nil {
				return files[0], files[1], err
			}
			l.label = func(k int) (string, string) {
				return opts.Base.Endpoints[pair].Name + " ⇄ " + opts.Candidate.Endpoints[pair].Name, sd.Prompts[k].ID + " (" + sideNames[s] + ")"
			}
			lanes[laneOf(s, pair)] = l
		}
	}
	var plan [phases][]task
	plan[phasePrime] = prime
	// The solo round is the warmup's last round of blocks: every pair ×
	// prompt × side once, one request at a time (solo.go).
	soloFrom := len(warm)
	if conc > 1 && opts.Run.Warmup > 0 {
		soloFrom = len(warm) - 2*pairs*prompts
	}
	for i, j := range warm {
		ph := phaseWarm
		if i >= soloFrom {
			ph = phaseSolo
		}
		plan[ph] = append(plan[ph], task{lane: laneOf(j.side, j.pair), prompt: j.prompt, slot: -1})
	}
	for i, j := range meas {
		plan[phaseMeasured] = append(plan[phaseMeasured], task{lane: laneOf(j.side, j.pair), prompt: j.prompt, slot: slot[i]})
	}
	var obsMu sync.Mutex
	x := &executor{lanes: lanes, conc: conc, start: started, pace: p}
	if opts.Observer != nil {
		x.observe = func(p Progress) {
			obsMu.Lock()
			defer obsMu.Unlock()
			opts.Observer.Progress(p)
		}
	}
	stopped := x.run(ctx, plan)

	var errs []error
	for s := range sides {
		for pair, ep := range sides[s].Endpoints {
			l := lanes[laneOf(s, pair)]
			files[s].Targets = append(files[s].Targets, x.result(l))
			if err := l.gu.err(ep.Name); err != nil {
				errs = append(errs, fmt.Errorf("%s side: %w", sideNames[s], err))
			}
		}
	}
	switch e := x.authErr.Load(); {
	case e != nil:
		err = e
	case len(errs) > 0:
		err = errs[0] // the first side × target given up; the others stopped with it
	case stopped != nil:
		err = fmt.Errorf("%w: %d of %d requests of the A/B run done", ErrInterrupted, int(x.done.Load()), x.total)
	}
	for _, f := range files {
		f.FinishedAt = time.Now().UTC().Truncate(time.Millisecond)
		if err != nil {
			f.Partial, f.PartialReason = true, err.Error()
			var gu *GiveUpError
			f.GaveUp = errors.As(err, &gu)
		}
	}
	return files[0], files[1], err
}

// abSchedule is the interleaved schedule of rounds: per round, one block per
// target pair × prompt (pairs and prompts in the run's order, shuffled per
// round by its seed when order is "shuffle"), each block one base and one
// candidate request in a seeded random order. Measured blocks are numbered
// from 1 per target pair (seq).
func abSchedule(pairs, prompts, rounds int, run config.Run, measured bool) []abJob {
	jobs := make([]abJob, 0, 2*pairs*prompts*rounds)
	coin := rand.New(rand.NewPCG(uint64(run.Seed), abStream))
	if !measured {
		coin = rand.New(rand.NewPCG(uint64(run.Seed), abStream+1))
	}
	seq := make([]int, pairs)
	units := make([]int, pairs*prompts)
	for r := range rounds {
		for i := range units {
			units[i] = i
		}
		if run.Order == "shuffle" {
			rng := rand.New(rand.NewPCG(uint64(run.Seed), uint64(r)))
			rng.Shuffle(len(units), func(a, b int) { units[a], units[b] = units[b], units[a] })
		}
		for _, u := range units {
			pair, prompt := u/prompts, u%prompts
			n := 0
			if measured {
				seq[pair]++
				n = seq[pair]
			}
			first := sideBase
			if coin.IntN(2) == 1 {
				first = sideCandidate
			}
			jobs = append(jobs, abJob{side: first, pair: pair, prompt: prompt, seq: n}, abJob{side: 1 - first, pair: pair, prompt: prompt, seq: n})
		}
	}
	return jobs
}

// abBlocks is the blocked schedule: the measured rounds in chunks of block
// rounds, each chunk all of one side's requests (every target pair ×
// prompt, round by round, in the run's order) and then the other side's
// same requests with the same seqs, so that request seq of a pair and
// prompt still pairs with the other side's. The side that leads alternates
// chunk by chunk (ABBA: a drift across the run favours neither side), the
// first drawn from the seed; prior is the rounds earlier looks measured,
// so that a later look's chunks go on alternating rather than lead with
// the first look's side again. A server that swaps between the sides then
// swaps once a chunk, not once a request.
func abBlocks(pairs, prompts, rounds, block, prior int, run config.Run) []abJob {
	jobs := make([]abJob, 0, 2*pairs*prompts*rounds)
	first := sideBase
	if rand.New(rand.NewPCG(uint64(run.Seed), abStream)).IntN(2) == 1 {
		first = sideCandidate
	}
	if ((prior+block-1)/block)%2 == 1 { // the chunks measured before, the last one perhaps short
		first = 1 - first
	}
	seq := make([]int, pairs)
	units := make([]int, pairs*prompts)
	var chunk []abJob
	for r0 := 0; r0 < rounds; r0 += block {
		chunk = chunk[:0]
		for r := r0; r < min(r0+block, rounds); r++ {
			for i := range units {
				units[i] = i
			}
			if run.Order == "shuffle" {
				rng := rand.New(rand.NewPCG(uint64(run.Seed), uint64(r)))
				rng.Shuffle(len(units), func(a, b int) { units[a], units[b] = units[b], units[a] })
			}
			for _, u := range units {
				pair, prompt := u/prompts, u%prompts
				seq[pair]++
				chunk = append(chunk, abJob{pair: pair, prompt: prompt, seq: seq[pair]})
			}
		}
		for _, side := range []int{first, 1 - first} {
			for _, j := range chunk {
				j.side = side
				jobs = append(jobs, j)
			}
		}
		first = 1 - first
	}
	return jobs
}

// priorRounds is how many rounds earlier looks measured of a side: the
// requests of its first target's first prompt in before (nil: none).
func priorRounds(before *results.File) int {
	if before == nil || len(before.Targets) == 0 || len(before.Targets[0].Prompts) == 0 {
		return 0
	}
	p := before.Targets[0].Prompts[0]
	return len(p.Samples) + len(p.Failures)
}
