package history

import (
	"slices"
	"time"

	"github.com/latgate/latgate/pkg/stats"
)

// Levels is one target's metric over the runs of a history, oldest first:
// Runs[r][prompt] is run r's p50 of the metric for that prompt (a prompt
// the run lacks is absent from its map). The gate learns its day-to-day
// noise from them; At[r] is when run r was recorded.
type Levels struct {
	Target, Region, Metric string
	Runs                   []map[string]float64
	At                     []time.Time
}

// Series extracts, per target (name and region) and each of metrics, each
// run's p50 per prompt, the runs in time order (a file appended out of
// order is read by the records' times). A run without a positive p50 of a
// metric is not in that metric's series.
func Series(records []Record, metrics []string) []Levels {
	recs := slices.Clone(records)
	slices.SortStableFunc(recs, func(a, b Record) int { return a.At.Compare(b.At) })
	var out []Levels
	type key struct{ target, region, metric string }
	index := map[key]int{}
	for _, r := range recs {
		for _, t := range r.Targets {
			for _, m := range metrics {
				run := map[string]float64{}
				for _, p := range t.Prompts {
					if st, ok := p.Metrics[m]; ok && st.N > 0 {
						if v, ok := st.Get(stats.Stat{P: 0.5}); ok && v > 0 {
							run[p.ID] = v
						}
					}
				}
				if len(run) == 0 {
					continue
				}
				k := key{t.Name, t.Region, m}
				i, ok := index[k]
				if !ok {
					i = len(out)
					index[k] = i
					out = append(out, Levels{Target: t.Name, Region: t.Region, Metric: m})
				}
				out[i].Runs = append(out[i].Runs, run)
				out[i].At = append(out[i].At, r.At)
			}
		}
	}
	return out
}
