package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"github.com/google/go-cmp/cmp"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/latgate/latgate/internal/golden"
	"github.com/latgate/latgate/internal/trend"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/results"
)

func TestGolden(t *testing.T) {
	// The config's order, as check and compare pass it (the rows follow it).
	order := &Order{Targets: []string{"primary", "fallback@eu"}, Prompts: []string{"greeting", "summarize", "code-review", "faq", "legacy"},
		Checks: []string{"ttft p50", "ttft p95", "itl p50", "itl p95"}}
	fileOpts := Options{BaselinePath: "latgate.baseline.json", Results: "results.json", Order: order}
	strict := fileOpts
	strict.Strict = true
	tests := []struct {
		name  string
		write func(io.Writer) error
	}{
		{"verdicts_fail.txt", func(w io.Writer) error { return Verdicts(w, failReport(), fileOpts) }},
		{"verdicts_pass.txt", func(w io.Writer) error { return Verdicts(w, passReport(), Options{Order: order}) }},
		{"verdicts_strict.txt", func(w io.Writer) error { return Verdicts(w, passReport(), strict) }},
		{"verdicts_empty.txt", func(w io.Writer) error {
			return Verdicts(w, newReport(nil, nil, "nothing was compared: no check applies to a target and prompt present in both runs"), Options{})
		}},
		{"markdown_fail.md", func(w io.Writer) error { return Markdown(w, failReport(), fileOpts) }},
		{"markdown_strict.md", func(w io.Writer) error { return Markdown(w, passReport(), strict) }},
		{"summary_fail.md", func(w io.Writer) error { return GitHubSummary(w, failReport(), fileOpts) }},
		{"junit_fail.xml", func(w io.Writer) error {
			o := fileOpts
			o.Wall = failWall()
			return JUnit(w, failReport(), o)
		}},
		{"verdicts_changed.txt", func(w io.Writer) error { return Verdicts(w, changedReport(), fileOpts) }},
		{"markdown_changed.md", func(w io.Writer) error { return Markdown(w, changedReport(), fileOpts) }},
		{"junit_changed.xml", func(w io.Writer) error { return JUnit(w, changedReport(), fileOpts) }},
		{"annotations.txt", func(w io.Writer) error { return Annotations(w, awkwardReport(), Options{}, locate) }},
		{"verdicts_why.txt", func(w io.Writer) error { return Verdicts(w, whyReport(), fileOpts) }},
		{"markdown_why.md", func(w io.Writer) error { return Markdown(w, whyReport(), fileOpts) }},
		{"junit_why.xml", func(w io.Writer) error { return JUnit(w, whyReport(), fileOpts) }},
		{"annotations_why.txt", func(w io.Writer) error { return Annotations(w, whyReport(), Options{}, locate) }},
		{"blessdiff.txt", func(w io.Writer) error { return BlessDiff(w, blessChanges()) }},
		{"blessdiff_empty.txt", func(w io.Writer) error { return BlessDiff(w, nil) }},
		{"measure.txt", func(w io.Writer) error { return Measure(w, measureFile()) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tt.write(&buf); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", tt.name), buf.Bytes())
		})
	}
}

// The final line's status must agree with the exit code the CLI derives:
// FAIL on a regression, and under strict on an inconclusive check or an
// empty comparison.
func TestOutcomeStatus(t *testing.T) {
	reg := chk("t", "", "p", results.TTFT, "p50", 100, 200, 1.8, 2.2, ttftP50, 100)
	inc := chk("t", "", "p", results.TTFT, "p50", 100, 110, 0.9, 1.3, ttftP50, 100)
	ok := chk("t", "", "p", results.TTFT, "p50", 100, 100, 0.95, 1.05, ttftP50, 100)
	for _, c := range []struct {
		c    compare.Check
		want compare.Verdict
	}{{reg, compare.Regressed}, {inc, compare.Inconclusive}, {ok, compare.OK}} {
		if c.c.Verdict != c.want {
			t.Fatalf("test data: verdict %s, want %s", c.c.Verdict, c.want)
		}
	}
	tests := []struct {
		name   string
		checks []compare.Check
		strict bool
		want   string
	}{
		{"ok", []compare.Check{ok}, false, "PASS"},
		{"ok strict", []compare.Check{ok}, true, "PASS"},
		{"inconclusive", []compare.Check{ok, inc}, false, "PASS"},
		{"inconclusive strict", []compare.Check{ok, inc}, true, "FAIL (strict: inconclusive counts as failure)"},
		{"regressed", []compare.Check{ok, reg}, false, "FAIL"},
		{"regressed and inconclusive strict", []compare.Check{inc, reg}, true, "FAIL"},
		{"nothing compared", nil, false, "PASS"},
		{"nothing compared strict", nil, true, "FAIL (strict: inconclusive counts as failure)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, _ := outcome(newReport(tt.checks, nil), tt.strict)
			if status != tt.want {
				t.Errorf("status = %q, want %q", status, tt.want)
			}
			var buf bytes.Buffer
			if err := Verdicts(&buf, newReport(tt.checks, nil), Options{Strict: tt.strict}); err != nil {
				t.Fatal(err)
			}
			// The status line comes last, or, when the gate fails, just
			// before the next step.
			_, tail, _ := strings.Cut(buf.String(), "\n\n"+tt.want+": ")
			_, next, failing := strings.Cut(tail, "\nnext: ")
			switch {
			case tail == "":
				t.Errorf("no line starts with %q:\n%s", tt.want+": ", buf.String())
			case failing != strings.HasPrefix(tt.want, "FAIL"):
				t.Errorf("next step %q after %q; want one exactly when the gate fails", next, tt.want)
			}
		})
	}
}

// The verdict line names at most two regressions, the worst, then how many more.
func TestOutcomeListsRegressions(t *testing.T) {
	var cs []compare.Check
	for i := range 5 {
		cs = append(cs, chk("t", "", fmt.Sprintf("p%d", i), results.TTFT, "p50", 100, 200+float64(i), 1.8, 2.2, ttftP50, 100))
	}
	_, detail := outcome(newReport(cs, nil), false)
	for _, want := range []string{"5 prompt regressions (", "t/p4 ttft p50 +104%", "t/p3 ttft p50 +103%", "and 3 more"} {
		if !strings.Contains(detail, want) {
			t.Errorf("detail %q lacks %q", detail, want)
		}
	}
	if strings.Contains(detail, "t/p2 ") {
		t.Errorf("detail %q names a third regression", detail)
	}
}

// jsuites mirrors JUnit XML as a reader decodes it, independently of the
// junit package that writes it.
type jsuites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Time     string   `xml:"time,attr"`
	Suites   []struct {
		Name       string `xml:"name,attr"`
		Tests      int    `xml:"tests,attr"`
		Failures   int    `xml:"failures,attr"`
		Skipped    int    `xml:"skipped,attr"`
		Time       string `xml:"time,attr"`
		Properties []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []jcase `xml:"testcase"`
	} `xml:"testsuite"`
}

type jcase struct {
	Name       string `xml:"name,attr"`
	Classname  string `xml:"classname,attr"`
	Time       string `xml:"time,attr"`
	Properties []struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	} `xml:"properties>property"`
	Failure *jresult `xml:"failure"`
	Skipped *jresult `xml:"skipped"`
}

type jresult struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

func TestJUnitParses(t *testing.T) {
	rep := failReport()
	all := append(append([]compare.Check{}, rep.Checks...), rep.Aggregates...)
	byName := map[string]compare.Check{}
	var regressed, inconclusive int
	for _, c := range all {
		byName["latgate."+targetOf(c)+"|"+promptOf(c)+" "+checkOf(c)] = c
		switch c.Verdict {
		case compare.Regressed:
			regressed++
		case compare.Inconclusive:
			inconclusive++
		}
	}
	if regressed == 0 || inconclusive == 0 {
		t.Fatal("test data: the report needs regressions and inconclusive checks")
	}
	for _, strict := range []bool{false, true} {
		t.Run(fmt.Sprintf("strict=%v", strict), func(t *testing.T) {
			var buf bytes.Buffer
			wall := failWall()
			if err := JUnit(&buf, rep, Options{Strict: strict, BaselinePath: "b.json", Results: "r.json", Wall: wall}); err != nil {
				t.Fatal(err)
			}
			var got jsuites
			if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
				t.Fatalf("output does not parse: %v\n%s", err, buf.String())
			}
			wantFail, wantSkip := regressed, inconclusive
			if strict {
				wantFail, wantSkip = regressed+inconclusive, 0
			}
			if got.Tests != len(all) || got.Failures != wantFail || got.Skipped != wantSkip {
				t.Errorf("testsuites tests/failures/skipped = %d/%d/%d, want %d/%d/%d",
					got.Tests, got.Failures, got.Skipped, len(all), wantFail, wantSkip)
			}
			if !bytes.HasPrefix(buf.Bytes(), []byte(`<?xml version="1.0" encoding="UTF-8"?>`+"\n")) {
				t.Errorf("no XML declaration: %.60q", buf.String())
			}
			if got.Time != seconds(wall.Run) {
				t.Errorf("testsuites time %s, want the run's %s", got.Time, seconds(wall.Run))
			}
			if len(got.Suites) != 2 {
				t.Fatalf("%d suites, want one per target (2)", len(got.Suites))
			}
			seen := 0
			for _, s := range got.Suites {
				if !hasProperty(s.Properties, "latgate.baseline", "b.json") || !hasProperty(s.Properties, "latgate.results", "r.json") {
					t.Errorf("suite %s properties %v lack the provenance", s.Name, s.Properties)
				}
				var fails, skips int
				for _, tc := range s.Cases {
					c, ok := byName[tc.Classname+"|"+tc.Name]
					if !ok || tc.Classname != s.Name {
						t.Errorf("testcase %q classname %q matches no check of suite %s", tc.Name, tc.Classname, s.Name)
						continue
					}
					seen++
					// A case's time is its prompt's wall time; an aggregate's its target's.
					want := wall.Prompts[targetOf(c)][c.Prompt]
					if isAggregate(c) {
						want = wall.Targets[targetOf(c)]
					}
					if want == 0 || tc.Time != seconds(want) {
						t.Errorf("%s: time %q, want the wall time measuring it, %s", tc.Name, tc.Time, seconds(want))
					}
					props := map[string]string{}
					for _, p := range tc.Properties {
						props[p.Name] = p.Value
					}
					for name, v := range map[string]float64{"latgate.current_ms": c.Current, "latgate.baseline_ms": c.Baseline,
						"latgate.ratio": c.Ratio, "latgate.ci_low": c.Lo, "latgate.ci_high": c.Hi, "latgate.threshold": c.Threshold} {
						got, err := strconv.ParseFloat(props[name], 64)
						if err != nil || math.Abs(got-v) > 0.0005*max(1, v) {
							t.Errorf("%s: property %s = %q, want %g", tc.Name, name, props[name], v)
						}
					}
					if props["latgate.verdict"] != string(c.Verdict) || props["latgate.metric"] != c.Metric || props["latgate.stat"] != c.Stat {
						t.Errorf("%s: properties %v do not name the check and its verdict", tc.Name, props)
					}
					checkCase(t, tc, c, strict)
					if tc.Failure != nil {
						fails++
					}
					if tc.Skipped != nil {
						skips++
					}
				}
				if s.Tests != len(s.Cases) || s.Failures != fails || s.Skipped != skips {
					t.Errorf("suite %s counts %d/%d/%d disagree with its cases %d/%d/%d", s.Name, s.Tests, s.Failures, s.Skipped, len(s.Cases), fails, skips)
				}
				if want := seconds(wall.Targets[strings.TrimPrefix(s.Name, "latgate.")]); s.Time != want {
					t.Errorf("suite %s time %s, want its target's wall time %s", s.Name, s.Time, want)
				}
			}
			if seen != len(all) {
				t.Errorf("%d testcases matched checks, want %d", seen, len(all))
			}
		})
	}
}

// checkCase checks one testcase's result element against its check.
func checkCase(t *testing.T, tc jcase, c compare.Check, strict bool) {
	t.Helper()
	switch {
	case c.Verdict == compare.Regressed:
		if tc.Failure == nil || tc.Failure.Message != message(c) || !strings.Contains(tc.Failure.Body, c.Reason) {
			t.Errorf("%s: failure %+v, want message %q and the reason in the body", tc.Name, tc.Failure, message(c))
		}
	case c.Verdict == compare.Inconclusive && strict:
		if tc.Failure == nil || !strings.Contains(tc.Failure.Message, c.Reason) {
			t.Errorf("%s: failure %+v, want one carrying %q", tc.Name, tc.Failure, c.Reason)
		}
	case c.Verdict == compare.Inconclusive:
		if tc.Skipped == nil || !strings.Contains(tc.Skipped.Message, c.Reason) || tc.Failure != nil {
			t.Errorf("%s: skipped %+v, want one carrying %q", tc.Name, tc.Skipped, c.Reason)
		}
	default:
		if tc.Failure != nil || tc.Skipped != nil {
			t.Errorf("%s: %s check has a failure or skipped element", tc.Name, c.Verdict)
		}
	}
}

func hasProperty(props []struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}, name, value string) bool {
	for _, p := range props {
		if p.Name == name && p.Value == value {
			return true
		}
	}
	return false
}

// The failure message follows the documented style exactly.
func TestJUnitFailureMessage(t *testing.T) {
	c := chk("primary", "", "greeting", results.TTFT, "p95", 412, 569, 1.22, 1.55, ttftP95, 120)
	want := "ttft p95 +38% [95% CI +22%, +55%] > +15% tolerance (412 ms -> 569 ms)"
	if got := message(c); got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
}

func TestEscape(t *testing.T) {
	tests := []struct {
		in, data, prop string
	}{
		{"plain text", "plain text", "plain text"},
		{"100%", "100%25", "100%25"},
		{"a\r\nb", "a%0D%0Ab", "a%0D%0Ab"},
		{"k: v, w", "k: v, w", "k%3A v%2C w"},
		{"%0A", "%250A", "%250A"}, // an escape in the input stays literal
	}
	for _, tt := range tests {
		if got := escapeData(tt.in); got != tt.data {
			t.Errorf("escapeData(%q) = %q, want %q", tt.in, got, tt.data)
		}
		if got := escapeProperty(tt.in); got != tt.prop {
			t.Errorf("escapeProperty(%q) = %q, want %q", tt.in, got, tt.prop)
		}
	}
}

// Annotations stop at ten of each level and say how many more there were.
func TestAnnotationsCap(t *testing.T) {
	var checks []compare.Check
	for i := range 12 {
		checks = append(checks, chk("t", "", fmt.Sprintf("r%d", i), results.TTFT, "p50", 100, 200, 1.8, 2.2, ttftP50, 100))
	}
	for i := range 8 {
		checks = append(checks, chk("t", "", fmt.Sprintf("i%d", i), results.TTFT, "p50", 100, 110, 0.9, 1.3, ttftP50, 100))
	}
	rep := newReport(checks, nil, "w1", "w2", "w3")
	var buf bytes.Buffer
	if err := Annotations(&buf, rep, Options{}, nil); err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	var notice string
	for line := range strings.Lines(buf.String()) {
		level, _, _ := strings.Cut(strings.TrimPrefix(line, "::"), " ")
		count[level]++
		if level == "notice" {
			notice = line
		}
	}
	if count["error"] != 10 || count["warning"] != 10 || count["notice"] != 1 {
		t.Errorf("annotations by level %v, want 10 errors, 10 warnings, 1 notice", count)
	}
	if !strings.Contains(notice, "2 regressions and 1 warning more") {
		t.Errorf("notice %q does not count the 2 regressions and 1 warning left out", notice)
	}
	if strings.Contains(buf.String(), "file=") {
		t.Error("a nil locate placed an annotation in a file")
	}
}

func TestMermaidString(t *testing.T) {
	tests := []struct {
		in, suffix string
		n          int
		want       string
	}{
		{"greeting", "", 20, `"greeting"`},
		{"greeting", " p95", 20, `"greeting p95"`},
		{`say "hi"`, "", 20, `"say _hi_"`},
		{"100%% done; #quot;", "", 20, `"100__ done_ _quot_"`},
		{"a`b\nc", "", 20, `"a_b_c"`},
		{"résumé, v2: (long)", "", 20, `"résumé, v2: (long)"`},
		{"abcdefghijklmnopqrstuvwxyz", "", 10, `"abcdefghi…"`},
		{"abcdefghijklmnopqrstuvwxyz", " p50", 10, `"abcdefghi… p50"`},
		{"abcdefghij", " p50", 10, `"abcdefghij p50"`},
	}
	for _, tt := range tests {
		if got := mermaidString(tt.in, tt.n, tt.suffix); got != tt.want {
			t.Errorf("mermaidString(%q, %d, %q) = %s, want %s", tt.in, tt.n, tt.suffix, got, tt.want)
		}
	}
}

func TestNiceCeil(t *testing.T) {
	for _, v := range []float64{0.3, 1, 7, 12, 99, 101, 626, 1234, 99999} {
		got := niceCeil(v)
		if got < v || got > 1.5*v {
			t.Errorf("niceCeil(%g) = %g, want in [v, 1.5v]", v, got)
		}
	}
}

// Writers report the first write error.
func TestWriteError(t *testing.T) {
	boom := errors.New("boom")
	writers := map[string]func(io.Writer) error{
		"Verdicts":      func(w io.Writer) error { return Verdicts(w, failReport(), Options{}) },
		"Markdown":      func(w io.Writer) error { return Markdown(w, failReport(), Options{}) },
		"GitHubSummary": func(w io.Writer) error { return GitHubSummary(w, failReport(), Options{}) },
		"JUnit":         func(w io.Writer) error { return JUnit(w, failReport(), Options{}) },
		"Annotations":   func(w io.Writer) error { return Annotations(w, failReport(), Options{}, locate) },
		"BlessDiff":     func(w io.Writer) error { return BlessDiff(w, blessChanges()) },
		"Measure":       func(w io.Writer) error { return Measure(w, measureFile()) },
	}
	for name, write := range writers {
		if err := write(failWriter{boom}); !errors.Is(err, boom) {
			t.Errorf("%s on a failing writer: %v, want %v", name, err, boom)
		}
	}
}

type failWriter struct{ err error }

func (f failWriter) Write([]byte) (int, error) { return 0, f.err }

// A chart keeps the prompts with the largest changes, and needs two
// categories for its baseline line to show.
func TestChartPrompts(t *testing.T) {
	var checks []compare.Check
	for i := range 10 {
		cur := 101 + float64(i) // p9 changes most, p0 least
		for _, stat := range []string{"p50", "p95"} {
			checks = append(checks, chk("t", "", fmt.Sprintf("p%d", i), results.TTFT, stat, 100, cur, 0.99, 1.12, ttftP50, 100))
		}
	}
	var buf bytes.Buffer
	writeChart(&buf, "t", checks)
	chart := buf.String()
	if n := strings.Count(chart, " p50\""); n != maxChartPrompts {
		t.Errorf("chart has %d p50 categories, want %d:\n%s", n, maxChartPrompts, chart)
	}
	if !strings.Contains(chart, `"p9 p95"`) || strings.Contains(chart, `"p0 p50"`) {
		t.Errorf("chart should keep p9 (largest change) and drop p0 (smallest):\n%s", chart)
	}
	if !strings.Contains(chart, "8 of 10 prompts") {
		t.Errorf("chart title does not say it shows 8 of 10 prompts:\n%s", chart)
	}

	buf.Reset()
	writeChart(&buf, "t", checks[:1])
	if buf.Len() != 0 {
		t.Errorf("one category drew a chart:\n%s", buf.String())
	}
}

// Prompt regressions are counted apart from the pooled checks that combine
// them, and a failing gate ends with the next step, commands included: never
// "re-run until it passes", an unplanned look.
func TestOutcomeSplitsAggregates(t *testing.T) {
	p := chk("t", "", "p0", results.TTFT, "p50", 100, 200, 1.8, 2.2, ttftP50, 100)
	a := chk("t", "", "", results.TTFT, "p50", 100, 190, 1.7, 2.1, ttftP50, 100)
	rep := newReport([]compare.Check{p}, []compare.Check{a})
	_, detail := outcome(rep, false)
	for _, want := range []string{"1 prompt regression (t/p0 ttft p50 +100%)", "1 all-prompts regression ("} {
		if !strings.Contains(detail, want) {
			t.Errorf("detail %q lacks %q", detail, want)
		}
	}
	var buf bytes.Buffer
	if err := Verdicts(&buf, rep, Options{Rerun: "latgate check --config c.yaml", Bless: "latgate bless --config c.yaml"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"next: if the slowdown is not intended", "to confirm it, compare both sides in one run: latgate ab", "accept it as the new baseline: latgate bless --config c.yaml"} {
		if !strings.Contains(strings.Join(strings.Fields(buf.String()), " "), want) {
			t.Errorf("output lacks %q:\n%s", want, buf.String())
		}
	}
}

// TestJUnitControlCharacters: text from a file latgate did not write (a
// hand-edited baseline's model name, a history record's runner) can hold
// control characters; the JUnit reports must still parse, or every JUnit
// publisher drops the whole report.
func TestJUnitControlCharacters(t *testing.T) {
	const hostile = "m\x1b[31mRED\x1b]0;t\x07\x00\x0b end"
	tests := []struct {
		name   string
		render func(io.Writer) error
	}{
		{"check", func(w io.Writer) error {
			rep := failReport()
			rep.Warnings = append(rep.Warnings, "the baseline was blessed with "+hostile)
			return JUnit(w, rep, Options{Blessed: "blessed on " + hostile})
		}},
		{"trend", func(w io.Writer) error {
			return TrendJUnit(w, trend.Report{}, []string{"the endpoint now returns model " + hostile}, TrendOptions{Baseline: hostile})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tt.render(&buf); err != nil {
				t.Fatal(err)
			}
			dec := xml.NewDecoder(&buf)
			for {
				_, err := dec.Token()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("the report does not parse: %v", err)
				}
			}
		})
	}
}

// TestTuneNumbers: the tolerances and floors tune prints are pasted into a
// config, so float arithmetic must not show through.
func TestTuneNumbers(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{tolPct(2.3), "230%"},
		{tolPct(1.14), "114%"},
		{tolPct(0.09), "9%"},
		{tolPct(0.125), "12.5%"},
		{yamlMS(0.35000000000000003), "0.35ms"},
		{yamlMS(0.034), "0.034ms"},
		{yamlMS(13), "13ms"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

// TestDifferenceScaleRendering: a check decided on current − baseline (a
// side's interval reaches 0 ms) reads in ms, not as a ratio.
func TestDifferenceScaleRendering(t *testing.T) {
	mk := func(base, cur, lo, hi float64) compare.Check {
		c := compare.Check{Target: "t", Prompt: "p", Metric: results.ITL, Stat: "p50", Baseline: base, Current: cur,
			Lo: lo, Hi: hi, Confidence: 0.95, Tolerance: itlP50, NBase: 60, NCur: 60, GapsBase: 2400, GapsCur: 2400,
			Scale: compare.ScaleDifference, Margin: 0.25}
		compare.Decide(&c)
		return c
	}
	up, same := mk(0, 3, 2.5, 3.5), mk(0.07, 0, -0.08, -0.05)
	var buf bytes.Buffer
	if err := Verdicts(&buf, newReport([]compare.Check{up, same}, nil), Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"+3.00 ms [+2.50, +3.50]", "REGRESSED", "-0.07 ms [-0.08, -0.05]", "+0.25 ms  ok"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, buf.String())
		}
	}
	if strings.Contains(buf.String(), "-105%") || strings.Contains(buf.String(), "+250%") {
		t.Errorf("a difference read as a ratio:\n%s", buf.String())
	}
}

// TestGoldenWidth: the text a person reads keeps to 100 columns,
// benchstat-like: the verdict tables, the measurement table and every line
// of prose under them; a failing check, a check after a config change (its
// labels moved under their rows, #33), several targets, and the trend.
func TestGoldenWidth(t *testing.T) {
	for _, name := range []string{"verdicts_pass.txt", "verdicts_strict.txt", "verdicts_empty.txt", "measure.txt",
		"verdicts_fail.txt", "verdicts_changed.txt", "verdicts_why.txt", "trend.txt", "blessdiff.txt"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if n := utf8.RuneCountInString(line); n > lineWidth {
				t.Errorf("%s:%d: %d columns, want ≤ %d: %s", name, i+1, n, lineWidth, line)
			}
		}
	}
}

// TestWide: --wide keeps the tables' every column on its line: the labels
// of a check after a config change, the trend's last change point.
func TestWide(t *testing.T) {
	var narrow, wide strings.Builder
	if err := Verdicts(&narrow, changedReport(), Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Verdicts(&wide, changedReport(), Options{Wide: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(narrow.String(), "↳ changed since baseline: ") {
		t.Errorf("the narrow table does not move its labels under the rows:\n%s", narrow.String())
	}
	widest := 0
	for line := range strings.Lines(wide.String()) {
		widest = max(widest, utf8.RuneCountInString(strings.TrimRight(line, "\n")))
	}
	if strings.Contains(wide.String(), "↳ changed since baseline: ") || !strings.Contains(wide.String(), "  changed\n") || widest <= lineWidth {
		t.Errorf("--wide does not keep the labels column (%d columns at most):\n%s", widest, wide.String())
	}
}

// TestFitTableScope: a moved label is said once per scope: a target's
// model change under its first row only, a prompt's edit under each edited
// prompt's first row, even when two edited prompts follow each other.
func TestFitTableScope(t *testing.T) {
	wide := strings.Repeat("x", 90)
	rows := [][]string{{"prompt", "check", "changed"},
		{"p1", wide, "edited"}, {"p1", wide, "edited"}, {"p2", wide, "edited"}, {"p3", wide, "model a → b"}, {"p4", wide, "model a → b"}}
	scope := []string{"t/p1", "t/p1", "t/p2", "t", "t"}
	notes := map[int]string{}
	got, moved := fitTable(rows, notes, 2, "changed since baseline: ", "", func(i int) string { return scope[i] }, false)
	if !moved || len(got[1]) != 2 {
		t.Fatalf("the labels column was not moved: %v", got)
	}
	want := map[int]string{1: "  ↳ changed since baseline: edited", 3: "  ↳ changed since baseline: edited", 4: "  ↳ changed since baseline: model a → b"}
	if diff := cmp.Diff(want, notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}
