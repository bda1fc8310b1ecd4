package inputfile_test

import (
	"os"
	"path/filepath"
	"testing"

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
}
