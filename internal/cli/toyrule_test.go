package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/latgate/latgate/internal/testkit"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/stats"
)

// toySpread is a new gate rule written in this one file, as
// docs/architecture.md says a rule is: one value that makes its checks,
// decides them and words them. It holds each prompt's TTFT tail to its
// median in the current run alone: p95/p50 at most 5×, decided once the
// prompt has 20 requests (before that it is undecided, so check measures
// another round). A toy: its estimate is a point estimate, with no
// interval. Nothing else in latgate names it.
type toySpread struct{}

const toyLimit, toyNeed = 5.0, 20

func (toySpread) Name() compare.Rule { return "spread" }
func (toySpread) Absolute() bool     { return true }

func (toySpread) Checks(in compare.RuleInput) []compare.Check {
	var out []compare.Check
	for _, t := range in.Cur.Targets {
		for _, p := range t.Prompts {
			var ttft []float64
			for _, s := range p.Samples {
				ttft = append(ttft, s.TTFT)
			}
			slices.Sort(ttft)
			c := compare.Check{Target: t.Name, Region: t.Region, Prompt: p.ID, Metric: "ttft", Stat: "p95/p50",
				NCur: len(ttft), Need: toyNeed, Verdict: compare.Inconclusive}
			if c.NCur > 0 {
				c.Current = stats.Quantile(ttft, 0.95) / stats.Quantile(ttft, 0.5)
			}
			switch {
			case c.NCur < toyNeed:
				c.More = toyNeed - c.NCur
			case c.Current > toyLimit:
				c.Verdict = compare.Regressed
			default:
				c.Verdict = compare.OK
			}
			out = append(out, c)
		}
	}
	return out
}

// Its words (report.RuleWords).
func (toySpread) CheckName(c compare.Check) string { return "ttft spread" }
func (toySpread) Value(_ compare.Check, v float64) string {
	return fmt.Sprintf("%.2f×", v)
}
func (w toySpread) Change(c compare.Check) string { return w.Value(c, c.Current) }
func (toySpread) Interval(compare.Check) string   { return "-" }
func (toySpread) Allowed(compare.Check) string    { return fmt.Sprintf("≤ %.0f×", toyLimit) }
func (w toySpread) Summary(c compare.Check) string {
	if c.NCur < toyNeed {
		return fmt.Sprintf("TTFT p95 is %s its p50 over %d requests: needs %d", w.Value(c, c.Current), c.NCur, toyNeed)
	}
	return fmt.Sprintf("TTFT p95 is %s its p50 over %d requests (allowed %s)", w.Value(c, c.Current), c.NCur, w.Allowed(c))
}

// TestToyRule (#28): a rule added in one file is decided by check beside
// the config's checks, on the wire against the simulator: its undecided
// first look makes check measure another round, its row is in the table,
// the JUnit report and the results file in its own words, and a tail it
// does not allow fails the run (exit 1) while the config's own check of
// the median does not regress.
func TestToyRule(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the simulator")
	}
	dir := t.TempDir()
	cfg := writeConfig(t, dir, `targets:
  - {name: local, base_url: "sim:default?tokens=4&ttft=30ms&ttft_sigma=0.05&itl=2ms", model: sim, max_tokens: 8}
prompts:
  - id: greeting
    messages: [{role: user, content: "Say hello."}]
run:
  requests: 12
  max_requests: 40
  bless_requests: 40
  warmup: 1
  concurrency: 4
gate:
  checks:
    - {metric: ttft, stat: p50, tolerance: 200%, floor: 100ms} # decided at the first look, on a busy machine too
`)
	plain := Env{Getenv: func(string) string { return "" }}
	env := plain
	env.Rules = []compare.RuleDef{toySpread{}}
	if code, stdout, stderr := runIn(context.Background(), env, "bless", "--config", cfg, "--quiet"); code != ExitPass {
		t.Fatalf("bless: exit %d\n%s\n%s", code, stdout, stderr)
	}
	check := func(e Env, name, spec string, want int) (stdout string, toy *compare.Check, measured int, junit string) {
		t.Helper()
		out, junitPath := filepath.Join(dir, name+".json"), filepath.Join(dir, name+".xml")
		code, stdout, stderr := runIn(context.Background(), e, "check", "--config", cfg, "--quiet",
			"--base-url", "sim:default?tokens=4&ttft=30ms&itl=2ms&"+spec, "--out", out, "--junit", junitPath)
		if code != want {
			t.Fatalf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", name, code, want, stdout, stderr)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		r, err := compare.DecodeRecorded(data, out)
		if err != nil || r.Comparison == nil || len(r.Targets) != 1 || len(r.Targets[0].Prompts) != 1 {
			t.Fatalf("%s: results file: %v\n%s", name, err, data)
		}
		for _, c := range r.Comparison.Checks {
			if c.Rule() == "spread" {
				toy = &c
			} else if c.Verdict == compare.Regressed {
				t.Errorf("%s: the config's check %s %s regressed: the test is about the toy rule", name, c.Metric, c.Stat)
			}
		}
		return stdout, toy, len(r.Targets[0].Prompts[0].Samples), testkit.ReadFile(t, junitPath)
	}

	// Without the rule the config's check decides at the first look.
	_, toy, alone, _ := check(plain, "alone", "ttft_sigma=0.05", ExitPass)
	if toy != nil || alone >= toyNeed {
		t.Fatalf("without the rule: %d requests and a toy check %v; want fewer than %d requests and none", alone, toy, toyNeed)
	}

	stdout, toy, n, junit := check(env, "steady", "ttft_sigma=0.05", ExitPass)
	if toy == nil || toy.Verdict != compare.OK || toy.NCur < toyNeed || n < toyNeed || !strings.Contains(toy.Reason, "allowed ≤ 5×") {
		t.Errorf("steady: the toy check %+v after %d requests; want ok from ≥ %d (a round the config's check alone did not need, after %d), its words as the reason", toy, n, toyNeed, alone)
	}
	if !strings.Contains(stdout, "ttft spread") || !strings.Contains(junit, `name="latgate.rule" value="spread"`) {
		t.Errorf("steady: the toy's row is missing\nstdout:\n%s\njunit:\n%s", stdout, junit)
	}

	stdout, toy, _, junit = check(env, "spiky", "ttft_sigma=0.05&ttft_spike=0.4&spike_x=12", ExitRegression)
	if toy == nil || toy.Verdict != compare.Regressed || toy.Current <= toyLimit {
		t.Errorf("spiky: the toy check %+v; want regressed above %g×", toy, toyLimit)
	}
	if !strings.Contains(stdout, "ttft spread") || !strings.Contains(stdout, "FAIL: 1 prompt regression (local/greeting ttft spread") ||
		!strings.Contains(junit, "<failure") || !strings.Contains(junit, "rule:       spread") {
		t.Errorf("spiky: the regression is not worded as the toy's\nstdout:\n%s\njunit:\n%s", stdout, junit)
	}
}
