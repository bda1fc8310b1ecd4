package compare

import (
	"fmt"
	"strings"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// CannotGate is the rule for a baseline that is too thin to gate: it lists,
// per gated check (every check with a tolerance), the prompts of base whose
// values of that check's metric are fewer than its statistic needs at the
// gate's confidence (the two-sided rule of stats.Stat.Need: p50 6 values,
// p90 36, p95 72 at 95%; for itl also at least 10 requests with a gap). Such
// a check would be inconclusive — a pass without --strict — whatever the
// current run measured, so that part of the gate would be off without
// saying so: a baseline whose itl gaps were emptied or removed cannot gate
// an itl check, however many requests it holds. check and compare refuse
// such a baseline (exit 2), and bless never writes one, --force or not. Each
// entry names the prompt by its JSON path in the baseline and by
// target/prompt, and the check. Limit checks (max, and a share's min) need
// no baseline; a share check against the baseline needs ShareNeed of its
// requests with a value. A gate
// without checks gates nothing and lists nothing.
func CannotGate(base Side, gate config.Gate) []string {
	conf := gate.Confidence
	if conf <= 0 || conf >= 1 {
		conf = DefaultConfidence
	}
	var out []string
	for i, t := range base.Targets {
		for j, p := range t.Prompts {
			type short struct {
				have  int
				unit  string
				needs []string
			}
			var order []string
			shorts := map[string]*short{}
			data := map[string]*dataset{}
			for _, c := range gate.Checks {
				if c.MaxOnly || !results.Applies(c.Metric, p) || c.IsShare() && (c.MinOnly || c.Off || !shareApplies(c.Metric, p, true)) {
					continue
				}
				if c.IsShare() { // share.go: a side needs ShareNeed requests with a value
					if have := len(shareValues(c.Metric, p.Samples, p.SLO)); have < ShareNeed {
						out = append(out, fmt.Sprintf("targets[%d].prompts[%d] (%s/%s) has %d requests with a value of %s, and %s needs at least %d",
							i, j, results.Label(t.Name, t.Region), p.ID, have, c.Metric, c.Metric, ShareNeed))
					}
					continue
				}
				d, ok := data[c.Metric]
				if !ok {
					d = newDataset(p.Samples, c.Metric)
					data[c.Metric] = d
				}
				values, requests := need(c.Stat, c.Metric, conf)
				have, unit := d.requests(), "requests with a value"
				switch {
				case c.Metric == results.ITL && d.requests() < requests:
					values, unit = requests, "requests with a token gap"
				case c.Metric == results.ITL:
					have, unit = len(d.vals), "token gaps"
				}
				if have >= values {
					continue
				}
				key := c.Metric + " " + unit
				s, ok := shorts[key]
				if !ok {
					s = &short{have: have, unit: unit}
					shorts[key] = s
					order = append(order, key)
				}
				s.needs = append(s.needs, fmt.Sprintf("%s %s needs at least %d", c.Metric, c.Stat, values))
			}
			for _, key := range order {
				s := shorts[key]
				metric, _, _ := strings.Cut(key, " ")
				out = append(out, fmt.Sprintf("targets[%d].prompts[%d] (%s/%s) has %d %s of %s, and %s",
					i, j, results.Label(t.Name, t.Region), p.ID, s.have, s.unit, metric, strings.Join(s.needs, ", ")))
			}
		}
	}
	return out
}
