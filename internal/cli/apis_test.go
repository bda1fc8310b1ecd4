package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// TestExamplePerAPI: examples/<api>/latgate.yaml exists for every api,
// says so, and measures the built-in simulator (which speaks every API)
// through the whole command: every request a sample, the api recorded.
func TestExamplePerAPI(t *testing.T) {
	t.Parallel()
	for _, api := range config.APIs() {
		t.Run(api, func(t *testing.T) {
			path := filepath.Join("..", "..", "examples", api, "latgate.yaml")
			cfg, err := config.Load(path, config.Options{Getenv: func(string) string { return "" }})
			if err != nil {
				t.Fatal(err)
			}
			for _, tg := range cfg.Targets {
				if tg.APIName() != api {
					t.Errorf("target %q speaks %s, want %s", tg.Name, tg.APIName(), api)
				}
			}
			out := filepath.Join(t.TempDir(), "results.json")
			code, stdout, stderr := run(t, nil, "measure", "--config", path, "--base-url", "sim:fast", "--requests", "2", "--warmup", "0", "--quiet", "--out", out)
			if code != ExitPass {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var f results.File
			if err := json.Unmarshal(b, &f); err != nil {
				t.Fatal(err)
			}
			for _, tg := range f.Targets {
				want := api
				if api == config.APIChat {
					want = "" // chat results are what they were before api existed
				}
				if tg.Params.API != want || tg.Errors != 0 || tg.Requests != 2*len(cfg.Prompts) {
					t.Errorf("target %q: api %q, %d requests, %d errors; want api %q, %d requests, none failed", tg.Name, tg.Params.API, tg.Requests, tg.Errors, want, 2*len(cfg.Prompts))
				}
			}
		})
	}
}
