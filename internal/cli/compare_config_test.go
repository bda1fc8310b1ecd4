package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareReadsLocalConfig: compare takes the gate settings from
// ./latgate.yaml like the other commands, says which settings it used, and
// refuses a broken one instead of silently falling back to the defaults.
func TestCompareReadsLocalConfig(t *testing.T) {
	src := filepath.Join("testdata", "compare")
	cfg, err := os.ReadFile(filepath.Join(src, "latgate.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	abs := func(name string) string {
		p, err := filepath.Abs(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	baseline, results := abs("baseline.json"), abs("results.json")
	// A gate that only the config names: total time at P50.
	custom := string(cfg) + "gate:\n  checks:\n    - {metric: total, stat: p50, tolerance: 30%, floor: 1ms}\n"
	tests := []struct {
		name      string
		local     string // ./latgate.yaml, "" for none
		args      []string
		code      int
		stderr    string
		stdout    string
		notStdout string
	}{
		{"./latgate.yaml is read", custom, nil, ExitRegression,
			"latgate: gate settings from latgate.yaml: total p50 (30%, floor 1ms); a regression 97.5% sure, an ok 90%, day-to-day noise 1% (local or sim endpoint) or 20% (any other) assumed without a history", "total p50", "ttft p50"},
		{"no ./latgate.yaml: the defaults, said so", "", nil, ExitRegression,
			"latgate: gate settings: the defaults (no --config, and no ./latgate.yaml): ttft p50 (15%, floor 1ms (timing resolution))", "ttft p50", "total p50"},
		{"--config wins over ./latgate.yaml", custom, []string{"--config", abs("latgate.yaml")}, ExitRegression,
			"gate settings from " + abs("latgate.yaml") + ": ttft p50", "ttft p50", "total p50"},
		{"a broken ./latgate.yaml is an error", "gate: [\n", nil, ExitUsage, "latgate.yaml:", "", ""},
		{"a missing --config is an error", "", []string{"--config", "nope.yaml"}, ExitUsage, "no config at nope.yaml", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.local != "" {
				if err := os.WriteFile(filepath.Join(dir, "latgate.yaml"), []byte(tt.local), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Chdir(dir)
			args := append(append([]string{"compare"}, tt.args...), baseline, results)
			code, out, errs := run(t, nil, args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errs)
			}
			if !strings.Contains(errs, tt.stderr) {
				t.Errorf("stderr does not say %q:\n%s", tt.stderr, errs)
			}
			if !strings.Contains(out, tt.stdout) || (tt.notStdout != "" && strings.Contains(out, tt.notStdout)) {
				t.Errorf("stdout should hold %q and not %q:\n%s", tt.stdout, tt.notStdout, out)
			}
		})
	}
}
