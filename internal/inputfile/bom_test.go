package inputfile_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/latgate/latgate/internal/history"
	"github.com/latgate/latgate/pkg/baseline"
	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// TestEveryInputAcceptsABOM: a UTF-8 byte-order mark, which some editors
// save, is accepted on every input latgate reads, because every one is read
// through inputfile.Read (#16: the config accepted one, a baseline failed
// with "invalid character 'ï'", and so did a messages_file).
func TestEveryInputAcceptsABOM(t *testing.T) {
	const bom = "\xef\xbb\xbf"
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, append([]byte(bom), data...), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	read := func(p string) []byte {
		t.Helper()
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	write("q.json", []byte(`[{"role": "user", "content": "hi"}]`))
	cfg := write("latgate.yaml", []byte("targets: [{name: a, base_url: sim}]\nprompts: [{id: q, messages_file: q.json}]\n"))
	c, err := config.Load(cfg, config.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Errorf("config and messages_file with a BOM: %v", err)
	} else if got := c.Prompts[0].Messages[0].Content; got != "hi" {
		t.Errorf("messages_file content = %q", got)
	}
	root := filepath.Join("..", "..")
	base := write("latgate.baseline.json", read(filepath.Join(root, "examples", "latgate.baseline.json")))
	if _, err := baseline.Load(base); err != nil {
		t.Errorf("baseline with a BOM: %v", err)
	}
	res := write("results.json", read(filepath.Join(root, "internal", "cli", "testdata", "compare", "results.json")))
	if _, err := results.Read(res); err != nil {
		t.Errorf("results file with a BOM: %v", err)
	}
	plain := filepath.Join(dir, "plain.jsonl")
	rec := history.Record{Schema: history.Schema, At: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Command: "check",
		Targets: []history.Target{{Name: "a", Prompts: []history.Prompt{{ID: "q", Metrics: map[string]history.Stats{"ttft": history.MakeStats(5, map[string]float64{"p50": 10, "p95": 20})}}}}}}
	if _, err := history.Append(plain, rec, 0); err != nil {
		t.Fatal(err)
	}
	h, err := history.Read(write("h.jsonl", read(plain)))
	if err != nil || len(h.Records) != 1 || len(h.Problems) != 0 {
		t.Errorf("history with a BOM: %v, %d records, problems %v", err, len(h.Records), h.Problems)
	}
}
