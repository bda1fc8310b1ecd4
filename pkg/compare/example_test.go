package compare_test

import (
	"fmt"

	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// side returns one run of n requests to one target and prompt, whose TTFT
// spreads around ttft ms and whose tokens come every 20 ms or so. The
// target is a server on a private network: without a history the gate
// assumes it moves 1% from day to day (a hosted API's 20% would leave a
// +50% change undecided on one run: config.Gate.DayToDayFor).
func side(n int, ttft float64) compare.Side {
	samples := make([]results.Sample, n)
	for i := range samples {
		v := ttft * (1 + 0.03*float64(i%7))
		samples[i] = results.Sample{Seq: i + 1, TTFT: v, Total: v + 400,
			ITL: []float64{19 + float64(i%3), 20, 21}}
	}
	return compare.Side{
		Run: results.Run{Requests: n, Concurrency: 1},
		Targets: []results.Target{{Name: "api", BaseURL: "http://10.0.0.5:8000/v1", Model: "m", Requests: n,
			Prompts: []results.Prompt{{ID: "greeting", Requests: n, Samples: samples}}}},
	}
}

// Gate a run whose time to first token went from about 400 ms to about
// 600 ms: the check first refuses runs that measured something else, then
// decides every check with distribution-free intervals, so the same runs
// always give the same verdicts. (+50% at P90 sits on its 50% tolerance.)
func ExampleCompare() {
	base, cur := side(60, 400), side(60, 600)
	if ms := compare.Compatible(base, cur); len(ms) > 0 {
		fmt.Println("not comparable:", ms[0].Message())
		return
	}
	rep := compare.Compare(base, cur, config.DefaultGate())
	fmt.Println("verdict:", rep.Verdict, "- fails the gate:", rep.Verdict.Fails(false))
	for _, c := range rep.Checks { // worst first
		fmt.Printf("%s %s: %s\n", c.Metric, c.Stat, c.Verdict)
	}
	// Output:
	// verdict: regressed - fails the gate: true
	// ttft p50: regressed
	// ttft p90: inconclusive
	// itl p50: ok
	// itl p95: ok
}

// A check decided by hand: Decide applies the same rule Compare does to
// statistics and an interval computed elsewhere.
func ExampleDecide() {
	c := compare.Check{Target: "api", Prompt: "greeting", Metric: "ttft", Stat: "p50",
		Baseline: 400, Current: 480, Ratio: 1.2, Lo: 1.12, Hi: 1.29, Confidence: 0.95,
		Tolerance: config.Tolerance{Rel: 0.10}, NBase: 30, NCur: 30}
	compare.Decide(&c)
	fmt.Println(c.Verdict)
	fmt.Printf("%.2f× [%.2f, %.2f] against the threshold %.2f×\n", c.Ratio, c.Lo, c.Hi, c.Threshold)
	// Output:
	// regressed
	// 1.20× [1.12, 1.29] against the threshold 1.10×
}

// Sequential looks, as check makes them: compare at the look the current
// requests belong to, and measure another round only while NextRound finds
// an undecided check below the cap.
func ExampleNextRound() {
	d := compare.NewDesign(60, 150) // run.requests 60, run.max_requests 150
	fmt.Println("looks:", d.Looks)
	for k := range d.Looks {
		fmt.Printf("look %d: %.1f%% intervals\n", k+1, 100*d.Confidence(0.95, 240, k))
	}
	base, cur := side(240, 400), side(60, 404)
	gate := config.DefaultGate()
	gate.Checks = []config.Check{{Metric: "ttft", Stat: "p95", Tolerance: config.Tolerance{Rel: 0.10}}} // 60 requests are too few for a p95
	rep := compare.CompareSequential(base, cur, gate, d)
	if r, more := compare.NextRound(rep, d); more {
		fmt.Printf("%d undecided: measure %v to %d requests (look %d of %d)\n", len(r.Why), r.Prompts[compare.TargetID{Name: "api"}], r.To, r.Look+1, r.Looks)
	}
	// Output:
	// looks: [60 90 120 150]
	// look 1: 96.8% intervals
	// look 2: 98.1% intervals
	// look 3: 98.3% intervals
	// look 4: 98.4% intervals
	// 1 undecided: measure [greeting] to 90 requests (look 2 of 4)
}

// stallRule is a gate rule beyond the five: every request's longest
// silence mid-stream at most 2 s, in the current run alone.
type stallRule struct{}

func (stallRule) Name() compare.Rule { return "stall" }
func (stallRule) Absolute() bool     { return true }

func (stallRule) Checks(in compare.RuleInput) []compare.Check {
	var out []compare.Check
	for _, t := range in.Cur.Targets {
		for _, p := range t.Prompts {
			c := compare.Check{Target: t.Name, Prompt: p.ID, Metric: "max_stall", Stat: "max", NCur: len(p.Samples), Verdict: compare.OK}
			for _, s := range p.Samples {
				c.Current = max(c.Current, s.MaxStall)
			}
			if c.Current > 2000 {
				c.Verdict = compare.Regressed
			}
			out = append(out, c)
		}
	}
	return out
}

// A rule of one's own: Setup.Rules adds its checks beside the config's,
// and its regression fails the run like any other.
func ExampleRuleDef() {
	base, cur := side(60, 400), side(60, 400)
	cur.Targets[0].Prompts[0].Samples[7].MaxStall = 2500 // one request stalled 2.5 s
	rep := compare.CompareWith(base, cur, config.DefaultGate(), compare.Setup{Rules: []compare.RuleDef{stallRule{}}})
	fmt.Println("verdict:", rep.Verdict)
	for _, c := range rep.Checks {
		if c.Rule() == "stall" {
			fmt.Printf("%s %s: %s (%.0f ms)\n", c.Prompt, c.Rule(), c.Verdict, c.Current)
		}
	}
	// Output:
	// verdict: regressed
	// greeting stall: regressed (2500 ms)
}
