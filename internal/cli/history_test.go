package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latgate/latgate/internal/history"
	"github.com/latgate/latgate/internal/testkit"
)

// TestHistoryExport (#32): a 20-night history exported as OpenMetrics is
// one timestamped sample per night of each series, in time order, ending
// with # EOF; Prometheus's promtool backfills it into a TSDB, and a series
// selector on that TSDB returns the 20 nights (when promtool is
// installed, as .ci/run does).
func TestHistoryExport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := testkit.WriteFile(t, dir, "latgate.yaml", `targets:
  - {name: primary, base_url: sim, model: gpt-x}
prompts:
  - {id: greeting, messages: [{role: user, content: hi}]}
history: latgate.history.jsonl
`)
	t0 := time.Date(2026, 11, 1, 3, 0, 0, 0, time.UTC)
	var lines []string
	for k := range 20 {
		r := history.Record{Schema: history.Schema, At: t0.AddDate(0, 0, k), Commit: "0123456789abcdef", Command: "check",
			Targets: []history.Target{{Name: "primary", Model: "gpt-x", Prompts: []history.Prompt{{ID: "greeting", Metrics: map[string]history.Stats{
				"ttft":         history.MakeStats(60, map[string]float64{"p50": 120 + float64(k), "p95": 180}),
				"tokens_per_s": history.MakeStats(60, map[string]float64{"p50": 50}),
			}}}}}}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	testkit.WriteFile(t, dir, "latgate.history.jsonl", strings.Join(lines, "\n")+"\n")
	om := filepath.Join(dir, "history.om")
	code, out, errs := run(t, nil, "history", "export", "--config", cfg, "--openmetrics", om)
	if code != ExitPass || !strings.Contains(errs, "20 runs exported to "+om) {
		t.Fatalf("history export: exit %d\n%s\n%s", code, out, errs)
	}
	text := testkit.ReadFile(t, om)
	first := `latgate_ttft_p50_seconds{target="primary",prompt="greeting",model="gpt-x"} 0.12 1.793502e+09`
	if !strings.Contains(text, "# UNIT latgate_ttft_p50_seconds seconds\n") || !strings.Contains(text, first) ||
		strings.Count(text, "latgate_ttft_p50_seconds{") != 20 || strings.Count(text, "latgate_tokens_per_second_p50{") != 20 || !strings.HasSuffix(text, "# EOF\n") {
		t.Errorf("the export is not 20 timestamped samples a series (want %q):\n%s", first, text)
	}

	bin, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("LATGATE_REQUIRE_PROMTOOL") != "" {
			t.Fatalf("LATGATE_REQUIRE_PROMTOOL is set but promtool is not on PATH: %v", err)
		}
		t.Log("promtool not installed: the backfill is not tried")
		return
	}
	db := filepath.Join(dir, "tsdb")
	if out, err := exec.Command(bin, "tsdb", "create-blocks-from", "openmetrics", om, db).CombinedOutput(); err != nil {
		t.Fatalf("promtool backfill: %v\n%s", err, out)
	}
	if err := os.MkdirAll(filepath.Join(db, "wal"), 0o755); err != nil { // dump opens the (empty) WAL too
		t.Fatal(err)
	}
	dump, err := exec.Command(bin, "tsdb", "dump", `--match=latgate_ttft_p50_seconds{prompt="greeting"}`, db).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool tsdb dump: %v\n%s", err, dump)
	}
	if n := strings.Count(string(dump), "latgate_ttft_p50_seconds"); n != 20 {
		t.Errorf("the backfilled TSDB holds %d samples of the series, want 20:\n%s", n, dump)
	}
	if _, err := os.Stat(filepath.Join(dir, "latgate.history.jsonl")); err != nil {
		t.Errorf("the history is gone: %v", err)
	}
}
