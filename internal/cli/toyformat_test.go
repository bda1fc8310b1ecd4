package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/internal/publish"
	"github.com/latgate/latgate/internal/render"
	"github.com/latgate/latgate/internal/report"
	"github.com/latgate/latgate/internal/view"
	"github.com/latgate/latgate/pkg/compare"
)

// toyCSV is a new output format written in this one file, as
// docs/architecture.md says a format is: its row (name, flag, help, the
// outcomes it shows) and its writer over a view.Document. Nothing else in
// latgate names it.
func toyCSV() render.Format {
	return render.Format{
		Name: "csv",
		Flag: "csv",
		Usage: func(k view.Kind) string {
			if k == view.KindGate {
				return "write one line per check as CSV to `FILE`"
			}
			return ""
		},
		Shows: func(k view.Kind) bool { return k == view.KindGate },
		Write: func(w io.Writer, d view.Document) error {
			if _, err := fmt.Fprintln(w, "target,prompt,metric,stat,verdict"); err != nil {
				return err
			}
			for _, c := range d.Gate.Report.Checks {
				if _, err := fmt.Fprintf(w, "%s,%s,%s,%s,%s\n", c.Target, c.Prompt, c.Metric, c.Stat, c.Verdict); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// TestToyFormat (#28): a format added in one file gets its flag in --help,
// its path parsed from that flag, and its file written by the sink that
// publishes a gate's Document, beside every format latgate has (stdout
// still shows the verdict table); an outcome it does not show writes no
// file.
func TestToyFormat(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "checks.csv")
	rep := compare.Report{Verdict: compare.OK, Checks: []compare.Check{
		{Target: "sim", Prompt: "hello", Metric: "ttft", Stat: "p95", Verdict: compare.OK, NBase: 60, NCur: 60, Baseline: 100, Current: 101, Ratio: 1.01, Lo: 0.97, Hi: 1.05},
	}}
	publishWith := func(args []string, d view.Document) (stdout, help string) {
		t.Helper()
		var out, hw bytes.Buffer
		app := &ucli.App{Name: "toy", Writer: &hw, ErrWriter: io.Discard, HideHelpCommand: true,
			Flags: reportFlagDefs(view.KindGate, toyCSV()),
			Action: func(c *ucli.Context) error {
				s := publish.New(publish.Options{Stdout: &out, Stderr: io.Discard, Getenv: func(string) string { return "" }})
				defer s.Flush()
				sink := s.ReportSink(parseReports(c, view.KindGate, toyCSV()), toyCSV())
				if err := sink.Check(); err != nil {
					return err
				}
				return sink.Publish(d)
			}}
		if err := app.Run(append([]string{"toy"}, args...)); err != nil {
			t.Fatal(err)
		}
		return out.String(), hw.String()
	}

	_, help := publishWith([]string{"--help"}, view.Document{})
	if !strings.Contains(help, "--csv FILE") || !strings.Contains(help, "write one line per check as CSV to FILE") {
		t.Errorf("--help has no --csv flag with the format's help:\n%s", help)
	}
	stdout, _ := publishWith([]string{"--csv", csv}, view.OfGate(rep, report.Options{}, nil))
	data, err := os.ReadFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	want := "target,prompt,metric,stat,verdict\nsim,hello,ttft,p95,ok\n"
	if diff := cmp.Diff(want, string(data)); diff != "" {
		t.Errorf("checks.csv (-want +got):\n%s", diff)
	}
	if !strings.Contains(stdout, "PASS") {
		t.Errorf("stdout lost the verdict table beside the new format:\n%s", stdout)
	}

	other := filepath.Join(dir, "failure.csv")
	publishWith([]string{"--csv", other}, view.Failure("the config could not be read", false))
	if _, err := os.Stat(other); !os.IsNotExist(err) {
		t.Errorf("a failure wrote %s (stat: %v): the format does not show it", other, err)
	}
}
