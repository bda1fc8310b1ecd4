package config

import (
	"strconv"
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
		{"run: {bless_requests: 0}\n", 0, 0, ":3: run.bless_requests: must be between 1 and 100000, got 0"},
		// One bound for requests per prompt, however they are asked for.
		{"run: {requests: 100, bless_requests: 2000000}\n", 0, 0, ":3: run.bless_requests: must be between 1 and 100000, got 2000000"},
		// And one for what a target sends: 20 prompts × 60,000 bless requests.
		{"run: {requests: 100, bless_requests: 60000}\n", 0, 0, "run.bless_requests 60000 count too"},
	}
	for _, tt := range tests {
		src := head + tt.run
		if strings.Contains(tt.run, "60000") {
			src = "targets: [{name: t, base_url: sim}]\nprompts:\n" + manyPrompts(20) + tt.run
		}
		c, err := Parse([]byte(src), "l.yaml", Options{Getenv: func(string) string { return "" }})
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

// manyPrompts is a YAML list of n prompts p0, p1, …
func manyPrompts(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("  - {id: p" + strconv.Itoa(i) + ", messages: [{role: user, content: hi}]}\n")
	}
	return b.String()
}
