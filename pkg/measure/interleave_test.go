package measure

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/sim"
)

// TestABSchedule: every round gives each target pair × prompt one block of
// one base and one candidate request, blocks are numbered per pair, the
// order within blocks is seeded and mixed, and warmup blocks carry seq 0.
func TestABSchedule(t *testing.T) {
	for _, order := range []string{"interleave", "shuffle"} {
		t.Run(order, func(t *testing.T) {
			run := config.Run{Order: order, Seed: 7}
			jobs := abSchedule(2, 3, 40, run, true)
			if len(jobs) != 2*2*3*40 {
				t.Fatalf("%d jobs, want %d", len(jobs), 2*2*3*40)
			}
			baseFirst := 0
			seen := map[[3]int]bool{} // pair, prompt, seq
			next := [2]int{1, 1}
			for b := 0; b < len(jobs); b += 2 {
				x, y := jobs[b], jobs[b+1]
				if x.side == y.side || x.pair != y.pair || x.prompt != y.prompt || x.seq != y.seq {
					t.Fatalf("block %d is not one request of each side for one pair, prompt and seq: %+v %+v", b/2, x, y)
				}
				if x.seq != next[x.pair] {
					t.Fatalf("block %d of pair %d has seq %d, want %d", b/2, x.pair, x.seq, next[x.pair])
				}
				next[x.pair]++
				seen[[3]int{x.pair, x.prompt, (x.seq - 1) / 3}] = true
				if x.side == sideBase {
					baseFirst++
				}
			}
			if len(seen) != 2*3*40 {
				t.Errorf("%d distinct pair × prompt × round blocks, want %d: a round must visit each pair × prompt once", len(seen), 2*3*40)
			}
			// 240 blocks, a fair coin: 120 ± 3σ (σ ≈ 7.7).
			if blocks := len(jobs) / 2; baseFirst < 97 || baseFirst > 143 {
				t.Errorf("the base request came first in %d of %d blocks, want about half", baseFirst, blocks)
			}
			if diff := cmp.Diff(jobs, abSchedule(2, 3, 40, run, true), cmp.AllowUnexported(abJob{})); diff != "" {
				t.Errorf("the schedule is not deterministic for a seed (-first +second):\n%s", diff)
			}
			run.Seed = 8
			if slices.Equal(jobs, abSchedule(2, 3, 40, run, true)) {
				t.Errorf("another seed gave the same schedule")
			}
			for _, j := range abSchedule(2, 3, 2, run, false) {
				if j.seq != 0 {
					t.Fatalf("a warmup job has seq %d, want 0", j.seq)
				}
			}
		})
	}
}

// TestABBlocks: the blocked schedule sends every pair × prompt × round of
// a chunk for one side, then the same requests, with the same seqs, for
// the other; the leading side alternates chunk by chunk (ABBA), so each
// side switches once a chunk; every measured request of the interleaved
// schedule is there, paired.
func TestABBlocks(t *testing.T) {
	for _, order := range []string{"interleave", "shuffle"} {
		t.Run(order, func(t *testing.T) {
			run := config.Run{Order: order, Seed: 7}
			const pairs, prompts, rounds, block = 2, 3, 25, 10
			jobs := abBlocks(pairs, prompts, rounds, block, 0, run)
			type key struct{ side, pair, prompt, seq int }
			count := func(js []abJob) map[key]int {
				m := map[key]int{}
				for _, j := range js {
					m[key{j.side, j.pair, j.prompt, j.seq}]++
				}
				return m
			}
			if diff := cmp.Diff(count(abSchedule(pairs, prompts, rounds, run, true)), count(jobs)); diff != "" {
				t.Fatalf("the blocked schedule's requests differ from the interleaved one's (-interleaved +blocks):\n%s", diff)
			}
			// Chunks of 10, 10 and 5 rounds: 60, 60 and 30 requests a side.
			var leads []int
			at := 0
			for _, size := range []int{60, 60, 30} {
				a, b := jobs[at:at+size], jobs[at+size:at+2*size]
				for i := range a {
					if a[i].side != a[0].side || b[i].side != 1-a[0].side || a[i].pair != b[i].pair || a[i].prompt != b[i].prompt || a[i].seq != b[i].seq {
						t.Fatalf("chunk at %d: request %d is %+v on the leading side, %+v on the other; want one side, then the same requests for the other", at, i, a[i], b[i])
					}
				}
				leads = append(leads, a[0].side)
				at += 2 * size
			}
			if leads[0] == leads[1] || leads[1] == leads[2] {
				t.Errorf("leading sides %v: want them to alternate (ABBA)", leads)
			}
			// A later look after these 25 rounds (3 chunks) leads with the side
			// the next chunk would have: the alternation goes on.
			if later := abBlocks(pairs, prompts, 10, block, 25, run); later[0].side != leads[1] {
				t.Errorf("a later look leads with side %d, want %d (chunk 4 of an ABBA sequence that began with %d)", later[0].side, leads[1], leads[0])
			}
		})
	}
}

// TestRunABAlternates measures two sides against one simulator, each side
// its own model, and reads the order in which the requests arrived from the
// simulator's record: they alternate between the sides in blocks, at
// concurrency 1 strictly (each pair of arrivals is one of each), at
// concurrency 3 within the requests in flight. Each side's results pair
// block k of a prompt with the other side's by seq.
func TestRunABAlternates(t *testing.T) {
	p, err := sim.ParseSpec("fast?seed=3")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sim.Start(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	prompts := []config.Prompt{
		{ID: "p1", Messages: []config.Message{{Role: "user", Content: "one"}}},
		{ID: "p2", Messages: []config.Message{{Role: "user", Content: "two"}}},
	}
	side := func(model string) ABSide {
		ep := Endpoint{Target: config.Target{Name: "t-" + model, Model: model, MaxTokens: 8, MaxErrorRate: 0.05}, URL: srv.URL()}
		return ABSide{Endpoints: []Endpoint{ep}, Prompts: prompts, ConfigPath: model + ".yaml"}
	}
	for _, conc := range []int{1, 3} {
		t.Run(fmt.Sprintf("concurrency %d", conc), func(t *testing.T) {
			const requests = 15
			srv.Server().Record(true)
			var events int
			base, cand, err := RunAB(context.Background(), ABOptions{
				Base: side("a"), Candidate: side("b"),
				Run:      config.Run{Requests: requests, Warmup: 1, Concurrency: conc, Timeout: 10 * time.Second, Order: "shuffle", Seed: 5},
				Observer: ObserverFunc(func(Progress) { events++ }),
			})
			srv.Server().Record(false)
			if err != nil {
				t.Fatal(err)
			}
			recs := srv.Server().Records()
			slices.SortFunc(recs, func(x, y sim.Record) int { return x.Start.Compare(y.Start) })
			if want := 2 * 2 * (requests + 1); len(recs) != want || events != want {
				t.Fatalf("%d requests recorded, %d progress events, want %d", len(recs), events, want)
			}
			imbalance, worst := 0, 0
			for i, r := range recs {
				switch r.Model {
				case "a":
					imbalance++
				case "b":
					imbalance--
				default:
					t.Fatalf("request %d for model %q", i, r.Model)
				}
				worst = max(worst, abs(imbalance))
				if conc == 1 && i%2 == 1 && imbalance != 0 {
					t.Fatalf("at concurrency 1, arrivals %d and %d are not one of each side: %s", i, i+1, models(recs[:i+1]))
				}
			}
			// Requests are started in schedule order, whose every prefix is
			// balanced within one; the arrivals lag by at most the requests
			// in flight.
			if worst > conc+1 {
				t.Errorf("the arrivals drifted %d requests to one side (concurrency %d): %s", worst, conc, models(recs))
			}
			for _, f := range []*results.File{base, cand} {
				if len(f.Targets) != 1 || len(f.Targets[0].Prompts) != 2 {
					t.Fatalf("%s: %d targets, want 1 with 2 prompts", f.ConfigPath, len(f.Targets))
				}
			}
			for k := range prompts {
				bs, cs := base.Targets[0].Prompts[k].Samples, cand.Targets[0].Prompts[k].Samples
				if len(bs) != requests || len(cs) != requests {
					t.Fatalf("prompt %s: %d base and %d candidate samples, want %d each", prompts[k].ID, len(bs), len(cs), requests)
				}
				for i := range bs {
					// A block's two requests were sent together: same seq,
					// start times within the requests in flight.
					if bs[i].Seq != cs[i].Seq {
						t.Fatalf("prompt %s: sample %d has seq %d on the base side, %d on the candidate's", prompts[k].ID, i, bs[i].Seq, cs[i].Seq)
					}
				}
			}
			if got := base.Targets[0].Model + "/" + cand.Targets[0].Model; got != "a/b" {
				t.Errorf("models %s, want a/b", got)
			}
			// The executor is check's (#28): each side tallies its usage,
			// and at concurrency > 1 probes each prompt alone.
			for _, f := range []*results.File{base, cand} {
				tg := f.Targets[0]
				if u := tg.Usage; u == nil || u.Requests != 2*(requests+1) {
					t.Errorf("%s: usage %+v, want %d requests", f.ConfigPath, u, 2*(requests+1))
				}
				for _, p := range tg.Prompts {
					if solo := p.Solo != nil; solo != (conc > 1) {
						t.Errorf("%s prompt %s at concurrency %d: solo probe %+v", f.ConfigPath, p.ID, conc, p.Solo)
					}
				}
			}
		})
	}
}

// TestRunABPrimesWarmPrompts: a warm-cache prompt without a warmup is
// primed on both sides before the measured blocks, as check primes it, so
// neither side's first request pays the cache's cold start; the priming
// request is billed but not measured.
func TestRunABPrimesWarmPrompts(t *testing.T) {
	p, err := sim.ParseSpec("fast?cache=on")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sim.Start(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	prompts := []config.Prompt{
		{ID: "warm", Cache: results.CacheWarm, Messages: []config.Message{{Role: "system", Content: "You are terse.", Cache: true}, {Role: "user", Content: "one"}}},
		{ID: "plain", Messages: []config.Message{{Role: "user", Content: "two"}}},
	}
	side := func(model string) ABSide {
		ep := Endpoint{Target: config.Target{Name: "t-" + model, Model: model, MaxTokens: 8, MaxErrorRate: 0.05, IncludeUsage: true}, URL: srv.URL()}
		return ABSide{Endpoints: []Endpoint{ep}, Prompts: prompts}
	}
	const requests = 4
	srv.Server().Record(true)
	base, cand, err := RunAB(context.Background(), ABOptions{Base: side("a"), Candidate: side("b"),
		Run: config.Run{Requests: requests, Warmup: 0, Concurrency: 1, Timeout: 10 * time.Second, Seed: 5}})
	srv.Server().Record(false)
	if err != nil {
		t.Fatal(err)
	}
	recs := srv.Server().Records()
	slices.SortFunc(recs, func(x, y sim.Record) int { return x.Start.Compare(y.Start) })
	if want := 2*2*requests + 2; len(recs) != want {
		t.Fatalf("%d requests, want %d: %d measured and one priming request a side", len(recs), want, 2*2*requests)
	}
	if got := models(recs[:2]); got != "ab" {
		t.Errorf("the first two requests went to %q, want a priming request of each side first (ab)", got)
	}
	for _, f := range []*results.File{base, cand} {
		tg := f.Targets[0]
		if n := len(tg.Prompts[0].Samples); n != requests {
			t.Errorf("warm prompt: %d samples, want %d (priming is not measured)", n, requests)
		}
		if u := tg.Usage; u == nil || u.Requests != 2*requests+1 || u.Unknown != 0 {
			t.Errorf("usage %+v, want %d requests, priming included, all known", u, 2*requests+1)
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func models(recs []sim.Record) string {
	var b []byte
	for _, r := range recs {
		b = append(b, r.Model...)
	}
	return string(b)
}
