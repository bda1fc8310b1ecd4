package report

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/latgate/latgate/internal/history"
	"github.com/latgate/latgate/internal/trend"
	"github.com/latgate/latgate/pkg/results"
)

// TestKneeLine: the knee's words say where it is and how sure, including
// when the sweep was too short to be sure, and when it missed the knee.
func TestKneeLine(t *testing.T) {
	sw := &results.Sweep{Goal: 0.95, Level: 0.95}
	steps := []results.SweepStep{{Rate: 20}, {Rate: 40}}
	for _, tt := range []struct {
		k    *results.SweepKnee
		want string
	}{
		{nil, "knee: none (no prompt of this target has an slo:"},
		{&results.SweepKnee{Rate: 31.5, Lo: 30, Hi: 40}, "knee: 31.5 requests/s, the highest rate at which 95% of requests met the SLO (interpolated between the rates around it; 95% sure it is in [30.0, 40.0]: sweep finer rates there to narrow it)"},
		{&results.SweepKnee{Rate: 31.5, Hi: 40}, "95% sure it is below 40.0; no lower rate had the requests to be sure it kept the goal: measure each longer (--duration)"},
		{&results.SweepKnee{Rate: 31.5, Lo: 30, Hi: 40, HiOpen: true}, "95% sure it is above 30.0; no higher rate swept was surely below the goal"},
		{&results.SweepKnee{Rate: 31.5, Hi: 40, HiOpen: true}, "no rate swept had the requests to be sure of either side of the goal"},
		{&results.SweepKnee{Below: true, Hi: 20}, "knee: below the lowest rate swept (at 20.0 requests/s fewer than 95% of requests met the SLO): sweep lower rates"},
		{&results.SweepKnee{Above: true, Rate: 40, Hi: 40}, "knee: above the highest rate swept (at 40.0 requests/s 95% of requests met the SLO): sweep higher rates"},
	} {
		got := KneeLine(results.SweepTarget{Steps: steps, Knee: tt.k}, sw)
		if !strings.Contains(got, tt.want) {
			t.Errorf("KneeLine(%+v)\n got %q\nwant %q", tt.k, got, tt.want)
		}
	}
	// Interrupted before its last rate: not "sweep higher rates" of rates
	// it never measured.
	cut := &results.Sweep{Goal: 0.95, Level: 0.95, Partial: true, Rates: []float64{20, 40}}
	got := KneeLine(results.SweepTarget{Steps: steps[:1], Knee: &results.SweepKnee{Above: true, Rate: 20, Hi: 20}}, cut)
	if want := "knee: not found: the sweep stopped at 20.0 requests/s, where 95% of requests met the SLO, before 40.0 requests/s: run it again"; got != want {
		t.Errorf("KneeLine of an interrupted sweep\n got %q\nwant %q", got, want)
	}
	// Interrupted after its last rate, the knee is above it as ever.
	cut.Rates = []float64{10, 20}
	if got := KneeLine(results.SweepTarget{Steps: steps[:1], Knee: &results.SweepKnee{Above: true, Rate: 20, Hi: 20}}, cut); !strings.Contains(got, "sweep higher rates") {
		t.Errorf("KneeLine of a sweep interrupted at its last rate: %q", got)
	}
}

// TestTrendHTMLKnee: the trend page has a section per knee, with the knee
// chart and the latency-versus-load chart, the verdict and the words, and
// a hostile target name escaped.
func TestTrendHTMLKnee(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 3, 0, 0, 0, time.UTC)
	var pts []trend.KneePoint
	for i := range 8 {
		k := 42.0
		if i >= 6 {
			k = 29
		}
		pts = append(pts, trend.KneePoint{At: t0.AddDate(0, 0, i), Rate: k, Lo: k - 5, Hi: k + 3,
			Load: []history.LoadStep{{Rate: 20, TTFTP95: 70}, {Rate: 40, TTFTP95: 200 - 3*k}, {Rate: 60, TTFTP95: 900}}})
	}
	rep := trend.Report{Verdict: trend.Regressed, Knees: []trend.KneeSeries{{Target: "<script>x", Points: pts, Ref: 42, RefN: 6, Change: 29.0/42 - 1, Tolerance: 0.15, Regressed: true}}}
	var b strings.Builder
	if err := TrendHTML(&b, rep, nil, TrendOptions{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{`id="knee-0"`, "knee of &lt;script&gt;x", `class="v-regressed">REGRESSED`, `aria-label="knee per sweep"`, `aria-label="TTFT P95 against the arrival rate"`, "FAIL: the knee of target &lt;script&gt;x fell 31%"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script>") {
		t.Errorf("the target name is not escaped")
	}
	if os.Getenv("LATGATE_KNEE_PAGE") != "" {
		os.WriteFile(os.Getenv("LATGATE_KNEE_PAGE"), []byte(page), 0o644)
	}
}

// TestStallLine: a closed-loop request 77 times its prompt's median total
// is a stall the loop counted once, and the note says what an open loop at
// the run's pace would have measured; a run at a rate, or one without such
// a request, has no note.
func TestStallLine(t *testing.T) {
	samples := make([]results.Sample, 100)
	for i := range samples {
		samples[i] = results.Sample{Seq: i + 1, TTFT: 11, Total: 13}
	}
	samples[37].Total, samples[37].TTFT = 1011, 1000
	p := results.Prompt{ID: "p", Samples: samples}
	p.Metrics = results.MetricsOf(samples)
	tg := results.Target{Name: "api", Requests: 100, WallMS: 2300, Prompts: []results.Prompt{p}}
	got := StallLine(tg, results.Run{Concurrency: 1})
	want := "request 38 of prompt p took 1011 ms (×78 its median): a closed loop sends nothing while its streams wait, so a stall counts once per stream; an open loop at this run's pace (43.5/s) would have sent about 44 requests during it, each waiting: set run.rate to measure them (coordinated omission)"
	if got != want {
		t.Errorf("StallLine\n got %q\nwant %q", got, want)
	}
	if got := StallLine(tg, results.Run{Rate: 50, Arrival: "poisson"}); got != "" {
		t.Errorf("at a rate: %q, want none", got)
	}
	samples[37].Total = 20
	p.Samples, p.Metrics = samples, results.MetricsOf(samples)
	tg.Prompts = []results.Prompt{p}
	if got := StallLine(tg, results.Run{Concurrency: 1}); got != "" {
		t.Errorf("no stall: %q, want none", got)
	}
}
