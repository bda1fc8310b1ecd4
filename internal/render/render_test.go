package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/latgate/latgate/internal/report"
	"github.com/latgate/latgate/internal/trend"
	"github.com/latgate/latgate/internal/view"
	"github.com/latgate/latgate/pkg/compare"
)

// documents is one Document of every kind, as the application builds it.
func documents() map[view.Kind]view.Document {
	rep := compare.Report{Verdict: compare.OK}
	return map[view.Kind]view.Document{
		view.KindGate:      view.OfGate(rep, report.Options{}, nil).WithExport(&rep),
		view.KindAB:        view.OfAB(rep, report.AB{Base: "base.yaml", Candidate: "cand.yaml"}, report.Options{}, nil).WithExport(&rep),
		view.KindTrend:     view.OfTrend(trend.Report{Verdict: trend.OK}, nil, report.TrendOptions{}),
		view.KindUngated:   view.Ungated("latgate.baseline.json", "results.json", "latgate bless --config latgate.yaml --from results.json", nil).WithExport(nil),
		view.KindSlowed:    view.Slowed("every request far slower", "next: find why"),
		view.KindFailure:   view.Failure("the config could not be read", false),
		view.KindSkipped:   view.Skipped([]string{"$OPENAI_API_KEY (target openai)"}),
		view.KindUnchanged: view.Unchanged("base.yaml", "cand.yaml"),
	}
}

// TestEveryFormatWritesWhatItShows: each format writes every outcome it
// shows, and refuses one it does not show; every outcome reaches the job
// summary and carries a verdict, so a CI job always says something.
func TestEveryFormatWritesWhatItShows(t *testing.T) {
	docs := documents()
	for kind, d := range docs {
		if d.Kind != kind || d.Verdict == "" {
			t.Errorf("document of kind %d: kind %d, verdict %q", kind, d.Kind, d.Verdict)
		}
		for _, f := range Formats() {
			var b bytes.Buffer
			err := f.Write(&b, d)
			switch {
			case f.Shows(kind) && err != nil:
				t.Errorf("%s of kind %d: %v", f.Name, kind, err)
			case !f.Shows(kind) && err == nil:
				t.Errorf("%s wrote kind %d, which it does not show:\n%s", f.Name, kind, b.String())
			}
		}
		if !Summary().Shows(kind) {
			t.Errorf("kind %d has no job summary", kind)
		}
	}
	var b bytes.Buffer
	for _, f := range Formats() {
		if err := f.Write(&b, view.Document{}); err == nil {
			t.Errorf("%s wrote a Document of no kind: %q", f.Name, b.String())
		}
	}
	if len(docs) != int(view.KindUnchanged) {
		t.Errorf("%d kinds tested, want every kind", len(docs))
	}
}

// TestFlagsHaveHelp: a format with a flag has help for each outcome it
// shows that a command publishes first (gate, ab, trend), and a flag name
// no other format takes; a format that shows an outcome only check
// publishes (ungated, slowed, failure, skipped) has check's flag, or its
// file could never be asked for.
func TestFlagsHaveHelp(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range Formats() {
		if f.Flag == "" {
			continue
		}
		if seen[f.Flag] {
			t.Errorf("flag --%s taken twice", f.Flag)
		}
		seen[f.Flag] = true
		for _, k := range []view.Kind{view.KindGate, view.KindAB, view.KindTrend} {
			if u := f.Usage(k); f.Shows(k) != (u != "") || u != "" && !strings.Contains(u, "`FILE`") {
				t.Errorf("--%s for kind %d: shows %v, help %q; want help naming `FILE` exactly where it shows the kind", f.Flag, k, f.Shows(k), u)
			}
		}
		for _, k := range []view.Kind{view.KindUngated, view.KindSlowed, view.KindFailure, view.KindSkipped} {
			if f.Shows(k) && f.Usage(view.KindGate) == "" {
				t.Errorf("--%s shows kind %d, which check publishes, but check has no --%s", f.Flag, k, f.Flag)
			}
		}
	}
}

// TestMeasurementFailureKeepsTheEndpointOut: a failed measurement's
// annotation does not quote the endpoint (its error body, a frame): that
// is in the reports and the log.
func TestMeasurementFailureKeepsTheEndpointOut(t *testing.T) {
	var b bytes.Buffer
	if err := Annotations().Write(&b, view.Failure("endpoint said: <html>evil</html>", true)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "evil") || !strings.HasPrefix(b.String(), "::error title=latgate%3A measurement failed::") {
		t.Errorf("annotation of a measurement failure: %q", b.String())
	}
}
