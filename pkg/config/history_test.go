package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const historyBase = `
targets: [{name: t, base_url: sim, model: m}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`

func TestHistoryAndBaselineAge(t *testing.T) {
	tests := []struct {
		name    string
		extra   string
		history string
		age     time.Duration
		err     string
	}{
		{"absent", "", "", 0, ""},
		{"history relative to the config", "history: h/latgate.history.jsonl\n", filepath.Join("examples", "h", "latgate.history.jsonl"), 0, ""},
		{"age in days", "gate: {max_baseline_age: 30d}\n", "", 30 * 24 * time.Hour, ""},
		{"age as a duration", "gate: {max_baseline_age: 36h}\n", "", 36 * time.Hour, ""},
		{"empty history", "history: \"\"\n", "", 0, "history: empty path"},
		{"history not a string", "history: [a]\n", "", 0, "history"},
		{"age without unit", "gate: {max_baseline_age: 30}\n", "", 0, "gate.max_baseline_age: 30 has no unit"},
		{"bad days", "gate: {max_baseline_age: xd}\n", "", 0, `gate.max_baseline_age: "xd" is not an age`},
		{"negative age", "gate: {max_baseline_age: -5h}\n", "", 0, "gate.max_baseline_age: must be > 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parse(t, y(historyBase+tt.extra))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.History != tt.history || cfg.Gate.MaxBaselineAge != tt.age {
				t.Errorf("history %q age %v, want %q %v", cfg.History, cfg.Gate.MaxBaselineAge, tt.history, tt.age)
			}
		})
	}
}
