package config

import (
	"strings"
	"testing"
)

// run.max_requests and run.bless_requests: read, defaulted as multiples of
// run.requests (Cap, BlessN), and a cap below run.requests refused.
func TestRunRounds(t *testing.T) {
	head := "targets: [{name: t, base_url: sim}]\nprompts: [{id: p, messages: [{role: user, content: hi}]}]\n"
	tests := []struct {
		run            string
		wantCap, bless int
		err            string
	}{
		{"", 150, 240, ""},
		{"run: {requests: 30}\n", 75, 120, ""},
		{"run: {requests: 30, max_requests: 30}\n", 30, 120, ""},
		{"run: {requests: 30, max_requests: 200, bless_requests: 45}\n", 200, 45, ""},
		{"run: {requests: 30, max_requests: 20}\n", 0, 0, ":3: run.max_requests: 20 is below run.requests (30)"},
		{"run: {bless_requests: 0}\n", 0, 0, ":3: run.bless_requests: must be > 0"},
		{"run: {requests: 100, bless_requests: 2000000}\n", 0, 0, "run.bless_requests 2000000 count too"},
	}
	for _, tt := range tests {
		c, err := Parse([]byte(head+tt.run), "l.yaml", Options{Getenv: func(string) string { return "" }})
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: error %v, want one containing %q", tt.run, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.run, err)
			continue
		}
		if c.Run.Cap() != tt.wantCap || c.Run.BlessN() != tt.bless {
			t.Errorf("%q: Cap %d, BlessN %d; want %d, %d", tt.run, c.Run.Cap(), c.Run.BlessN(), tt.wantCap, tt.bless)
		}
	}
}
