package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProgressInCIOnATerminal runs measure with stderr said to be a
// terminal but CI=true: the progress must be plain lines, with the figures.
func TestProgressInCIOnATerminal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "latgate.yaml")
	if err := os.WriteFile(cfg, []byte(gateConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		env   map[string]string
		plain bool
	}{{map[string]string{"CI": "true"}, true}, {map[string]string{"GITHUB_ACTIONS": "true"}, true}, {nil, false}} {
		var out, errb bytes.Buffer
		code := Main(context.Background(), []string{"latgate", "measure", "--config", cfg, "--requests", "10"}, Env{
			Stdout: &out, Stderr: &errb, StderrIsTerminal: true,
			Getenv: func(k string) string { return tt.env[k] },
		})
		if code != 0 {
			t.Fatalf("env %v: exit %d\n%s", tt.env, code, errb.String())
		}
		stderr := errb.String()
		if got := !strings.Contains(stderr, "\r"); got != tt.plain {
			t.Errorf("env %v: plain = %t, want %t:\n%q", tt.env, got, tt.plain, stderr)
		}
		if !strings.Contains(stderr, "elapsed") || !strings.Contains(stderr, "TTFT P50 ") {
			t.Errorf("env %v: progress without elapsed time or TTFT P50:\n%q", tt.env, stderr)
		}
	}
}
