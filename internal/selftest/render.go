package selftest

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"
	"time"
)

// fmtMS formats milliseconds with a precision that suits their size.
func fmtMS(v float64) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case math.Abs(v) < 0.01:
		return strconv.FormatFloat(v*1000, 'f', 1, 64) + "µs"
	case math.Abs(v) < 10:
		return strconv.FormatFloat(v, 'f', 3, 64) + "ms"
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + "ms"
}

// fmtSpread formats a signed error as "median ±half-range".
func fmtSpread(s Spread) string {
	m := math.Round(s.Median*1000) / 1000
	if m == 0 {
		m = 0 // "+0.000", never "-0.000"
	}
	return fmt.Sprintf("%+.3f ±%.3f", m, (s.Max-s.Min)/2)
}

// stickyWriter keeps the first write error and skips later writes.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	s.err = err
	return n, err
}

// Write renders r as the table `latgate selftest` prints.
func Write(w io.Writer, r Report) error {
	ew := &stickyWriter{w: w}
	m := r.Machine
	fmt.Fprintf(ew, "latgate selftest: the timing error latgate itself adds on this machine\n")
	fmt.Fprintf(ew, "machine:  %s/%s, %d CPUs (GOMAXPROCS %d), %s", m.OS, m.Arch, m.CPUs, m.GOMAXPROCS, m.Go)
	if m.LoadBefore != "" {
		fmt.Fprintf(ew, ", load %s → %s", m.LoadBefore, m.LoadAfter)
	}
	fmt.Fprintf(ew, "\nschedule: in-process simulator %q: %s; %d runs per concurrency\n\n", r.Profile, r.Schedule, r.Runs)
	fmt.Fprintf(ew, "Reported − true statistic, and stamp delay (client stamp − server flush), in ms;\nmedian of %d runs ± half their range:\n", r.Runs)
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "concurrency\trequests\tchunks/s\tTTFT p50\tTTFT p95\tITL p50\tITL p95\tdelay p50\tdelay p95\t")
	for _, l := range r.Levels {
		fmt.Fprintf(tw, "%d\t%d\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\t\n", l.Concurrency, l.Requests, l.ChunkRate.Median,
			fmtSpread(l.TTFTP50), fmtSpread(l.TTFTP95), fmtSpread(l.ITLP50), fmtSpread(l.ITLP95), fmtSpread(l.DelayP50), fmtSpread(l.DelayP95))
	}
	tw.Flush()
	if r.MaxRate != nil {
		fmt.Fprintf(ew, "\nHighest chunk rate with stamp delay p95 under %g ms: %.0f chunks/s (concurrency %d).\n", delayLimit, r.MaxRate.ChunksPerS, r.MaxRate.Concurrency)
	} else {
		fmt.Fprintf(ew, "\nNo level kept the stamp delay p95 under %g ms.\n", delayLimit)
	}
	fmt.Fprintf(ew, "The simulator shares this process and its CPUs: a client alone sustains more.\n")
	if res := r.Resolution; res != nil {
		fmt.Fprintf(ew, "\nSmallest change each check of %s can tell from latgate's own noise:\n", res.Config)
		fmt.Fprintf(ew, "two runs of %d requests per prompt at concurrency %d, %g%% confidence (noise from %d requests).\n",
			res.Requests, res.Concurrency, 100*res.Confidence, res.NoiseFrom)
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "check\ttolerance\tfloor\tresolves\tverdict")
		for _, c := range res.Checks {
			floor := time.Duration(math.Round(c.FloorMS * 1e6)).String()
			if c.FloorMS > c.ConfigFloorMS {
				floor += " (resolution)" // the config's floor is unset or finer than latgate resolves
			}
			fmt.Fprintf(tw, "%s %s\t%g%%\t%s\t%s\t%s\n", c.Metric, c.Stat, 100*c.Tolerance, floor, fmtMS(c.MinChangeMS), c.Verdict)
		}
		tw.Flush()
		fmt.Fprintf(ew, "Your endpoint's own spread adds to this noise; measure it with latgate measure.\n")
	}
	return ew.err
}
