package cli

import (
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEndpointWordsInReports: a 404 from an endpoint configured without /v1
// (Ollama's answer to an unknown path or model) reaches every report of
// check, in the endpoint's own words and with the hint, not only as "http 3";
// a 401 with the key variable unset says that it is empty.
func TestEndpointWordsInReports(t *testing.T) {
	t.Parallel()
	const body = `model \"llama9\" not found, try pulling it first`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":{"message":"` + body + `","type":"api_error"}}`))
	}))
	defer srv.Close()
	dir := t.TempDir()
	cfg := faultConfig(t, dir, srv.URL, 40, 2)
	paths := map[string]string{}
	for _, n := range []string{"junit.xml", "report.md", "summary.md", "output.txt"} {
		paths[n] = filepath.Join(dir, n)
	}
	env := map[string]string{keyEnv: "k", "GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": paths["summary.md"], "GITHUB_OUTPUT": paths["output.txt"]}
	code, stdout, stderr := run(t, env, "check", "--config", cfg, "--quiet", "--junit", paths["junit.xml"], "--markdown", paths["report.md"])
	if code != ExitMeasurement {
		t.Fatalf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	words := []string{`HTTP 404: model "llama9" not found, try pulling it first`, "base_url has no /v1", srv.URL + "/v1"}
	got := map[string]string{"stderr": stderr}
	for _, n := range []string{"junit.xml", "report.md", "summary.md"} {
		data, err := os.ReadFile(paths[n])
		if err != nil {
			t.Fatalf("%s not written: %v", n, err)
		}
		got[n] = html.UnescapeString(string(data))
	}
	for name, text := range got {
		for _, w := range words {
			// The Markdown escapes punctuation; compare without backslashes.
			if !strings.Contains(strings.ReplaceAll(text, `\`, ""), w) {
				t.Errorf("%s lacks %q:\n%s", name, w, text)
			}
		}
	}

	t.Run("401 with the key variable unset", func(t *testing.T) {
		cfg := faultConfig(t, t.TempDir(), "sim:fast?require_key=right-key", 10, 1)
		code, stdout, stderr, _ := measured(t, nil, cfg)
		if code != ExitMeasurement || !strings.Contains(stderr, "$"+keyEnv+" is empty or unset") {
			t.Errorf("exit %d, stderr does not say $%s is empty:\n%s\nstdout:\n%s", code, keyEnv, stderr, stdout)
		}
	})
}
