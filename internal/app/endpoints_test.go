package app

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latgate/latgate/pkg/config"
)

// TestSimOutlivesInterrupt: the built-in simulator is the endpoint, not part
// of the run: when the run's context is cancelled (Ctrl-C) it keeps serving
// until stopped, so the requests in flight end as cancelled (not counted)
// rather than as streams the server ended early (counted as truncated).
func TestSimOutlivesInterrupt(t *testing.T) {
	cfg, err := config.Parse([]byte(`targets: [{name: t, base_url: "sim:fast"}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`), filepath.Join(t.TempDir(), "latgate.yaml"), config.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	eps, stop, err := Endpoints(ctx, cfg, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	cancel()
	time.Sleep(200 * time.Millisecond) // time for a context.AfterFunc to close it
	resp, err := http.Post(eps[0].URL+"/chat/completions", "application/json",
		strings.NewReader(`{"model": "m", "messages": [{"role": "user", "content": "hi"}]}`))
	if err != nil {
		t.Fatalf("the simulator stopped with the run's context: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the simulator answers %s after the run's context ended, want 200 OK", resp.Status)
	}
}
