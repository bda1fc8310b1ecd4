package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputNeverOverwritesBaseline: --out, --junit or --markdown naming the
// baseline file is refused before anything runs; the baseline is untouched.
func TestOutputNeverOverwritesBaseline(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := writeConfig(t, dir, gateConfig)
	base := filepath.Join(dir, "latgate.baseline.json")
	const sentinel = "not a real baseline, but it must survive\n"
	if err := os.WriteFile(base, []byte(sentinel), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"check", "--config", cfg, "--out", base},
		{"check", "--config", cfg, "--junit", base},
		{"check", "--config", cfg, "--markdown", filepath.Join(dir, ".", "latgate.baseline.json")},
		{"measure", "--config", cfg, "--out", base},
		{"compare", "--junit", base, base, base},
	} {
		code, _, errs := run(t, nil, args...)
		if code != ExitUsage || !(strings.Contains(errs, "is the baseline") || strings.Contains(errs, "is BASELINE")) {
			t.Errorf("%v: exit %d, stderr %q; want 2 saying it is the baseline file", args, code, errs)
		}
		if data, _ := os.ReadFile(base); !bytes.Equal(data, []byte(sentinel)) {
			t.Fatalf("%v overwrote the baseline with:\n%s", args, data)
		}
	}
}

// TestRunFlagsValidated: an override flag out of range is an error naming
// the flag, never silently replaced by the config's value.
func TestRunFlagsValidated(t *testing.T) {
	t.Parallel()
	cfg := writeConfig(t, t.TempDir(), gateConfig)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--requests", "0"}, "--requests must be between 1 and 100000, got 0"},
		{[]string{"--concurrency", "0"}, "--concurrency must be between 1 and 1024, got 0"},
		{[]string{"--warmup", "-3"}, "--warmup must be between 0 and 10000, got -3"},
		{[]string{"--timeout", "0s"}, "--timeout must be above 0 and at most 1h0m0s, got 0s"},
		{[]string{"--timeout", "2h"}, "--timeout must be above 0 and at most 1h0m0s, got 2h0m0s"},
		{[]string{"--concurrency", "5000"}, "--concurrency must be between 1 and 1024, got 5000"},
		// Bounded: a clear error, never Go's out-of-memory crash.
		{[]string{"--requests", "99999999999"}, "--requests must be between 1 and 100000, got 99999999999"},
		{[]string{"--warmup", "99999999999"}, "--warmup must be between 0 and 10000, got 99999999999"},
		{[]string{"--requests", "99999999999999999999999"}, "flag --requests: value out of range"},
	}
	for _, tt := range tests {
		code, out, errs := run(t, nil, append([]string{"measure", "--config", cfg}, tt.args...)...)
		if code != ExitUsage || !strings.Contains(errs, tt.want) || out != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want 2 and %q before measuring", tt.args, code, errs, out, tt.want)
		}
	}
}

// TestCompareHoldsSavedRunsToTheBudget: a results file whose run was over its
// error budget is refused offline too (exit 3), as check refused it live.
func TestCompareHoldsSavedRunsToTheBudget(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := writeConfig(t, dir, gateConfig)
	if code, _, errs := run(t, nil, "bless", "--config", cfg, "--quiet", "--requests", "40", "--force"); code != ExitPass {
		t.Fatalf("bless: exit %d\n%s", code, errs)
	}
	res := filepath.Join(dir, "over.json")
	code, _, errs := run(t, nil, "measure", "--config", cfg, "--quiet", "--requests", "8", "--out", res,
		"--base-url", "sim:default?tokens=8&itl=20ms&fault=500&fault_every=2")
	if code != ExitMeasurement {
		t.Fatalf("measure over budget: exit %d, want 3\n%s", code, errs)
	}
	code, out, errs := run(t, nil, "compare", "--config", cfg, filepath.Join(dir, "latgate.baseline.json"), res)
	if code != ExitMeasurement || !strings.Contains(errs, "the run gave up early") || !strings.Contains(errs, "error budget can no longer be met") || strings.Contains(out, "PASS") {
		t.Errorf("compare: exit %d, stdout %q, stderr %q; want 3 and the budget breakdown", code, out, errs)
	}
}
