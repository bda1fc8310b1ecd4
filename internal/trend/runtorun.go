package trend

import (
	"math"
	"time"

	"github.com/latgate/latgate/pkg/history"
)

// RunToRun returns the run-to-run noise of series ss in the newest window
// runs of records (0: DefaultWindow): the standard deviation of
// ln(statistic) around the series' level between its change points (its
// lines, so a slow drift is level, not noise), the autocorrelation allowed
// for, as Analyze estimates it — the between-run variation one run of the
// endpoint carries beyond its own sampling noise and more. n is the number
// of runs it came from; sigma is NaN with fewer than 3. For a gate that
// wants to count the night-to-night variation of the baseline run and of
// the current one.
func RunToRun(records []history.Record, ss SeriesSpec, window int) (sigma float64, n int) {
	opts := Options{Window: window}.withDefaults()
	records, _ = inTimeOrder(records)
	s, _ := analyse(records, ss, time.Time{}, opts, &splitter{})
	if len(s.Points) < 3 {
		return math.NaN(), len(s.Points)
	}
	return s.Noise.Sigma, len(s.Points)
}
