package report_test

import (
	"fmt"
	"os"

	"github.com/latgate/latgate/internal/report"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
)

// Render a comparison as the verdict lines `latgate check` prints. The
// report here is made by hand with compare.Decide; a real one comes from
// compare.Compare. Markdown, JUnit and GitHubSummary render the same value.
func ExampleVerdicts() {
	c := compare.Check{Target: "api", Prompt: "greeting", Metric: "ttft", Stat: "p50",
		Baseline: 400, Current: 480, Ratio: 1.2, Lo: 1.12, Hi: 1.29, Confidence: 0.95,
		Tolerance: config.Tolerance{Rel: 0.10}, NBase: 30, NCur: 30}
	compare.Decide(&c)
	rep := compare.Report{Checks: []compare.Check{c}, Seed: 1, Resamples: 2000, Confidence: 0.95}
	rep.Verdict = compare.Overall(rep.Checks, nil)
	if err := report.Verdicts(os.Stdout, rep, report.Options{BaselinePath: "latgate.baseline.json"}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// comparing with baseline latgate.baseline.json: 95% intervals (distribution-free, whole requests;
	//   prompts pooled per target)
	//
	// prompt    check     baseline   current  change       95% CI  allows  verdict
	// greeting  ttft p50    400 ms →  480 ms    +20% [+12%, +29%]    +10%  REGRESSED
	//
	// FAIL: 1 prompt regression (api/greeting ttft p50 +20%)
	// next: if the slowdown is not intended, find its cause (re-running until it passes is an unplanned
	//       look the gate's rates do not cover; to confirm it, compare both sides in one run: latgate ab);
	//       if it is intended (a new model, server or setting), accept it as the new baseline and commit
	//       the baseline
}
