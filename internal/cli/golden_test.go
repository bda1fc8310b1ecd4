package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/internal/golden"
)

// TestCompareGolden pins the whole user-visible output of `latgate compare`
// on saved files: stdout, JUnit and Markdown. compare is deterministic (a
// seeded bootstrap), so the same files must give the same bytes, every run;
// and its text keeps to 100 columns, as at the defaults.
//
// The inputs in testdata/compare were made with:
//
//	latgate bless --config latgate.yaml --baseline baseline.json
//	latgate measure --config latgate.yaml --base-url 'sim:default?tokens=6&ttft_factor=1.6' --out results.json
func TestCompareGolden(t *testing.T) {
	dir := filepath.Join("testdata", "compare")
	t.Chdir(dir)
	out := t.TempDir()
	junit, md := filepath.Join(out, "junit.xml"), filepath.Join(out, "report.md")
	args := []string{"compare", "--config", "latgate.yaml", "--junit", junit, "--markdown", md, "baseline.json", "results.json"}

	code, stdout, stderr := run(t, nil, args...)
	if code != ExitRegression {
		t.Fatalf("exit %d, want 1\nstderr:\n%s", code, stderr)
	}
	again, stdout2, _ := run(t, nil, args...)
	if again != code || stdout2 != stdout {
		t.Errorf("a second run differs: exit %d vs %d, stdout diff (-first +second):\n%s", code, again, cmp.Diff(stdout, stdout2))
	}
	read := func(p string) string {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for i, line := range strings.Split(stdout, "\n") {
		if n := utf8.RuneCountInString(line); n > 100 {
			t.Errorf("stdout line %d: %d columns, want ≤ 100: %s", i+1, n, line)
		}
	}
	for name, got := range map[string]string{
		"stdout.golden":    stdout,
		"junit.golden.xml": read(junit),
		"report.golden.md": read(md),
	} {
		golden.Check(t, name, []byte(got))
	}
}
