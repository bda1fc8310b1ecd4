package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/latgate/latgate/pkg/compare"
)

// TestLimitVerdicts: a limit check reads as its limit in the text table,
// Markdown and JUnit, and a failing limit's next step is not "bless".
func TestLimitVerdicts(t *testing.T) {
	mk := func(prompt string, cur, lo, hi float64) compare.Check {
		c := compare.Check{Target: "t", Prompt: prompt, Metric: "ttft", Stat: "p95", Confidence: 0.95, NCur: 80, Max: 800,
			Current: cur, Lo: lo, Hi: hi}
		compare.DecideLimit(&c)
		return c
	}
	over, under := mk("a", 912, 871, 960), mk("b", 512, 490, 540)
	rep := compare.Report{Checks: []compare.Check{over, under}, Confidence: 0.95, Resamples: 2000}
	rep.Verdict = compare.Overall(rep.Checks, nil)
	opts := Options{Rerun: "latgate check", Bless: "latgate bless"}

	var text, md, junit bytes.Buffer
	for _, w := range []struct {
		f   func(*bytes.Buffer) error
		buf *bytes.Buffer
	}{
		{func(b *bytes.Buffer) error { return Verdicts(b, rep, opts) }, &text},
		{func(b *bytes.Buffer) error { return Markdown(b, rep, opts) }, &md},
		{func(b *bytes.Buffer) error { return JUnit(b, rep, opts) }, &junit},
	} {
		if err := w.f(w.buf); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name string
		got  string
		want []string
		not  []string
	}{
		{"text", text.String(), []string{
			"ttft p95 max", "[871, 960] ms", "max 800 ms",
			"REGRESSED, p95 912 ms [871, 960] > max 800 ms", "ok, p95 ≤ 800 ms ruled in",
			"FAIL: 1 prompt regression (t/a ttft p95 max 912 ms > 800 ms); 1 ok",
			"above an absolute limit", "raise that max",
		}, []string{"accept it as the new baseline"}},
		{"markdown", md.String(), []string{"❌ **regressed**, p95 912 ms \\[871, 960\\] \\> max 800 ms", "✅ ok, p95 ≤ 800 ms ruled in", "A *max* check"}, nil},
		{"junit", junit.String(), []string{
			`name="a ttft p95 max"`, `message="ttft p95 912 ms [95% CI 871, 960] &gt; max 800 ms"`,
			"limit:      p95 max 800 ms", `name="latgate.max_ms" value="800"`,
		}, nil},
	} {
		for _, w := range tt.want {
			if !strings.Contains(tt.got, w) {
				t.Errorf("%s does not contain %q:\n%s", tt.name, w, tt.got)
			}
		}
		for _, w := range tt.not {
			if strings.Contains(tt.got, w) {
				t.Errorf("%s contains %q:\n%s", tt.name, w, tt.got)
			}
		}
	}
}
