package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBaselineBlessedInTheFuture: a baseline whose blessed_at is in 2999 (a
// wrong clock, or an edited file) is reported as "in the future", never a
// crash, by every command that prints when the baseline was blessed (issue
// #16 item 2: trend.Age recursed on a saturated negative duration and
// overflowed the stack in check, compare, trend and bless; bless -b over
// such a baseline wrote the new one and then crashed).
func TestBaselineBlessedInTheFuture(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures")
	}
	dir := t.TempDir()
	cfg := writeConfig(t, dir, trendConfig)
	base := filepath.Join(dir, "latgate.baseline.json")
	writeTrendBaseline(t, dir, cfg)
	setBlessedAt(t, base, "2999-01-01T00:00:00Z")
	nightlyHistory(t, cfg, filepath.Join(dir, "latgate.history.jsonl"), 8, func(int) float64 { return 1 })
	res := filepath.Join(dir, "results.json")
	if code, _, errs := run(t, nil, "measure", "--config", cfg, "--quiet", "--out", res, "--history", filepath.Join(dir, "other.jsonl")); code != ExitPass {
		t.Fatalf("measure exit %d\n%s", code, errs)
	}
	tests := []struct {
		name  string
		args  []string
		codes []int // acceptable exit codes: a verdict, not a crash or a usage error
	}{
		{"check", []string{"check", "--config", cfg, "--quiet", "--history", filepath.Join(dir, "check.jsonl")}, []int{ExitPass, ExitRegression}},
		{"compare", []string{"compare", "--config", cfg, base, res}, []int{ExitPass, ExitRegression}},
		{"trend", []string{"trend", "--config", cfg}, []int{ExitPass, ExitRegression}},
		{"bless over it", []string{"bless", "--config", cfg, "--quiet", "--force", "--base-url", "sim:fast?ttft=100ms&ttft_sigma=0"}, []int{ExitPass}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := run(t, nil, tt.args...)
			ok := false
			for _, c := range tt.codes {
				ok = ok || code == c
			}
			if !ok || strings.Contains(errs, "goroutine") {
				t.Fatalf("exit %d, want one of %v\nstdout:\n%s\nstderr:\n%s", code, tt.codes, out, errs)
			}
			if !strings.Contains(out, "in the future: check the clocks") {
				t.Errorf("stdout does not say the baseline is dated in the future:\n%s", out)
			}
		})
	}
	// bless replaced the baseline with one blessed now.
	data, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "2999-") {
		t.Errorf("bless did not replace the future-dated baseline")
	}
}

// setBlessedAt rewrites the baseline's blessed_at (the file is the test's).
func setBlessedAt(t *testing.T, path, at string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	for i, l := range lines {
		if strings.Contains(l, `"blessed_at"`) {
			lines[i] = `  "blessed_at": "` + at + `",`
		}
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}
