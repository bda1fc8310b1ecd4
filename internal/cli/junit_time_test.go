package cli

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/latgate/latgate/pkg/results"
)

const junitTimeConfig = `targets:
  - name: sim
    base_url: "sim:fixed?ttft=5ms&itl=1ms&tokens=8"
    model: sim
    max_tokens: 16
prompts:
  - id: a
    messages:
      - {role: user, content: "one"}
  - id: b
    messages:
      - {role: user, content: "two"}
run:
  requests: 12
  warmup: 1
  concurrency: 1
gate:
  checks:
    - {metric: ttft, stat: p50, tolerance: 50%, floor: 20ms}
`

// TestJUnitTimesAreWallTimes runs check on the simulator and reads the JUnit
// times back: a testcase's is the wall time measuring its prompt (at least
// the sum of its requests' durations in the results file, at concurrency
// 1), an aggregate's and the suite's the target's, the root's the run's.
func TestJUnitTimesAreWallTimes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures the simulator")
	}
	dir := t.TempDir()
	cfg := writeConfig(t, dir, junitTimeConfig)
	if code, out, errs := run(t, nil, "bless", "--config", cfg, "--quiet"); code != ExitPass {
		t.Fatalf("bless exit %d\n%s\n%s", code, out, errs)
	}
	junitPath, resultsPath := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "results.json")
	if code, out, errs := run(t, nil, "check", "--config", cfg, "--quiet", "--junit", junitPath, "--out", resultsPath); code != ExitPass {
		t.Fatalf("check exit %d\n%s\n%s", code, out, errs)
	}
	data, err := os.ReadFile(junitPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Time   string `xml:"time,attr"`
		Suites []struct {
			Time  string `xml:"time,attr"`
			Cases []struct {
				Name string `xml:"name,attr"`
				Time string `xml:"time,attr"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	f, err := results.Read(resultsPath)
	if err != nil {
		t.Fatal(err)
	}
	secs := func(s string) float64 {
		t.Helper()
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("time %q: %v", s, err)
		}
		return v
	}
	// The durations of a prompt's measured requests; its wall time also
	// holds its warmup request and the client's own time around each.
	sumTotal := map[string]float64{}
	for _, p := range f.Targets[0].Prompts {
		for _, s := range p.Samples {
			sumTotal[p.ID] += s.Total / 1000
		}
	}
	runSecs := f.FinishedAt.Sub(f.StartedAt).Seconds()
	if len(doc.Suites) != 1 {
		t.Fatalf("%d suites, want 1", len(doc.Suites))
	}
	suite := secs(doc.Suites[0].Time)
	if root := secs(doc.Time); root < suite || root > runSecs+0.002 {
		t.Errorf("testsuites time %g, want the run's %g (at least the suite's %g)", root, runSecs, suite)
	}
	var sumPrompts float64
	for _, c := range doc.Suites[0].Cases {
		got := secs(c.Time)
		switch c.Name {
		case "a ttft p50", "b ttft p50":
			id := c.Name[:1]
			sumPrompts += got
			if got < sumTotal[id]-0.002 || got > suite {
				t.Errorf("%s: time %g s, want between its requests' %g s and the target's %g s", c.Name, got, sumTotal[id], suite)
			}
		case "all prompts (pooled) ttft p50":
			if got != suite {
				t.Errorf("aggregate time %g, want the target's %g", got, suite)
			}
		default:
			t.Errorf("unexpected testcase %q", c.Name)
		}
	}
	// At concurrency 1 the prompts take turns: their times add up to no
	// more than the target's.
	if sumPrompts > suite+0.002 || sumPrompts < 0.5*suite {
		t.Errorf("prompts' times add up to %g s, want about the target's %g s", sumPrompts, suite)
	}
}
