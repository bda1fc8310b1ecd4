package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/latgate/latgate/internal/testkit"
	"github.com/latgate/latgate/pkg/sim"
)

// TestABInterference (#33 item 1): two configs of one server that holds
// one model at a time (the simulator's swap: a request for another model
// than the last one served waits 40 ms, as Ollama reloads) measured by ab
// interleaved: ab warns that interleaving changes latency, with the
// figures and the fix; with --schedule blocks the sides switch once a block
// and the warning is gone.
func TestABInterference(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures the simulator")
	}
	p, err := sim.ParseSpec("fast?ttft=3ms&ttft_sigma=0.1&tokens=4&swap=40ms")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sim.Start(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	body := func(model string) string {
		return `targets:
  - {name: ollama, base_url: "` + srv.URL() + `", model: ` + model + `, max_tokens: 4}
prompts:
  - {id: once, messages: [{role: user, content: "Once upon a time"}]}
  - {id: dog, messages: [{role: user, content: "The little dog"}]}
run: {requests: 30, max_requests: 30, warmup: 1, concurrency: 1}
gate:
  checks:
    - {metric: ttft, stat: p50, tolerance: 500%}
`
	}
	dir := t.TempDir()
	base := testkit.WriteFile(t, dir, "base.yaml", body("tiny-a"))
	cand := testkit.WriteFile(t, dir, "cand.yaml", body("tiny-b"))
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }

	code, out, errs := run(t, nil, "ab", "--quiet", base, cand)
	if code == ExitUsage || code == ExitMeasurement {
		t.Fatalf("ab exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{
		"interleaving changes latency on ollama ⇄ ollama: base requests sent right after a candidate request have TTFT P50",
		"The server likely holds one model at a time and reloads it on every switch",
		"latgate ab --schedule blocks",
	} {
		if !strings.Contains(flat(out), want) {
			t.Errorf("interleaved ab on a swapping server does not warn %q:\n%s", want, out)
		}
	}

	// The candidate's ab section asks for blocks (--schedule blocks does
	// the same: the end-to-end test on Ollama uses the flag).
	blocked := testkit.WriteFile(t, dir, "cand-blocks.yaml", body("tiny-b")+"ab: {schedule: blocks, block: 10}\n")
	code, out, errs = run(t, nil, "ab", "--quiet", base, blocked)
	if code == ExitUsage || code == ExitMeasurement {
		t.Fatalf("ab with ab.schedule: blocks exit %d\n%s\n%s", code, out, errs)
	}
	if strings.Contains(out, "interleaving changes latency") || !strings.Contains(flat(out), "in ABBA runs of 10 rounds a side") {
		t.Errorf("ab in blocks still warns of interference, or does not say it measured in blocks:\n%s", out)
	}
}

// TestABScheduleFlags: --schedule and --block are checked before anything
// is measured, each error naming the fix; ab.schedule in a config is
// checked at load.
func TestABScheduleFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const body = "targets: [{name: sim, base_url: sim, model: sim}]\nprompts: [{id: p, messages: [{role: user, content: hi}]}]\n"
	a := testkit.WriteFile(t, dir, "a.yaml", body)
	b := testkit.WriteFile(t, dir, "b.yaml", body)
	bad := testkit.WriteFile(t, dir, "bad.yaml", body+"ab: {schedule: abba}\n")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"ab", "--schedule", "abba", a, b}, `--schedule is interleave (the default) or blocks, got "abba"`},
		{[]string{"ab", "--block", "5", a, b}, "--block sets the blocks of --schedule blocks; add --schedule blocks (or ab.schedule: blocks in " + b + ") or remove --block"},
		{[]string{"ab", "--schedule", "blocks", "--block", "0", a, b}, "--block must be between 1 and 1000 rounds, got 0"},
		{[]string{"ab", a, bad}, `ab.schedule: "abba" is not a schedule; use interleave (the default) or blocks`},
	} {
		code, _, errs := run(t, nil, tt.args...)
		if code != ExitUsage || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, code, errs, tt.want)
		}
	}
}
