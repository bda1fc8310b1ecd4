package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBlessRefusesControlCharactersFirst holds the CLI half of #16 item 7:
// bless measured everything and only then refused a model holding a line
// break and a closing code fence; now the config refuses it at load, so
// bless and check exit 2 before any request, with the config line, and
// print nothing raw.
func TestBlessRefusesControlCharactersFirst(t *testing.T) {
	t.Parallel()
	url, requests, _ := countingSim(t)
	dir := t.TempDir()
	cfg := writeConfig(t, dir, "targets:\n  - name: a\n    base_url: \""+url+"\"\n    model: \"m\\n```\\n# heading\\e[31m\"\n"+
		"prompts: [{id: p, messages: [{role: user, content: hi}]}]\nrun: {requests: 5, warmup: 0}\n")
	for _, cmd := range []string{"bless", "check"} {
		code, out, errs := run(t, nil, cmd, "--config", cfg, "--quiet", "--baseline", filepath.Join(dir, "b.json"))
		if code != ExitUsage {
			t.Fatalf("%s: exit %d, want %d\n%s\n%s", cmd, code, ExitUsage, out, errs)
		}
		if !strings.Contains(errs, `latgate.yaml:4: targets[0].model: holds a line break (\n) at byte 1`) {
			t.Errorf("%s: stderr:\n%s", cmd, errs)
		}
		if strings.ContainsAny(out+errs, "\x1b") || strings.Contains(out+errs, "\n```") {
			t.Errorf("%s: printed the model raw:\n%s\n%s", cmd, out, errs)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests were sent before the refusal", n)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.json")); err == nil {
		t.Errorf("a baseline was written")
	}
}
