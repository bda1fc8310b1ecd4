package compare

import (
	"fmt"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// CannotGate is the rule for a baseline that is too thin to gate: it lists
// the prompts of base that hold fewer samples than the least demanding of
// gate's checks needs (P50 at 95% confidence: 5 requests). Every check of
// such a prompt would be inconclusive — a pass without --strict — whatever
// the current run measured, so the gate would be off without saying so.
// check and compare refuse such a baseline (exit 2), and bless never writes
// one, --force or not. Each entry names the prompt by its JSON path in the
// baseline and by target/prompt. A gate without checks gates nothing and
// lists nothing.
func CannotGate(base Side, gate config.Gate) []string {
	conf := gate.Confidence
	if conf == 0 {
		conf = DefaultConfidence
	}
	least := 0
	for _, c := range gate.Checks {
		values, requests := need(c.Stat, c.Metric, conf)
		n := max(values, requests)
		if c.Metric == results.ITL {
			n = requests // gaps come many per request
		}
		if least == 0 || n < least {
			least = n
		}
	}
	if least == 0 {
		return nil
	}
	var out []string
	for i, t := range base.Targets {
		for j, p := range t.Prompts {
			if n := len(p.Samples); n < least {
				out = append(out, fmt.Sprintf("targets[%d].prompts[%d] (%s/%s) has %d samples, and the gate needs at least %d to decide any check",
					i, j, results.Label(t.Name, t.Region), p.ID, n, least))
			}
		}
	}
	return out
}
