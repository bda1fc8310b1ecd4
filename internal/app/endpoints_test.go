package app

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

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

// TestServeEnviron: a serve: process gets latgate's environment without
// the targets' credentials and credential-named variables, but for
// pass_env; its output's redactor knows the passed values and URL
// passwords, and nothing else.
func TestServeEnviron(t *testing.T) {
	cfg := &config.Config{Targets: []config.Target{{Name: "app", APIKeyEnv: "APP_GATEWAY_SECRET_HEADER"}}}
	environ := []string{
		"PATH=/usr/bin", "PWD=/repo", "TOKENIZERS_PARALLELISM=false", "AUTH_ENABLED=true",
		"APP_GATEWAY_SECRET_HEADER=gw-0123456789", "OPENAI_API_KEY=sk-Pass3dKey0123", "GITHUB_TOKEN=ghs_NotForTheApp01",
		"PGPASSWORD=pgpw-0123456789", "MYSQL_PWD=mysqlpw-01234", "SENTRY_DSN=https://k@sentry.example/1",
		"DATABASE_URL=postgres://app:Db-Pw-0123456@db:5432/app", "GOOGLE_APPLICATION_CREDENTIALS=/home/runner/creds.json",
	}
	got, withheld, r := serveEnviron(environ, cfg, []string{"OPENAI_API_KEY"})
	if d := cmp.Diff([]string{"APP_GATEWAY_SECRET_HEADER", "GITHUB_TOKEN", "PGPASSWORD", "MYSQL_PWD", "SENTRY_DSN", "GOOGLE_APPLICATION_CREDENTIALS"}, withheld); d != "" {
		t.Errorf("withheld (-want +got):\n%s", d)
	}
	want := []string{"PATH=/usr/bin", "PWD=/repo", "TOKENIZERS_PARALLELISM=false", "AUTH_ENABLED=true", "OPENAI_API_KEY=sk-Pass3dKey0123",
		"DATABASE_URL=postgres://app:Db-Pw-0123456@db:5432/app"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("environment (-want +got):\n%s", d)
	}
	line := "key sk-Pass3dKey0123 db postgres://app:Db-Pw-0123456@db in /home/runner/work/app/latgate.yaml auth true"
	if got, want := r.Redact(line), "key [REDACTED] db postgres://app:[REDACTED]@db in /home/runner/work/app/latgate.yaml auth true"; got != want {
		t.Errorf("redacted\n %q, want\n %q", got, want)
	}
}
