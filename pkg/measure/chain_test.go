package measure

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/sim"
)

// chainPrompt is a 3-step agent chain.
var chainPrompt = config.Prompt{ID: "agent", Steps: [][]config.Message{
	{{Role: "system", Content: "You plan trips."}, {Role: "user", Content: "Plan a day in Lyon."}},
	{{Role: "user", Content: "Book the first stop."}},
	{{Role: "user", Content: "Summarize the plan."}},
}}

func init() { chainPrompt.Messages = chainPrompt.Steps[0] }

// TestChainOnTheWire runs a 3-step chain on every API the simulator
// speaks, with its second step slowed by 40 ms (chain_step=2): each step
// waits for the previous answer, which goes back as an assistant turn (the
// simulator counts 0, 1, 2 of them and sees the prompt grow), only the
// second step is slow, and the chain's times add up from its steps.
func TestChainOnTheWire(t *testing.T) {
	if testing.Short() {
		t.Skip("streams for a second")
	}
	const delay = 40 * time.Millisecond
	for _, api := range config.APIs() {
		t.Run(api, func(t *testing.T) {
			p, err := sim.ParseSpec("fixed?spin=0s&tokens=6&chain_step=2&chain_step_delay=40ms")
			if err != nil {
				t.Fatal(err)
			}
			p.TTFT.Median, p.ITL.Median = 5*time.Millisecond, 2*time.Millisecond
			srv, err := sim.Start(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			srv.Server().Record(true)
			_, f := measureSim(t, srv, apiTarget(api), chainPrompt, 3, "sk-sim")
			pr := f.Targets[0].Prompts[0]
			if pr.Errors > 0 || len(pr.Samples) != 3 {
				t.Fatalf("%d samples, failures %+v; want 3 chains", len(pr.Samples), pr.Failures)
			}
			if pr.Steps != 3 || pr.Metrics.ChainTotal == nil || pr.Metrics.ChainTTFTLast == nil || pr.Metrics.ChainTotal.N != 3 {
				t.Errorf("prompt steps %d, chain summaries %+v %+v; want 3 steps and 3 chains summarized", pr.Steps, pr.Metrics.ChainTotal, pr.Metrics.ChainTTFTLast)
			}
			for _, s := range pr.Samples {
				if len(s.Steps) != 3 {
					t.Fatalf("sample %d has %d steps, want 3", s.Seq, len(s.Steps))
				}
				for k, st := range s.Steps {
					if k == 1 && st.TTFT < float64(delay)/1e6 {
						t.Errorf("sample %d step 2: ttft %.1f ms; the simulator delays it by %v", s.Seq, st.TTFT, delay)
					}
					if k > 0 {
						prev := s.Steps[k-1]
						if st.StartMS < prev.StartMS+prev.Total {
							t.Errorf("sample %d step %d starts at %.3f ms, before step %d ended (%.3f ms)", s.Seq, k+1, st.StartMS, k, prev.StartMS+prev.Total)
						}
						if st.PromptTokens > 0 && st.PromptTokens <= prev.PromptTokens {
							t.Errorf("sample %d step %d: %d prompt tokens, step %d %d: the conversation did not grow", s.Seq, k+1, st.PromptTokens, k, prev.PromptTokens)
						}
					}
				}
				last := s.Steps[2]
				if d := s.ChainTotal - (last.StartMS + last.Total); d < -0.001 || d > 0.001 {
					t.Errorf("chain_total %.3f ms, want the last step's end %.3f ms", s.ChainTotal, last.StartMS+last.Total)
				}
				if d := s.ChainTTFTLast - (last.StartMS + last.TTFT); d < -0.001 || d > 0.001 || s.TTFT != last.TTFT {
					t.Errorf("chain_ttft_last %.3f ms, want %.3f; sample ttft %.3f is the last step's %.3f", s.ChainTTFTLast, last.StartMS+last.TTFT, s.TTFT, last.TTFT)
				}
			}
			// the cost tally counts each step's request: 4 chains of 3
			if u := f.Targets[0].Usage; u == nil || u.Requests != 12 {
				t.Errorf("usage tally %+v, want 12 requests (4 chains of 3 steps)", u)
			}
			if err := srv.Close(); err != nil {
				t.Fatal(err)
			}
			var turns []int
			for _, r := range srv.Server().Records() {
				turns = append(turns, r.Turns)
				// the schedule, not the stamps (a loaded machine adds to those)
				if slow := r.Plan.Tokens[0] >= delay; slow != (r.Turns == 1) {
					t.Errorf("request %d with %d assistant turns: first token due at %v; only step 2 (1 turn) is delayed by %v", r.Seq, r.Turns, r.Plan.Tokens[0], delay)
				}
			}
			slices.Sort(turns)
			// one warmup chain and three measured: 4 requests with each count
			if diff := cmp.Diff([]int{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2}, turns); diff != "" {
				t.Errorf("assistant turns per request (-want +got):\n%s", diff)
			}
		})
	}
}

// TestChainStepFails: a step that fails fails the chain, as one
// measurement failure of that step's class, naming the step.
func TestChainStepFails(t *testing.T) {
	p, err := sim.ParseSpec("fast?fault=500&fault_every=3")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sim.Start(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	tg := apiTarget(config.APIChat)
	ep := NewEndpoint(tg, srv.URLFor(tg.API), func(string) string { return "" })
	f, _ := Run(context.Background(), Options{
		Endpoints: []Endpoint{ep}, Prompts: []config.Prompt{chainPrompt},
		Run:        config.Run{Requests: 1, Concurrency: 1, Timeout: 10 * time.Second, Order: "interleave", Seed: 1},
		MaxRetries: -1,
	})
	pr := f.Targets[0].Prompts[0]
	if pr.Requests != 1 || pr.Errors != 1 || len(pr.Failures) != 1 || len(pr.Samples) != 0 {
		t.Fatalf("requests %d, errors %d, failures %+v, samples %d; want the chain as one failure", pr.Requests, pr.Errors, pr.Failures, len(pr.Samples))
	}
	if fl := pr.Failures[0]; fl.Class != results.ErrServer || !strings.HasPrefix(fl.Message, "step 3 of 3: ") {
		t.Errorf("failure %+v; want class %s, message opening with step 3 of 3", fl, results.ErrServer)
	}
	if u := f.Targets[0].Usage; u == nil || u.Requests != 3 || u.Unknown != 1 {
		t.Errorf("usage tally %+v, want the 3 requests sent, the failed one unknown", u)
	}
}

// TestAnswerText: escaped fragments and plain text (an sse target's whole
// data) decode to the answer; past its limit the answer is over, not cut.
func TestAnswerText(t *testing.T) {
	a := &answerText{limit: answerLimit(64)}
	a.add([]byte(`Hello, \"Lyon\"`), false)
	a.add([]byte(`\n\u00e9`), false)
	a.add([]byte("tab\there \"q\" \\"), true)
	got, err := a.text()
	if want := "Hello, \"Lyon\"\né" + "tab\there \"q\" \\"; err != nil || got != want {
		t.Errorf("text() = %q, %v; want %q", got, err, want)
	}
	if a.over {
		t.Error("over before the limit")
	}
	big := make([]byte, answerLimit(64))
	a.add(big, false)
	if !a.over {
		t.Errorf("an answer past %d bytes is not over", answerLimit(64))
	}
	if answerLimit(1<<20) != 1<<20 || answerLimit(64) != 64<<10+256*64 {
		t.Errorf("answerLimit: %d for 64 tokens, %d for 1M tokens", answerLimit(64), answerLimit(1<<20))
	}
}
