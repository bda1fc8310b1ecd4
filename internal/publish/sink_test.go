package publish

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/internal/render"
	"github.com/latgate/latgate/internal/testkit"
	"github.com/latgate/latgate/internal/view"
)

// testStreams returns Streams on buffers inside GitHub Actions, with the
// job summary and step output in dir.
func testStreams(t *testing.T, dir string) (*Streams, *bytes.Buffer) {
	t.Helper()
	var out bytes.Buffer
	env := map[string]string{"GITHUB_ACTIONS": "true",
		"GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md"), "GITHUB_OUTPUT": filepath.Join(dir, "output.txt")}
	s := New(Options{Stdout: &out, Stderr: io.Discard, Getenv: func(k string) string { return env[k] }})
	t.Cleanup(s.Flush)
	return s, &out
}

// fixed is a format that writes s for every outcome: to stdout, to its
// flag's file, or inside Actions where github says.
func fixed(name, flag string, stdout bool, github render.GitHub, s string) render.Format {
	return render.Format{Name: name, Flag: flag, Stdout: stdout, GitHub: github,
		Shows: func(view.Kind) bool { return true },
		Write: func(w io.Writer, _ view.Document) error {
			_, err := io.WriteString(w, s)
			return err
		}}
}

// TestPublish: each format of a Document reaches its output, report files
// and the job summary redacted; workflow commands pass only through the
// Commands format, and a "::" line on stdout is neutralised.
func TestPublish(t *testing.T) {
	dir := t.TempDir()
	s, out := testStreams(t, dir)
	s.Learn("sk-publish-secret")
	k := s.reportSink(Reports{"junit": filepath.Join(dir, "junit.xml"), "markdown": filepath.Join(dir, "report.md")}, []render.Format{
		fixed("text", "", true, render.NotGitHub, "verdicts sk-publish-secret\n::warning::not a command\n"),
		fixed("junit", "junit", false, render.NotGitHub, "<junit sk-publish-secret/>"),
		fixed("markdown", "markdown", false, render.NotGitHub, "# md sk-publish-secret"),
		fixed("summary", "", false, render.StepSummary, "summary sk-publish-secret\n"),
		fixed("annotations", "", false, render.Commands, "::error title=t::a command sk-publish-secret\n"),
	})
	err := k.Publish(view.Document{Verdict: "ok", Outputs: []view.Output{{Name: "issue-key", Value: "k"}}})
	if err != nil {
		t.Fatal(err)
	}
	s.Flush()
	got := map[string]string{
		"stdout":      out.String(),
		"junit.xml":   testkit.ReadFile(t, filepath.Join(dir, "junit.xml")),
		"report.md":   testkit.ReadFile(t, filepath.Join(dir, "report.md")),
		"summary.md":  testkit.ReadFile(t, filepath.Join(dir, "summary.md")),
		"output.txt":  testkit.ReadFile(t, filepath.Join(dir, "output.txt")),
		"files count": fmt.Sprint(len(k.Files())),
	}
	want := map[string]string{
		"stdout":      "verdicts [REDACTED]\n:\u200b:warning::not a command\n::error title=t::a command [REDACTED]\n",
		"junit.xml":   "<junit [REDACTED]/>",
		"report.md":   "# md [REDACTED]",
		"summary.md":  "summary [REDACTED]\n",
		"output.txt":  "verdict=ok\nissue-key=k\n",
		"files count": "4",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
}

// TestPublishGoesOnAfterAFailure: an output that cannot be written does not
// stop the others, and the error names it.
func TestPublishGoesOnAfterAFailure(t *testing.T) {
	dir := t.TempDir()
	s, _ := testStreams(t, dir)
	bad := filepath.Join(dir, "not-a-dir")
	if err := os.WriteFile(bad, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	closed := fixed("text", "", true, render.NotGitHub, "")
	closed.Write = func(io.Writer, view.Document) error { return errors.New("stdout closed") }
	k := s.reportSink(Reports{"junit": filepath.Join(bad, "junit.xml"), "markdown": filepath.Join(dir, "report.md")}, []render.Format{
		closed,
		fixed("junit", "junit", false, render.NotGitHub, "x"),
		fixed("markdown", "markdown", false, render.NotGitHub, "md"),
	})
	err := k.Publish(view.Document{Verdict: "regressed"})
	for _, want := range []string{"stdout closed", "could not write --junit " + filepath.Join(bad, "junit.xml") + ": "} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not say %q", err, want)
		}
	}
	if got := testkit.ReadFile(t, filepath.Join(dir, "report.md")); got != "md" {
		t.Errorf("report.md = %q after a failed JUnit", got)
	}
	if got := testkit.ReadFile(t, filepath.Join(dir, "output.txt")); got != "verdict=regressed\n" {
		t.Errorf("step output %q after a failed JUnit", got)
	}
}

// TestSinkFilesAreItsOutputs: the files the path rule checks are the ones
// the sink writes: report files, declared outputs, and inside Actions the
// runner's files; a data-only sink has no GitHub files.
func TestSinkFilesAreItsOutputs(t *testing.T) {
	dir := t.TempDir()
	s, _ := testStreams(t, dir)
	k := s.ReportSink(Reports{"junit": "j.xml"})
	k.Output("--out", "r.json")
	k.Output("--history", "")
	want := []File{{"--junit", "j.xml"}, {"--out", "r.json"},
		{"$GITHUB_STEP_SUMMARY", filepath.Join(dir, "summary.md")}, {"$GITHUB_OUTPUT", filepath.Join(dir, "output.txt")}}
	if diff := cmp.Diff(want, k.Files()); diff != "" {
		t.Errorf("report sink files (-want +got):\n%s", diff)
	}
	d := s.Sink()
	d.Output("the baseline", "b.json")
	if diff := cmp.Diff([]File{{"the baseline", "b.json"}}, d.Files()); diff != "" {
		t.Errorf("data sink files (-want +got):\n%s", diff)
	}
	d.Input("the config", "b.json")
	if err := d.Check(); err == nil || !strings.Contains(err.Error(), "the baseline b.json is the config (b.json)") {
		t.Errorf("Check = %v, want the baseline refused as the config", err)
	}
}

// TestStepOutputsAreOneLineEach: a step output's value from outside (an
// issue title from the history) cannot set an output of its own with a
// newline, and is redacted.
func TestStepOutputsAreOneLineEach(t *testing.T) {
	dir := t.TempDir()
	s, _ := testStreams(t, dir)
	s.Learn("sk-output-secret")
	k := s.reportSink(Reports{}, nil)
	if err := k.Publish(view.Document{Verdict: "regressed", Outputs: []view.Output{{Name: "issue-title", Value: "slow sk-output-secret\nverdict=ok\r\nx=y"}}}); err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(testkit.ReadFile(t, filepath.Join(dir, "output.txt")), "\n"), "\n")
	if len(got) != 2 || got[0] != "verdict=regressed" || !strings.HasPrefix(got[1], "issue-title=slow [REDACTED]") {
		t.Errorf("step outputs %q: want verdict=regressed and one redacted issue-title line", got)
	}
}

// TestUnknownReportFormatRefused: a report asked for by a name no format
// has is refused before anything runs, not silently never written.
func TestUnknownReportFormatRefused(t *testing.T) {
	s, _ := testStreams(t, t.TempDir())
	if err := s.ReportSink(Reports{"junit ": "j.xml"}).Check(); err == nil || !strings.Contains(err.Error(), `no output format is called junit `) {
		t.Errorf("Check = %v, want the misspelt format refused", err)
	}
	if err := s.ReportSink(Reports{"junit": "", "summary": ""}).Check(); err != nil {
		t.Errorf("Check of known formats with no files: %v", err)
	}
}
