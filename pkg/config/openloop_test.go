package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestOpenLoop: run.rate makes an arrival-rate run with its defaults
// (poisson, 256 streams); run.duration sets the requests per prompt; a
// closed loop keeps neither default.
func TestOpenLoop(t *testing.T) {
	const head = "targets: [{name: a, base_url: sim}]\nprompts: [{id: p, messages: [{role: user, content: hi}]}, {id: q, messages: [{role: user, content: ho}]}]\n"
	tests := []struct {
		name, run string
		want      Run
	}{
		{"closed", "run: {requests: 10}", Run{Requests: 10, Warmup: 2, Concurrency: 1, Timeout: time.Minute, Order: "interleave", Seed: 1}},
		{"rate", "run: {rate: 8, requests: 10}", Run{Requests: 10, Warmup: 2, Concurrency: 1, Timeout: time.Minute, Order: "interleave", Seed: 1,
			Rate: 8, Arrival: ArrivalPoisson, MaxInFlight: 256}},
		{"duration", "run: {rate: 2.5, duration: 61s, arrival: constant, max_in_flight: 4}", Run{Requests: 77, Warmup: 2, Concurrency: 1, Timeout: time.Minute, Order: "interleave", Seed: 1,
			Rate: 2.5, Arrival: ArrivalConstant, Duration: 61 * time.Second, MaxInFlight: 4}}, // ⌈2.5 × 61 / 2⌉
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := mustParse(t, []byte(head+tt.run+"\n"), filepath.Join(t.TempDir(), "latgate.yaml"), Options{Getenv: noEnv, CheckSimSpec: checkSim})
			if diff := cmp.Diff(tt.want, cfg.Run); diff != "" {
				t.Errorf("run (-want +got):\n%s", diff)
			}
			if got := cfg.Run.OpenLoop(); got != (tt.want.Rate > 0) {
				t.Errorf("OpenLoop() = %v", got)
			}
		})
	}
}

// TestOpenLoopErrors: the open loop's keys without a rate, a rate with a
// concurrency, a duration with requests, and bad values are refused,
// naming the line, the key and the fix.
func TestOpenLoopErrors(t *testing.T) {
	const head = "targets: [{name: a, base_url: sim}]\nprompts: [{id: p, messages: [{role: user, content: hi}]}]\n"
	tests := []struct {
		name, run string
		want      []string
	}{
		{"arrival without rate", "run: {arrival: constant}", []string{"latgate.yaml:3: run.arrival: applies to an arrival-rate run only: set run.rate"}},
		{"max_in_flight without rate", "run: {max_in_flight: 8}", []string{"run.max_in_flight: applies to an arrival-rate run only"}},
		{"rate and concurrency", "run: {rate: 4, concurrency: 2}", []string{"run.concurrency: cannot be set with run.rate", "remove one"}},
		{"duration and requests", "run: {rate: 4, duration: 10s, requests: 5}", []string{"run.requests: cannot be set with run.duration"}},
		{"zero rate", "run: {rate: 0}", []string{"run.rate: must be between 0.01 and 10000, got 0; e.g. rate: 8"}},
		{"a bad rate is said once", "run: {rate: 20000, max_in_flight: 8}", []string{"latgate.yaml:3: run.rate: must be between 0.01 and 10000, got 20000"}},
		{"bad arrival", "run: {rate: 1, arrival: bursty}", []string{`run.arrival: "bursty" is not an arrival process; use poisson`}},
		{"bad max_in_flight", "run: {rate: 1, max_in_flight: 0}", []string{"run.max_in_flight: must be between 1 and 1024"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(head+tt.run+"\n"), "latgate.yaml", Options{Getenv: noEnv, CheckSimSpec: checkSim})
			if err == nil {
				t.Fatal("parsed, want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
			if strings.Count(err.Error(), "latgate.yaml:") != 1 {
				t.Errorf("error %q: want one problem", err)
			}
		})
	}
}
