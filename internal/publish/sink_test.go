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

	"github.com/latgate/latgate/internal/testkit"
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

func text(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

// TestPublish: each renderer of a Report reaches its output, report files
// and the job summary redacted; workflow commands pass only through
// Annotations, and a "::" line on stdout is neutralised.
func TestPublish(t *testing.T) {
	dir := t.TempDir()
	s, out := testStreams(t, dir)
	s.Learn("sk-publish-secret")
	k := s.ReportSink(Reports{JUnit: filepath.Join(dir, "junit.xml"), Markdown: filepath.Join(dir, "report.md")})
	err := k.Publish(Report{
		Text:        text("verdicts sk-publish-secret\n::warning::not a command\n"),
		JUnit:       text("<junit sk-publish-secret/>"),
		Markdown:    text("# md sk-publish-secret"),
		Summary:     text("summary sk-publish-secret\n"),
		Annotations: text("::error title=t::a command sk-publish-secret\n"),
		Outputs:     []Output{{"verdict", "ok"}, {"issue-key", "k"}},
	})
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
	k := s.ReportSink(Reports{JUnit: filepath.Join(bad, "junit.xml"), Markdown: filepath.Join(dir, "report.md")})
	err := k.Publish(Report{
		Text:     func(io.Writer) error { return errors.New("stdout closed") },
		JUnit:    text("x"),
		Markdown: text("md"),
		Outputs:  []Output{{"verdict", "regressed"}},
	})
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
	k := s.ReportSink(Reports{JUnit: "j.xml"})
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
