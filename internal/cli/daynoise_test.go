package cli

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/latgate/latgate/internal/testkit"
)

// TestCheckLearnsDayNoiseFromHistory: with a history of at least 20 runs,
// check learns the day-to-day noise from it and says so; with fewer, it
// says the noise was assumed (issue #18: "day-to-day noise ±N% from 24
// nightly runs").
func TestCheckLearnsDayNoiseFromHistory(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures the simulator 22 times")
	}
	dir := t.TempDir()
	cfg := writeConfig(t, dir, `history: h.jsonl
targets: [{name: s, base_url: "sim:fast", model: sim, max_tokens: 8}]
prompts:
  - {id: a, messages: [{role: user, content: hi}]}
  - {id: b, messages: [{role: user, content: ho}]}
run: {requests: 8, max_requests: 8, bless_requests: 40, warmup: 0, concurrency: 4}
`)
	if code, _, errs := run(t, nil, "bless", "--config", cfg, "--quiet", "--force"); code != ExitPass {
		t.Fatalf("bless: exit %d\n%s", code, errs)
	}
	hist := filepath.Join(dir, "h.jsonl")
	measure := func(n int) {
		t.Helper()
		for range n {
			if code, _, errs := run(t, nil, "measure", "--config", cfg, "--quiet", "--history", hist); code != ExitPass {
				t.Fatalf("measure: exit %d\n%s", code, errs)
			}
		}
	}
	// The verdicts do not matter here (a busy machine slows the
	// simulator); the line that says where the noise came from does. It
	// may wrap: compare words.
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	measure(19)
	_, out, _ := run(t, nil, "check", "--config", cfg, "--quiet")
	out = flat(out)
	if !strings.Contains(out, "(assumed: no history of 20 runs to learn it from)") {
		t.Errorf("with 19 runs of history, check did not say the noise was assumed:\n%s", out)
	}
	measure(1) // check appended the 20th; one more makes 21
	_, out, _ = run(t, nil, "check", "--config", cfg, "--quiet")
	out = flat(out)
	// (A metric whose p50 was 0 ms in some runs, itl on a busy machine,
	// may still be assumed: only positive levels teach. Learned per
	// statistic, the line names each where a metric's differ.)
	if !regexp.MustCompile(`day-to-day noise (ttft (p50 )?)?±[0-9.]+% per run \(from 2[0-9] runs of the history`).MatchString(out) {
		t.Errorf("with 21 runs of history, check did not learn the noise from it:\n%s", out)
	}
}

// TestCheckNoiseHistoryIsReadOnly (#29): a pull request's check learns the
// day-to-day noise from the nightly history it is given with
// --noise-history and leaves that file byte for byte as it was; it cannot
// be the file --history appends to.
func TestCheckNoiseHistoryIsReadOnly(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures the simulator 22 times")
	}
	dir := t.TempDir()
	cfg := writeConfig(t, dir, `targets: [{name: s, base_url: "sim:fast", model: sim, max_tokens: 8}]
prompts:
  - {id: a, messages: [{role: user, content: hi}]}
  - {id: b, messages: [{role: user, content: ho}]}
run: {requests: 8, max_requests: 8, bless_requests: 40, warmup: 0, concurrency: 4}
`)
	if code, _, errs := run(t, nil, "bless", "--config", cfg, "--quiet", "--force"); code != ExitPass {
		t.Fatalf("bless: exit %d\n%s", code, errs)
	}
	nightly := filepath.Join(dir, "nightly.jsonl")
	for range 21 {
		if code, _, errs := run(t, nil, "measure", "--config", cfg, "--quiet", "--history", nightly); code != ExitPass {
			t.Fatalf("measure: exit %d\n%s", code, errs)
		}
	}
	before := testkit.ReadFile(t, nightly)
	_, out, errs := run(t, nil, "check", "--config", cfg, "--quiet", "--noise-history", nightly)
	out = strings.Join(strings.Fields(out), " ")
	if !strings.Contains(out, "runs of the history") {
		t.Errorf("check --noise-history did not learn the noise from the nightly history:\n%s\n%s", out, errs)
	}
	if after := testkit.ReadFile(t, nightly); after != before {
		t.Errorf("check --noise-history wrote the nightly history (%d → %d bytes)", len(before), len(after))
	}
	code, _, errs := run(t, nil, "check", "--config", cfg, "--quiet", "--noise-history", nightly, "--history", nightly)
	if code != ExitUsage || !strings.Contains(errs, "--noise-history") {
		t.Errorf("--history over --noise-history: exit %d, want 2 naming both\n%s", code, errs)
	}
}
