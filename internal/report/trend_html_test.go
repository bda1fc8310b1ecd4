package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/latgate/latgate/internal/history"
	"github.com/latgate/latgate/internal/trend"
)

// TestTrendHTMLStructure: the page has one chart per series, the change
// point marked (a regression in red) with its interval, the baseline's
// tolerance band, the bless date, the table of verdicts linking to the
// charts, and nothing to load from anywhere: no script, no external
// reference, a Content-Security-Policy that forbids them.
func TestTrendHTMLStructure(t *testing.T) {
	recs, spec := trendInput()
	for i := range recs {
		recs[i].BlessedAt = spec.BlessedAt
	}
	rep := trend.Analyze(recs, spec, trend.Options{})
	var buf bytes.Buffer
	if err := TrendHTML(&buf, rep, []string{"a <warning> & more"}, TrendOptions{History: "h.jsonl", Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	count := func(re string) int { return len(regexp.MustCompile(re).FindAllString(page, -1)) }
	if got := count(`<svg class="chart"`); got != len(rep.Series) {
		t.Errorf("%d charts for %d series", got, len(rep.Series))
	}
	if count(`<section class="series" id="series-\d+">`) != len(rep.Series) || count(`<a href="#series-\d+">`) != len(rep.Series) {
		t.Error("each series needs a section and a row linking to it")
	}
	for _, want := range []string{
		`data-series="primary/greeting ttft p50" data-runs="24" data-changes="1" data-verdict="regressed"`,
		`<line class="change regression" data-run="15"`,
		`<rect class="interval  regression"`,
		`<rect class="band"`, `<line class="baseline"`, `<line class="limit"`,
		`<text class="lab-bless"`, `blessed 2026-11-01`,
		`<path class="p95"`, `<path class="level"`, `<path class="stat"`,
		`<table id="verdicts">`, `class="v-regressed">REGRESSED</td>`,
		`a &lt;warning&gt; &amp; more`,
		`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	for _, banned := range []string{"<script", "http://", "https://", "@import", "url(", "<img", "<link"} {
		if strings.Contains(page, banned) {
			t.Errorf("the page holds %q: it must load nothing", banned)
		}
	}
	if count(`<circle class="dot"`) != 48 {
		t.Errorf("%d run dots, want 48 (24 runs × 2 series)", count(`<circle class="dot"`))
	}
}

// TestTrendHTMLEscapes: names from the history (a prompt id written into
// the history branch) are text, never markup.
func TestTrendHTMLEscapes(t *testing.T) {
	recs, spec := trendInput()
	const hostile = `x"><script>alert(1)</script>`
	for i := range recs {
		recs[i].Targets[0].Prompts[0].ID = hostile
	}
	spec.Series[0].Prompt = hostile
	var buf bytes.Buffer
	if err := TrendHTML(&buf, trend.Analyze(recs, spec, trend.Options{}), nil, TrendOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "<script") {
		t.Errorf("a prompt id became markup")
	}
	_ = history.Schema
}
