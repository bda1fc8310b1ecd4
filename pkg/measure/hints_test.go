package measure

import (
	"strings"
	"testing"

	"github.com/latgate/latgate/pkg/config"
)

func TestHint(t *testing.T) {
	ep := func(url, key string) Endpoint {
		return Endpoint{Target: config.Target{Model: "llama3", APIKeyEnv: "OPENAI_API_KEY"}, URL: url, APIKey: key}
	}
	tests := []struct {
		name   string
		status int
		ep     Endpoint
		want   string // "" for no hint
	}{
		{"401 with an empty key", 401, ep("https://api.example.com/v1", ""), "$OPENAI_API_KEY is empty or unset"},
		{"403 with a blank key", 403, ep("https://api.example.com/v1", "  "), "$OPENAI_API_KEY is empty or unset"},
		{"401 with a key", 401, ep("https://api.example.com/v1", "sk-x"), "check the API key in $OPENAI_API_KEY"},
		{"404 without /v1", 404, ep("http://user:pw@127.0.0.1:11434?x=1", "k"), "base_url has no /v1: most OpenAI-compatible servers answer at BASE/v1/chat/completions, so try base_url: http://127.0.0.1:11434/v1"},
		{"404 on Ollama's native /api", 404, ep("http://127.0.0.1:11434/api", "k"), "its OpenAI-compatible API is at /v1 instead, so try base_url: http://127.0.0.1:11434/v1"},
		{"404 on /api/ with a slash", 404, ep("http://127.0.0.1:11434/api/", "k"), "try base_url: http://127.0.0.1:11434/v1"},
		{"404 with /chat/completions pasted on", 404, ep("http://127.0.0.1:8000/v1/chat/completions/", "k"), "base_url ends in /chat/completions"},
		{"404 on a good base_url: the model", 404, ep("http://127.0.0.1:8000/v1", "k"), `check the model name "llama3"`},
		{"404 on a versioned gateway path", 404, ep("https://gw.example.com/openai/v1beta", "k"), `check the model name "llama3"`},
		{"500: none", 500, ep("http://127.0.0.1:8000", "k"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := hint(tt.status, tt.ep, "/chat/completions")
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Errorf("hint = %q, want one containing %q", got, tt.want)
			}
			if strings.Contains(got, "pw") || strings.Contains(got, "x=1") {
				t.Errorf("hint %q shows the URL's credentials or query", got)
			}
		})
	}
}
