package measure_test

import (
	"context"
	"fmt"
	"time"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/measure"
	"github.com/latgate/latgate/pkg/sim"
)

// Measure an OpenAI-compatible streaming endpoint: here latgate's own
// simulator on loopback, streaming 8 tokens after 5 ms and then one every
// millisecond. Run returns a results file of raw per-request samples; the
// times vary from run to run, so the example prints only what does not.
func ExampleRun() {
	ctx := context.Background()
	profile, err := sim.ParseSpec("fixed?ttft=5ms&itl=1ms&tokens=8&spin=0s")
	if err != nil {
		fmt.Println(err)
		return
	}
	srv, err := sim.Start(ctx, profile)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	f, err := measure.Run(ctx, measure.Options{
		Endpoints: []measure.Endpoint{{
			Target: config.Target{Name: "local", Model: "sim", MaxTokens: 8, IncludeUsage: true},
			URL:    srv.URL(),
		}},
		Prompts: []config.Prompt{{ID: "greeting", Messages: []config.Message{{Role: "user", Content: "Say hello."}}}},
		Run:     config.Run{Requests: 4, Warmup: 1, Concurrency: 2, Timeout: 10 * time.Second, Order: "interleave", Seed: 1},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	p := f.Targets[0].Prompts[0]
	s := p.Samples[0]
	fmt.Printf("%d samples, %d failures\n", len(p.Samples), len(p.Failures))
	fmt.Printf("first sample: %d tokens (from %s), %d inter-token gaps, TTFT ≥ 5 ms: %v\n",
		s.OutputTokens, s.TokenSource, len(s.ITL), s.TTFT >= 5)
	// Output:
	// 4 samples, 0 failures
	// first sample: 8 tokens (from usage), 7 inter-token gaps, TTFT ≥ 5 ms: true
}
