package history

import (
	"fmt"
	"math"
	"strconv"

	"github.com/latgate/latgate/pkg/results"
)

// MaxRate bounds a tokens_per_s statistic: no stream delivers a billion
// tokens a second.
const MaxRate = 1e9

// validate checks a decoded record as data, the way results.ValidateData
// checks a baseline: counts in range, every statistic finite, not negative,
// not absurd, one a run can have produced (latgate rounds to the
// microsecond, so a positive value under one was never written by it),
// positive where a stream makes it so (ttft, ttfct, total), and quantiles in
// order (p50 ≤ p90 ≤ p95 ≤ p99). It returns the first problem, naming it by
// its JSON path. A record that fails is skipped, never used: three records
// of p50 = 1e-300 ms would otherwise read as a speed-up that hides a
// regression.
func (r *Record) validate() error {
	if r.Requests < 0 || r.Requests > results.MaxPromptRequests {
		return fmt.Errorf("requests: %d is out of range (0 to %d)", r.Requests, results.MaxPromptRequests)
	}
	for i, t := range r.Targets {
		tp := "targets[" + strconv.Itoa(i) + "]"
		if t.Requests < 0 || t.Errors < 0 || t.Errors > t.Requests {
			return fmt.Errorf("%s: requests %d, errors %d: counts cannot be negative, nor errors more than requests", tp, t.Requests, t.Errors)
		}
		if k := t.Knee; k != nil {
			finite := func(x float64) bool { return x >= 0 && x <= results.MaxRate && !math.IsNaN(x) }
			if !finite(k.Rate) || !finite(k.Lo) || !finite(k.Hi) || k.Lo > k.Rate || k.Rate > k.Hi || !(k.Goal > 0 && k.Goal <= 1) {
				return fmt.Errorf("%s.knee: rate %s in [%s, %s] for goal %s: want 0 ≤ lo ≤ rate ≤ hi ≤ %d requests/s and a goal above 0 and at most 1",
					tp, num(k.Rate), num(k.Lo), num(k.Hi), num(k.Goal), results.MaxRate)
			}
		}
		for j, l := range t.Load {
			if !(l.Rate > 0 && l.Rate <= results.MaxRate) || !(l.TTFTP95 >= 0 && l.TTFTP95 <= results.MaxMS) || !(l.Goodput >= 0 && l.Goodput <= 1) {
				return fmt.Errorf("%s.load[%d]: rate %s, ttft_p95_ms %s, goodput %s: want a rate above 0, a time within a day, a share from 0 to 1", tp, j, num(l.Rate), num(l.TTFTP95), num(l.Goodput))
			}
		}
		for j, p := range t.Prompts {
			var first error // the first problem in name order: the same on every read
			firstName := ""
			for name, st := range p.Metrics {
				if first != nil && name > firstName {
					continue
				}
				if err := validStats(name, name, st); err != nil {
					first, firstName = err, name
				}
			}
			if first != nil {
				return fmt.Errorf("%s.prompts[%d].m.%w", tp, j, first)
			}
		}
	}
	return nil
}

func validStats(path, metric string, st Stats) error {
	most := results.MaxPromptRequests
	if metric == results.ITL {
		most = results.MaxPromptRequests * results.MaxTokens
	}
	if st.N < 1 || st.N > most {
		return fmt.Errorf("%s.n: %d is out of range (1 to %d)", path, st.N, most)
	}
	rate := results.HigherIsBetter(metric)
	positive := metric == results.TTFT || metric == results.TTFCT || metric == results.Total
	prev, prevAt := math.Inf(-1), -1
	for i, s := range named {
		if st.has&(1<<i) == 0 {
			continue
		}
		v := st.v[i]
		var problem string
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0) || v < 0:
			problem = num(v) + " is not a value a run measures"
		case rate && v > MaxRate:
			problem = num(v) + " tokens/s is absurd"
		case !rate && v > results.MaxMS:
			problem = num(v) + " ms is absurd (over a day)"
		case v > 0 && v < 0.001: // round writes 0 or at least 0.001
			problem = num(v) + " is below the microsecond latgate stores: no run wrote it"
		case positive && v == 0:
			problem = "0 ms cannot be: " + metric + " is positive"
		case !s.Mean && v < prev-0.0015: // values are rounded to the microsecond
			problem = fmt.Sprintf("%s is below %s %s: quantiles cannot decrease", num(v), named[prevAt], num(prev))
		}
		if problem != "" {
			return fmt.Errorf("%s.%s: %s", path, s, problem)
		}
		if !s.Mean {
			prev, prevAt = v, i
		}
	}
	return nil
}

func num(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
