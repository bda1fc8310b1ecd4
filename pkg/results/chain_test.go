package results

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestChainValidate: a chain's sample reads back; steps out of order, chain
// times that do not hold the last step, a 1-step chain or chain times
// without steps are a damaged file, named by their path.
func TestChainValidate(t *testing.T) {
	chain := func(edit func(p *Prompt)) []byte {
		f := sampleFile()
		p := &f.Targets[0].Prompts[0]
		p.Steps = 2
		s := &p.Samples[0]
		s.Steps = []Step{{StartMS: 0, TTFT: 100, Total: 150}, {StartMS: 151, TTFT: 412.118, Total: 700.5}}
		s.ChainTotal, s.ChainTTFTLast = 851.5, 563.118
		if edit != nil {
			edit(p)
		}
		data, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	if _, err := Decode(chain(nil), "r.json"); err != nil {
		t.Fatalf("a valid chain: %v", err)
	}
	for _, tt := range []struct {
		name string
		edit func(p *Prompt)
		want string
	}{
		{"step before the previous ended", func(p *Prompt) { p.Samples[0].Steps[1].StartMS = 100 }, "samples[0].steps[1].start_ms"},
		{"chain total before the last step's end", func(p *Prompt) { p.Samples[0].ChainTotal = 800 }, "samples[0].chain_total_ms"},
		{"last first token outside the chain", func(p *Prompt) { p.Samples[0].ChainTTFTLast = 10 }, "samples[0].chain_ttft_last_ms"},
		{"one step", func(p *Prompt) { p.Steps = 1 }, "prompts[0].steps"},
		{"chain times without steps", func(p *Prompt) { p.Samples[0].Steps = nil }, "samples[0].chain_total_ms"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(chain(tt.edit), "r.json")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Decode: %v, want an error naming %s", err, tt.want)
			}
		})
	}
}
