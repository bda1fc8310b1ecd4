package report

import (
	"strings"
	"testing"

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
}
