package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/baseline"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// TestBlessMismatch: a results file is blessed under a config only when
// compare.Compatible finds nothing that differs, each difference said in
// terms of the file and the config.
func TestBlessMismatch(t *testing.T) {
	cfg, err := config.Parse([]byte(`targets: [{name: a, base_url: sim, model: m}]
prompts: [{id: p, messages: [{role: user, content: hi}]}, {id: q, messages: [{role: user, content: ho}]}]
run: {concurrency: 2}
`), filepath.Join(t.TempDir(), "latgate.yaml"), ConfigOptions(func(string) string { return "" }))
	if err != nil {
		t.Fatal(err)
	}
	file := func(edit func(*results.File)) *results.File {
		s := planned(cfg)
		f := &results.File{Run: s.Run, Targets: s.Targets}
		edit(f)
		return f
	}
	tests := []struct {
		name string
		f    *results.File
		want []string
	}{
		{"same", file(func(*results.File) {}), nil},
		{"regions of a merged file", file(func(f *results.File) {
			eu, us := f.Targets[0], f.Targets[0]
			eu.Region, us.Region = "eu", "us"
			f.Targets = []results.Target{eu, us}
		}), nil},
		{"edited prompt, other model, extra target", file(func(f *results.File) {
			t := &f.Targets[0]
			t.Prompts = []results.Prompt{{ID: "p", Hash: "other"}}
			t.Model = "m2"
			f.Targets = append(f.Targets, results.Target{Name: "b", Model: "m"})
		}), []string{
			`target "a": model is m2 in the file, m in the config`,
			`prompt "p" of target "a" differs from the config's text`,
			`prompt "q" of target "a" is missing`,
			`target "b" is not in the config`,
		}},
		{"concurrency", file(func(f *results.File) { f.Run.Concurrency = 4 }),
			[]string{"run.concurrency is 4 in the file, 2 in the config"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, blessMismatch(cfg, tt.f)); diff != "" {
				t.Errorf("blessMismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBlessRefusesUndecidableChecks: bless refuses a baseline too thin to
// decide one of its checks by the gate's own sample-size rule
// (compare.CannotGate: itl included, which bless's own copy of the rule
// skipped), naming that check and not the ones it can decide; with enough
// requests it measures run.bless_requests without changing what
// run.requests means.
func TestBlessRefusesUndecidableChecks(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "latgate.yaml")
	write := func(bless int) {
		t.Helper()
		if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`targets: [{name: a, base_url: "sim:fast", model: m, max_tokens: 8}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {requests: 2, bless_requests: %d, warmup: 0, concurrency: 4}
gate:
  checks:
    - {metric: ttft, stat: p50, tolerance: 20%%, floor: 50ms}
    - {metric: itl, stat: p95, tolerance: 25%%, floor: 50ms}
`, bless)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(8)
	a, _, stderr := testApp(t, nil)
	err := a.Bless(context.Background(), BlessRequest{Run: Run{ConfigPath: cfg, Quiet: true}})
	a.Out.Flush()
	if err == nil || !strings.Contains(err.Error(), "itl p95 needs at least 10") || strings.Contains(err.Error(), "ttft p50") {
		t.Errorf("bless of 8 requests: err %v, want the itl p95 check refused (and not ttft p50, which 8 requests decide)\n%s", err, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "latgate.baseline.json")); err == nil {
		t.Error("a baseline too thin for itl p95 was written")
	}
	write(12) // 12 requests of 7 gaps: the 72 gaps itl p95 needs
	a, _, stderr = testApp(t, nil)
	if err := a.Bless(context.Background(), BlessRequest{Run: Run{ConfigPath: cfg, Quiet: true}}); err != nil {
		t.Fatalf("bless: %v\n%s", err, stderr)
	}
	b, err := baseline.Load(filepath.Join(dir, "latgate.baseline.json"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(b.Targets[0].Prompts[0].Samples); n != 12 || b.Run.Requests != 12 {
		t.Errorf("baseline of %d samples, run.requests %d; want run.bless_requests (12) of both", n, b.Run.Requests)
	}
}
