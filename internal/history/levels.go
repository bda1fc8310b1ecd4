package history

import (
	"slices"
	"time"

	"github.com/latgate/latgate/pkg/stats"
)

// Levels is one target's statistic of a metric over the runs of a
// history, oldest first: Runs[r][prompt] is run r's Stat (p50, p90, …,
// mean) of Metric for that prompt (a prompt the run lacks is absent from
// its map). The gate learns its day-to-day noise from them, per gated
// statistic; At[r] is when run r was recorded.
type Levels struct {
	Target, Region, Metric, Stat string
	Runs                         []map[string]float64
	At                           []time.Time
}

// Statistic names one gated statistic of a metric: {"ttft", "p90"}.
type Statistic struct{ Metric, Stat string }

// Series extracts, per target (name and region) and each of want, each
// run's statistic per prompt, the runs in time order (a file appended out
// of order is read by the records' times). A run without a positive value
// of a statistic is not in that statistic's series (a record written
// before p90 was kept has none); a statistic stats.ParseStat refuses has
// no series.
func Series(records []Record, want []Statistic) []Levels {
	recs := slices.Clone(records)
	slices.SortStableFunc(recs, func(a, b Record) int { return a.At.Compare(b.At) })
	var out []Levels
	type key struct {
		target, region string
		w              Statistic
	}
	index := map[key]int{}
	for _, w := range want {
		spec, err := stats.ParseStat(w.Stat)
		if err != nil {
			continue
		}
		for _, r := range recs {
			for _, t := range r.Targets {
				run := map[string]float64{}
				for _, p := range t.Prompts {
					if st, ok := p.Metrics[w.Metric]; ok && st.N > 0 {
						if v, ok := st.Get(spec); ok && v > 0 {
							run[p.ID] = v
						}
					}
				}
				if len(run) == 0 {
					continue
				}
				k := key{t.Name, t.Region, w}
				i, ok := index[k]
				if !ok {
					i = len(out)
					index[k] = i
					out = append(out, Levels{Target: t.Name, Region: t.Region, Metric: w.Metric, Stat: w.Stat})
				}
				out[i].Runs = append(out[i].Runs, run)
				out[i].At = append(out[i].At, r.At)
			}
		}
	}
	return out
}
