package cli

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/internal/golden"
)

// TestWhyGolden pins the attribution lines (#22) in every report format,
// text, Markdown and JUnit, as `latgate compare` prints them for a real
// regression run on the simulator. compare is deterministic on saved files
// (a seeded bootstrap), so the same files give the same bytes.
//
// The inputs in testdata/why are one bless and one measured run:
//
//	latgate bless --config baseline.yaml --baseline baseline.json
//	latgate measure --config latgate.yaml --out results.json
//
// baseline.yaml's target sim caches prompts (cache=on, 200 µs of prefill
// per uncached prompt token) and edge streams; latgate.yaml, the current
// side, stops sim's cache, doubles prompt notes, buffers edge's stream and
// asks edge for a model whose name holds Markdown, a link, a workflow
// command and a backquote, which the simulator returns (results.json's
// returned model adds mentions, a bare URL, a www. name, an e-mail address
// and references to it). So each cause has
// a row: the cache (sim/faq), the longer input (sim/notes), the buffered
// stream and the returned model (edge), sanitised in each format.
func TestWhyGolden(t *testing.T) {
	t.Chdir(filepath.Join("testdata", "why"))
	out := t.TempDir()
	junit, md := filepath.Join(out, "junit.xml"), filepath.Join(out, "report.md")
	code, stdout, stderr := run(t, nil, "compare", "--config", "latgate.yaml", "--junit", junit, "--markdown", md, "baseline.json", "results.json")
	if code != ExitRegression {
		t.Fatalf("exit %d, want 1\nstderr:\n%s", code, stderr)
	}
	read := func(p string) string {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	report, junitXML := read(md), read(junit)

	// What the goldens must show, whatever they hold: each cause under its
	// row, in each format.
	for _, tt := range []struct{ row, why string }{
		{`sim\s+faq\s+ttft p50.*REGRESSED`, "cache stopped hitting: 99% → 0% of prompt tokens cached"},
		{`sim\s+faq\s+cache_hit_rate.*REGRESSED`, "cache stopped hitting: 99% → 0% of prompt tokens cached"},
		{`sim\s+notes\s+ttft p50.*REGRESSED`, "input got longer: 497 → 987 prompt tokens"},
		{`edge\s+faq\s+stream_integrity.*REGRESSED`, "the stream is buffered: something between you and the model holds it until the end"},
		{`edge\s+faq\s+ttft p50.*REGRESSED`, "the stream is buffered"},
	} {
		if why := whyOf(t, stdout, tt.row); !strings.HasPrefix(why, tt.why) {
			t.Errorf("text: why under %s = %q, want it to start with %q", tt.row, why, tt.why)
		}
	}
	for _, want := range []string{
		"- **notes ttft p50** +41% — input got longer: 497 → 987 prompt tokens",
		"- **faq cache\\_hit\\_rate** — cache stopped hitting: 99% → 0% of prompt tokens cached",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
	if !strings.Contains(junitXML, `<property name="latgate.why" value="input got longer: 497 → 987 prompt tokens">`) {
		t.Errorf("JUnit lacks the latgate.why property of sim/notes")
	}

	// The hostile model name is inert in each: no Markdown emphasis or link,
	// no workflow command, well-formed XML.
	if strings.Contains(report, "**bold**") || strings.Contains(report, "[x](") {
		t.Errorf("Markdown holds the model name's markup unescaped")
	}
	// The returned model (results.json) also mentions people and teams,
	// and holds a bare URL, a www. name, an e-mail address and references
	// (#27 item 3): in the Markdown, which becomes a PR comment, none of
	// them may mention, link or reference anything.
	if !strings.Contains(report, "octocat") {
		t.Fatalf("the returned model's text did not reach the Markdown; the test would prove nothing")
	}
	for _, bad := range []string{"@octocat", "@org/team", "https://evil", "https://example", "www.evil", "user@evil", "#12", "GH-3"} {
		if strings.Contains(report, bad) {
			t.Errorf("Markdown holds %q as GitHub would mention, link or reference it", bad)
		}
	}
	for _, s := range []string{stdout, report, junitXML} {
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "::") {
				t.Errorf("a line could be a workflow command: %q", l)
			}
		}
	}
	if err := xml.Unmarshal([]byte(junitXML), new(struct{})); err != nil {
		t.Errorf("JUnit is not well-formed XML: %v", err)
	}

	// Two targets, long model names and wide ms intervals (#33 item 4):
	// still 100 columns, each target heading its rows; --wide keeps the
	// target column.
	for i, l := range strings.Split(stdout, "\n") {
		if n := utf8.RuneCountInString(l); n > 100 {
			t.Errorf("stdout line %d: %d columns, want ≤ 100: %s", i+1, n, l)
		}
	}
	if !strings.Contains(stdout, "\ntarget edge:\n") {
		t.Errorf("the narrow table does not head target edge's rows:\n%s", stdout)
	}
	if _, wide, _ := run(t, nil, "compare", "--config", "latgate.yaml", "--wide", "baseline.json", "results.json"); !regexp.MustCompile(`(?m)^edge\s+faq\s+ttft p50`).MatchString(wide) || strings.Contains(wide, "\ntarget edge:\n") {
		t.Errorf("--wide does not keep the target column:\n%s", wide)
	}

	again, stdout2, _ := run(t, nil, "compare", "--config", "latgate.yaml", "baseline.json", "results.json")
	if again != code || stdout2 != stdout {
		t.Errorf("a second run differs: exit %d vs %d, stdout diff (-first +second):\n%s", code, again, cmp.Diff(stdout, stdout2))
	}
	for name, got := range map[string]string{
		"stdout.golden":    stdout,
		"junit.golden.xml": junitXML,
		"report.golden.md": report,
	} {
		golden.Check(t, name, []byte(got))
	}
}
