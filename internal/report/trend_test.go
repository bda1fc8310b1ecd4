package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latgate/latgate/internal/golden"
	"github.com/latgate/latgate/internal/history"
	"github.com/latgate/latgate/internal/trend"
	"github.com/latgate/latgate/pkg/stats"
)

// trendReport analyses a seeded 24-run history of two prompts: "greeting"
// 30% slower from run 15, "summarize" flat; the baseline was blessed before
// the first run.
func trendReport() trend.Report {
	recs, spec := trendInput()
	return trend.Analyze(recs, spec, trend.Options{})
}

func trendInput() ([]history.Record, trend.Spec) {
	rng := rand.New(rand.NewPCG(4, 4))
	t0 := time.Date(2026, 11, 1, 3, 0, 0, 0, time.UTC)
	var recs []history.Record
	for k := 1; k <= 24; k++ {
		r := history.Record{Schema: history.Schema, At: t0.AddDate(0, 0, k-1), Commit: "0123456789abcdef" + string(rune('a'+k%26)),
			Targets: []history.Target{{Name: "primary"}}}
		for _, p := range []string{"greeting", "summarize"} {
			scale := 1.0
			if p == "greeting" && k >= 15 {
				scale = 1.3
			}
			v := 120 * scale * math.Exp(0.04*rng.NormFloat64())
			r.Targets[0].Prompts = append(r.Targets[0].Prompts, history.Prompt{ID: p, Metrics: map[string]history.Stats{"ttft": history.MakeStats(60, map[string]float64{"p50": v, "p95": 1.5 * v})}})
		}
		recs = append(recs, r)
	}
	spec := trend.Spec{BlessedAt: t0.Add(-time.Hour)}
	for _, p := range []string{"greeting", "summarize"} {
		spec.Series = append(spec.Series, trend.SeriesSpec{Target: "primary", Prompt: p, Metric: "ttft", Stat: stats.Stat{P: 0.5}, Tolerance: 0.15, FloorMS: 20, Baseline: 120})
	}
	return recs, spec
}

func TestTrendGolden(t *testing.T) {
	rep := trendReport()
	warnings := []string{"the baseline is stale: blessed 2026-10-31 (30 days ago)"}
	opts := TrendOptions{History: "latgate.history.jsonl", Chart: 20, Baseline: "latgate.baseline.json, blessed 2026-10-31 02:00 UTC at commit abc on Linux/X64 runner-1"}
	tests := []struct {
		name  string
		write func(io.Writer) error
	}{
		{"trend.txt", func(w io.Writer) error { return TrendText(w, rep, warnings, opts) }},
		{"trend.md", func(w io.Writer) error { return TrendMarkdown(w, rep, warnings, opts) }},
		{"trend_junit.xml", func(w io.Writer) error { return TrendJUnit(w, rep, warnings, opts) }},
		{"trend_annotations.txt", func(w io.Writer) error { return TrendAnnotations(w, rep, warnings) }},
		{"trend.html", func(w io.Writer) error { return TrendHTML(w, rep, warnings, opts) }},
		{"tune.yaml", func(w io.Writer) error {
			recs, spec := trendInput()
			return TuneYAML(w, trend.Tune(recs, spec, trend.TuneOptions{}), "latgate.history.jsonl")
		}},
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
	if rep.Verdict != trend.Regressed {
		t.Fatalf("verdict %s: the golden files would not show a regression", rep.Verdict)
	}
}

func TestTrendChart(t *testing.T) {
	rep := trendReport()
	s, _ := rep.Headline.Get(rep)
	var buf bytes.Buffer
	TrendChart(&buf, s, 12)
	chart := buf.String()
	for _, want := range []string{"xychart-beta", `"15 change"`, `x-axis "run" ["13", "14", "15 change"`, "last 12 runs"} {
		if !strings.Contains(chart, want) {
			t.Errorf("chart lacks %q:\n%s", want, chart)
		}
	}
	if n := strings.Count(chart, "    line ["); n != 4 {
		t.Errorf("%d lines, want 4 (runs, segment means, p95, tolerance limit)", n)
	}
	// Every line has one value per run.
	for _, l := range strings.Split(chart, "\n") {
		if strings.HasPrefix(l, "    line [") && strings.Count(l, ",") != 11 {
			t.Errorf("line with %d values, want 12: %s", strings.Count(l, ",")+1, l)
		}
	}
}

func TestTrendJUnitParses(t *testing.T) {
	var buf bytes.Buffer
	if err := TrendJUnit(&buf, trendReport(), nil, TrendOptions{}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Suites []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 2 {
		t.Fatalf("%+v", doc)
	}
	c := doc.Suites[0].Cases
	if c[0].Name != "primary greeting ttft p50" || c[0].Failure == nil || c[1].Failure != nil {
		t.Errorf("cases %+v: want greeting failed, summarize not", c)
	}
}

// TestTrendStandingAlarm: a series failed by an alarm an earlier night
// raised says so in every format: the night it was raised, that night's
// interval, and that it stands until a bless.
func TestTrendStandingAlarm(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 3, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(21, 7))
	var values []float64
	for k := range 19 {
		scale := 1.0
		if k >= 15 {
			scale = 1.45
		}
		values = append(values, 100*scale*math.Exp(0.02*rng.NormFloat64()))
	}
	values = append(values, 100, 150, 100, 150, 100, 150, 100, 150)
	var recs []history.Record
	for k, v := range values {
		recs = append(recs, history.Record{Schema: history.Schema, At: t0.AddDate(0, 0, k),
			Targets: []history.Target{{Name: "primary", Prompts: []history.Prompt{{ID: "greeting",
				Metrics: map[string]history.Stats{"ttft": history.MakeStats(60, map[string]float64{"p50": v, "p95": 1.5 * v})}}}}}})
	}
	spec := trend.Spec{BlessedAt: t0.Add(-time.Hour), Series: []trend.SeriesSpec{{Target: "primary", Prompt: "greeting", Metric: "ttft", Stat: stats.Stat{P: 0.5}, Tolerance: 0.20, FloorMS: 1, Baseline: 100}}}
	rep := trend.Analyze(recs, spec, trend.Options{})
	c := rep.Series[0].Changes[len(rep.Series[0].Changes)-1]
	if rep.Standing != 1 || c.Raised == nil {
		t.Fatalf("fixture: standing %d, change %+v: want an alarm raised on an earlier night", rep.Standing, c)
	}
	want := fmt.Sprintf("found beyond the +20%% tolerance when the history had %d runs", c.Raised.Runs)
	for name, write := range map[string]func(io.Writer) error{
		"text":     func(w io.Writer) error { return TrendText(w, rep, nil, TrendOptions{}) },
		"markdown": func(w io.Writer) error { return TrendMarkdown(w, rep, nil, TrendOptions{}) },
		"junit":    func(w io.Writer) error { return TrendJUnit(w, rep, nil, TrendOptions{}) },
	} {
		var buf bytes.Buffer
		if err := write(&buf); err != nil {
			t.Fatal(err)
		}
		got := strings.Join(strings.Fields(buf.String()), " ")
		if !strings.Contains(got, want) || !strings.Contains(got, "the alarm stands until a bless") {
			t.Errorf("%s: want %q and that it stands; got:\n%s", name, want, buf.String())
		}
	}
}

// TestTuneRefusesWhatItCannotSupport (#30): a series whose proposal would
// be above +100% gets none: the YAML keeps its configured tolerance, and a
// comment says why and how many runs would support one (or that none
// would).
func TestTuneRefusesWhatItCannotSupport(t *testing.T) {
	spec := func(prompt string) trend.SeriesSpec {
		return trend.SeriesSpec{Target: "primary", Prompt: prompt, Metric: "itl", Stat: stats.Stat{P: 0.5}, Tolerance: 0.15, FloorMS: 2}
	}
	rep := trend.TuneReport{Proposals: []trend.Proposal{
		{SeriesSpec: spec("greeting"), Runs: 14, Noise: trend.Noise{Sigma: 0.3}, Upper: 0.69, Tolerance: 0.15, FloorMS: 2, Refused: true, NeedRuns: 117},
		{SeriesSpec: spec("summarize"), Runs: 14, Noise: trend.Noise{Sigma: 0.04}, Upper: 0.06, Tolerance: 0.31, FloorMS: 2},
		{SeriesSpec: spec("chat"), Runs: 14, Noise: trend.Noise{Sigma: 0.9}, Upper: 1.2, Tolerance: 0.15, FloorMS: 2, Refused: true},
	}}
	var buf bytes.Buffer
	if err := TuneYAML(&buf, rep, "h.jsonl"); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	for _, want := range []string{
		"# no proposal: greeting itl p50: its σ 30% is known only up to 69% from 14 runs, and a tolerance for that would be above 100%; about 117 runs would support one. Its configured tolerance is kept\n",
		"# no proposal: chat itl p50: its σ 90% is known only up to 120% from 14 runs, and a tolerance for that would be above 100% however many runs: it varies more than a tolerance can gate (an absolute limit, max:, may). Its configured tolerance is kept\n",
		"    - {metric: itl, stat: p50, tolerance: 31%, floor: 2ms}   # σ 4.0% (≤ 6.0%), 14 runs",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("tune's YAML lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "overrides:") || strings.Contains(got, "no proposal: summarize") {
		t.Errorf("a refused series became an override, or a supported one was refused:\n%s", got)
	}
}

// TestTrendHTMLLinksCommits (#33 item 9): a run whose record has its
// commit's page links the chart's dot to it, and the verdict table's last
// change point to the run after it; a hostile record's javascript: or
// quoted URL links nothing. The statistics sit behind a details element.
func TestTrendHTMLLinksCommits(t *testing.T) {
	recs, spec := trendInput()
	for k := range recs {
		recs[k].CommitURL = "https://github.com/acme/app/commit/" + recs[k].Commit
	}
	recs[3].CommitURL = `javascript:alert(1)`
	recs[4].CommitURL = `https://x.invalid/"><script>alert(1)</script>`
	for k := range recs { // as the history file reads them back
		recs[k].CommitURL = history.SafeURL(recs[k].CommitURL)
	}
	rep := trend.Analyze(recs, spec, trend.Options{})
	var b strings.Builder
	if err := TrendHTML(&b, rep, nil, TrendOptions{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if n := strings.Count(page, `<a href="https://github.com/acme/app/commit/`); n < 2*(len(recs)-2) {
		t.Errorf("%d commit links, want one per run of each chart (%d) and the change point's", n, 2*(len(recs)-2))
	}
	change := rep.Series[0].Changes[len(rep.Series[0].Changes)-1]
	if want := `<td><a href="https://github.com/acme/app/commit/` + recs[rep.Series[0].Points[change.Index].Run].Commit + `">`; !strings.Contains(page, want) {
		t.Errorf("the last change point does not link its run's commit (%s)", want)
	}
	for _, bad := range []string{"javascript:", "<script>", "x.invalid"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q from a hostile record", bad)
		}
	}
	if !strings.Contains(page, `<details class="stats"><summary>statistics</summary>`) {
		t.Error("the statistics are not behind a details element")
	}
}

func TestSafeURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://github.com/acme/app/commit/abc":     "https://github.com/acme/app/commit/abc",
		"http://gitlab.local/g/p/-/commit/abc":       "http://gitlab.local/g/p/-/commit/abc",
		"javascript:alert(1)":                        "",
		"data:text/html,x":                           "",
		"https://user:pw@github.com/x":               "",
		"https://github.com/x\"onmouseover=alert(1)": "",
		"https://github.com/a b":                     "",
		"//github.com/x":                             "",
		"https://github.com/x\n":                     "",
		"https://github.com/<x>":                     "",
		"https://github.com/x\u202e":                 "", // a bidi override
	} {
		if got := history.SafeURL(in); got != want {
			t.Errorf("SafeURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDriftTextNotCompared: a series without a drift against the baseline
// is "not compared" (too few runs, or a statistic the baseline lacks), not
// "no baseline" beside a head that names one.
func TestDriftTextNotCompared(t *testing.T) {
	if got := driftText(nil); got != "not compared" {
		t.Errorf("driftText(nil) = %q, want %q", got, "not compared")
	}
}
