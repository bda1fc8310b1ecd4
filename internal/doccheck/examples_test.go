package doccheck

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// floorComment is a comment that states a check's floor: "an absolute
// floor on itl p95 (5 ms)".
var floorComment = regexp.MustCompile(`floor on (ttft|ttfb|ttfct|itl|tpot|total) (p[0-9]+|mean) \(([0-9.]+) ?ms\)`)

// TestExampleCommentsMatch (#33 item 7): where an example config's
// comment states a check's floor in numbers, the config sets that floor
// (examples/ollama once said 20 ms where its check said floor: 5ms).
func TestExampleCommentsMatch(t *testing.T) {
	root := repoRoot(t)
	paths, err := filepath.Glob(filepath.Join(root, "examples", "*", "latgate.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	paths = append(paths, filepath.Join(root, "examples", "latgate.yaml"))
	stated := 0
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := config.Load(path, config.Options{Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		// A comment's sentence may wrap: join the comment lines.
		var comments []string
		for _, line := range strings.Split(string(data), "\n") {
			if _, c, ok := strings.Cut(line, "#"); ok {
				comments = append(comments, strings.TrimSpace(c))
			}
		}
		for _, m := range floorComment.FindAllStringSubmatch(strings.Join(comments, " "), -1) {
			stated++
			ms, _ := strconv.ParseFloat(m[3], 64)
			found := false
			for _, c := range cfg.Gate.Checks {
				if c.Metric == m[1] && c.Stat == m[2] {
					found = true
					if got := c.Tolerance.Floor; got != time.Duration(ms*float64(time.Millisecond)) {
						t.Errorf("%s: a comment says the floor on %s %s is %s ms; the check's floor is %v", path, m[1], m[2], m[3], got)
					}
				}
			}
			if !found {
				t.Errorf("%s: a comment states a floor on %s %s, which the config does not check", path, m[1], m[2])
			}
		}
	}
	if stated == 0 {
		t.Fatal("no example comment states a floor: the pattern no longer matches the examples")
	}
}

// TestExampleMetricsComment: the "Metrics:" comment of the example config
// (and of the one latgate init writes) names every metric a check may
// name; it once left out the share metrics, which take no stat.
func TestExampleMetricsComment(t *testing.T) {
	root := repoRoot(t)
	metrics := append(results.GatedMetrics(), results.ShareMetrics()...)
	for _, path := range []string{filepath.Join(root, "examples", "latgate.yaml"), filepath.Join(root, "pkg", "config", "example.yaml")} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		_, rest, ok := strings.Cut(string(data), "# Metrics:")
		if !ok {
			t.Errorf("%s has no \"# Metrics:\" comment", path)
			continue
		}
		var comment []string
		for _, line := range strings.Split(rest, "\n") {
			if len(comment) > 0 && !strings.HasPrefix(strings.TrimSpace(line), "#") {
				break
			}
			comment = append(comment, strings.TrimPrefix(strings.TrimSpace(line), "#"))
		}
		words := regexp.MustCompile(`[a-z_]+`).FindAllString(strings.Join(comment, " "), -1)
		var missing []string
		for _, m := range metrics {
			if !slices.Contains(words, m) {
				missing = append(missing, m)
			}
		}
		if d := cmp.Diff([]string(nil), missing); d != "" {
			t.Errorf("%s: the Metrics: comment misses metrics (-want +got):\n%s", path, d)
		}
	}
}
