package measure

import (
	"context"
	"testing"
	"time"

	"github.com/latgate/latgate/pkg/config"
)

// BenchmarkPacedSends is the arrival-rate generator holding its schedule:
// b.N requests at 200 per second (poisson) against the simulator, each
// stream open about 1.3 s, so about 256 are open at once, the limit. It
// reports how late latgate's sends were (late-p50-ms, late-p99-ms,
// late-max-ms) and the rate it sent at (sent/s), with the generator
// spinning the last millisecond of each wait (spin=1ms, the default) and
// sleeping all of it (spin=0). Run it long enough to reach 256 open:
//
//	go test -run '^$' -bench PacedSends -benchtime 3000x ./pkg/measure/
func BenchmarkPacedSends(b *testing.B) {
	ep, _ := paceEndpoint(b, "fixed?ttft=1s&itl=10ms&tokens=28&spin=0s")
	for _, bc := range []struct {
		name string
		spin time.Duration
	}{{"spin=1ms", spinWindow}, {"spin=0", -1}} {
		b.Run(bc.name, func(b *testing.B) {
			run := config.Run{Requests: b.N, Concurrency: 1, Timeout: time.Minute, Rate: 200, Arrival: config.ArrivalPoisson, Seed: 1, MaxInFlight: 256}
			b.ResetTimer()
			f, err := Run(context.Background(), Options{Endpoints: []Endpoint{ep}, Prompts: twoPaced[:1], Run: run, spin: bc.spin})
			b.StopTimer()
			if err != nil {
				b.Fatal(err)
			}
			s := f.Targets[0].Sends
			if s == nil || s.Scheduled != b.N {
				b.Fatalf("sends %+v, want %d scheduled", s, b.N)
			}
			b.ReportMetric(s.LateP50MS, "late-p50-ms")
			b.ReportMetric(s.LateP99MS, "late-p99-ms")
			b.ReportMetric(s.LateMaxMS, "late-max-ms")
			b.ReportMetric(s.SentRate, "sent/s")
			b.ReportMetric(float64(s.Queued), "queued")
		})
	}
}
