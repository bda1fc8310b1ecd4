package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// tamperConfig is a one-target, two-prompt config on the simulator.
const tamperConfig = `targets:
  - name: sim
    base_url: "sim:fast"
    model: sim
    max_tokens: 8
prompts:
  - id: a
    messages:
      - {role: user, content: "Say hello."}
  - id: b
    messages:
      - {role: user, content: "Say bye."}
run:
  requests: 12
  bless_requests: 40 # the counts below are asserted; every default check needs 36
  warmup: 0
  concurrency: 2
`

// editJSON decodes the JSON file at src, lets edit change it, and writes it
// to dst.
func editJSON(t *testing.T, src, dst string, edit func(m map[string]any)) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// at walks a decoded JSON value: keys for objects, ints for arrays.
func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			v = v.(map[string]any)[k]
		case int:
			v = v.([]any)[k]
		}
	}
	return v
}

// TestTamperedBaselineRefused: a gutted or tampered baseline never switches
// the gate off. Against a run three times slower, every variant exits 2
// naming the JSON path of the problem, before measuring, and leaves the
// file byte-identical.
func TestTamperedBaselineRefused(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures")
	}
	dir := t.TempDir()
	cfg := writeConfig(t, dir, tamperConfig)
	good := filepath.Join(dir, "latgate.baseline.json")
	if code, _, errs := run(t, nil, "bless", "--config", cfg, "--quiet"); code != ExitPass {
		t.Fatalf("bless: exit %d\n%s", code, errs)
	}
	sample := func(m map[string]any, k int) map[string]any {
		return at(m, "targets", 0, "prompts", 1, "samples", k).(map[string]any)
	}
	thin := func(m map[string]any) {
		for j := range 2 {
			p := at(m, "targets", 0, "prompts", j).(map[string]any)
			p["samples"] = p["samples"].([]any)[:3]
			p["requests"], p["errors"] = 3, 0
			at(p, "metrics", "ttft").(map[string]any)["n"] = 3
		}
		at(m, "targets", 0).(map[string]any)["requests"] = 6
		at(m, "targets", 0).(map[string]any)["errors"] = 0
	}
	tests := []struct {
		name string
		edit func(m map[string]any)
		raw  func(s string) string // a textual edit instead
		want string
	}{
		{"empty sample sets", func(m map[string]any) {
			for j := range 2 {
				at(m, "targets", 0, "prompts", j).(map[string]any)["samples"] = []any{}
			}
		}, nil, "targets[0].prompts[0]"},
		{"negative sample", func(m map[string]any) { sample(m, 3)["ttft_ms"] = -5.0 }, nil, "targets[0].prompts[1].samples[3].ttft_ms: -5 ms cannot be"},
		{"zero sample", func(m map[string]any) { sample(m, 3)["ttft_ms"] = 0.0 }, nil, "targets[0].prompts[1].samples[3].ttft_ms: 0 ms cannot be"},
		{"absurd sample", func(m map[string]any) { sample(m, 3)["total_ms"] = 1e300 }, nil, "targets[0].prompts[1].samples[3].total_ms: 1e+300 ms is absurd"},
		{"negative itl", func(m map[string]any) { sample(m, 0)["itl_ms"].([]any)[1] = -1.0 }, nil, "targets[0].prompts[1].samples[0].itl_ms[1]"},
		{"first token after the end", func(m map[string]any) { sample(m, 2)["ttft_ms"] = 1e6 }, nil, "targets[0].prompts[1].samples[2].ttft_ms"},
		{"inconsistent counts", func(m map[string]any) { at(m, "targets", 0, "prompts", 0).(map[string]any)["requests"] = 41 }, nil, "targets[0].prompts[0].requests: 41, but the prompt has 40 samples"},
		{"run nulled", func(m map[string]any) { m["run"] = nil }, nil, "run.requests: 0 is out of range"},
		{"concurrency zero", func(m map[string]any) { at(m, "run").(map[string]any)["concurrency"] = 0 }, nil, "run.concurrency: 0 is out of range"},
		{"too few samples to gate", thin, nil, "targets[0].prompts[0] (sim/a) has 3 requests with a value of ttft, and ttft p50 needs at least 6"},
		{"escape codes in a returned model", func(m map[string]any) {
			at(m, "targets", 0).(map[string]any)["returned_models"] = []any{"sim\x1b[2J\x1b[31m"}
		}, nil, "targets[0].returned_models[0]: holds the control character U+001B"},
		{"a workflow command in the runner's name", func(m map[string]any) {
			m["runner"] = map[string]any{"os": "Linux", "arch": "X64", "name": "r1\n::error title=pwned::all good"}
		}, nil, "runner.name: holds the control character U+000A"},
		{"a newline in a prompt id", func(m map[string]any) {
			at(m, "targets", 0, "prompts", 0).(map[string]any)["id"] = "a\n::warning::x"
		}, nil, "targets[0].prompts[0].id: holds the control character U+000A"},
		// Text that displays otherwise than its bytes, and text an error
		// quotes before the file is validated, reach no output raw.
		{"a bidi override in the model", func(m map[string]any) {
			at(m, "targets", 0).(map[string]any)["model"] = "sim\u202eLIAF"
		}, nil, "targets[0].model: holds the formatting character U+202E"},
		{"escape codes in params.api", func(m map[string]any) {
			at(m, "targets", 0).(map[string]any)["params"].(map[string]any)["api"] = "chat\x1b[35mAPI\nforged"
		}, nil, "targets[0].params.api: holds the control character U+001B"},
		{"escape codes in the schema", func(m map[string]any) {
			m["schema"] = "latgate.results/v1\x1b[2J\u202e\n::error::forged"
		}, nil, "this is a results file (schema latgate.results/v1\\x1b[2J\\u202e\\n:\u200b:error::forged), not a baseline"},
		{"a duplicate target named with escape codes", func(m map[string]any) {
			ts := m["targets"].([]any)
			ts[0].(map[string]any)["name"] = "sim\x1b[31mRED"
			m["targets"] = append(ts, ts[0])
		}, nil, `target sim\x1b[31mRED appears twice`},
		{"a denormal duration", func(m map[string]any) { sample(m, 3)["ttft_ms"] = 5e-324 }, nil,
			"targets[0].prompts[1].samples[3].ttft_ms: 5e-324 ms is below the microsecond latgate stores"},
		{"a summary no run has", func(m map[string]any) {
			at(m, "targets", 0, "prompts", 1, "metrics", "ttft").(map[string]any)["p50_ms"] = -123.0
		}, nil, "targets[0].prompts[1].metrics.ttft.p50: -123 ms cannot be"},
		{"summaries out of order", func(m map[string]any) {
			at(m, "targets", 0, "prompts", 1, "metrics", "ttft").(map[string]any)["p95_ms"] = 0.5
		}, nil, "targets[0].prompts[1].metrics.ttft.p95: 0.5 is below p50"},
		{"duplicate key", nil, func(s string) string {
			return regexp.MustCompile(`"ttft_ms":\s*`).ReplaceAllStringFunc(s, func(k string) string { return `"ttft_ms": 1, ` + k })
		}, "key targets[0].prompts[0].samples[0].ttft_ms appears twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad := filepath.Join(t.TempDir(), "baseline.json")
			if tt.edit != nil {
				editJSON(t, good, bad, tt.edit)
			} else {
				data, err := os.ReadFile(good)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(bad, []byte(tt.raw(string(data))), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			before, _ := os.ReadFile(bad)
			code, stdout, stderr := run(t, nil, "check", "--config", cfg, "--baseline", bad, "--quiet",
				"--base-url", "sim:fast?ttft_factor=3")
			if code != ExitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("check: exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
			if strings.Contains(stdout, "PASS") || strings.Contains(stdout, "TTFT") {
				t.Errorf("check measured or passed:\n%s", stdout)
			}
			if strings.ContainsAny(stdout+stderr, "\x1b\u202e") {
				t.Errorf("check printed the file's escape codes raw:\n%q\n%q", stdout, stderr)
			}
			res := filepath.Join(t.TempDir(), "r.json")
			if code, _, errs := run(t, nil, "measure", "--config", cfg, "--quiet", "--out", res); code != ExitPass {
				t.Fatalf("measure: exit %d\n%s", code, errs)
			}
			code, _, stderr = run(t, nil, "compare", "--config", cfg, bad, res)
			if code != ExitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("compare: exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
			if after, _ := os.ReadFile(bad); string(after) != string(before) {
				t.Errorf("the baseline changed")
			}
		})
	}
}

// TestBlessNeverWritesAnUngateableBaseline: bless --from a tampered results
// file, and bless --force after every request failed, leave the good
// baseline byte-identical and exit non-zero naming the problem.
func TestBlessNeverWritesAnUngateableBaseline(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures")
	}
	dir := t.TempDir()
	cfg := writeConfig(t, dir, tamperConfig)
	base := filepath.Join(dir, "latgate.baseline.json")
	if code, _, errs := run(t, nil, "bless", "--config", cfg, "--quiet"); code != ExitPass {
		t.Fatalf("bless: exit %d\n%s", code, errs)
	}
	good, _ := os.ReadFile(base)
	res := filepath.Join(dir, "results.json")
	if code, _, errs := run(t, nil, "measure", "--config", cfg, "--quiet", "--out", res); code != ExitPass {
		t.Fatalf("measure: exit %d\n%s", code, errs)
	}
	tests := []struct {
		name     string
		edit     func(m map[string]any)
		args     []string
		wantCode int
		want     string
	}{
		{"--from negative samples", func(m map[string]any) {
			at(m, "targets", 0, "prompts", 0, "samples", 2).(map[string]any)["ttft_ms"] = -3.0
		}, nil, ExitUsage, "targets[0].prompts[0].samples[2].ttft_ms: -3 ms cannot be"},
		{"--from concurrency 0", func(m map[string]any) { at(m, "run").(map[string]any)["concurrency"] = 0 }, nil, ExitUsage, "run.concurrency: 0 is out of range"},
		{"--from run null", func(m map[string]any) { m["run"] = nil }, nil, ExitUsage, "run.requests: 0 is out of range"},
		{"--from --force, empty prompt", func(m map[string]any) {
			p := at(m, "targets", 0, "prompts", 0).(map[string]any)
			p["samples"], p["requests"], p["errors"] = []any{}, 0, 0
			at(p, "metrics").(map[string]any)["ttft"] = nil
			tg := at(m, "targets", 0).(map[string]any)
			tg["requests"] = 12.0
		}, []string{"--force"}, ExitUsage, "prompt \"a\" has no samples"},
		// The run gives up at the second failure (the budget is out of reach):
		// a partial run, which bless never writes, --force or not.
		{"--force after every request failed", nil, []string{"--force", "--base-url", "sim:fast?fault=500&fault_every=1"}, ExitMeasurement, "gave up after"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"bless", "--config", cfg, "--quiet"}
			if tt.edit != nil {
				bad := filepath.Join(t.TempDir(), "bad.json")
				editJSON(t, res, bad, tt.edit)
				args = append(args, "--from", bad)
			}
			code, _, stderr := run(t, nil, append(args, tt.args...)...)
			if code != tt.wantCode || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tt.wantCode, tt.want)
			}
			if now, _ := os.ReadFile(base); string(now) != string(good) {
				t.Errorf("the baseline was overwritten")
			}
		})
	}
}

// TestTamperedITLCannotPassASlowdown is #16 item 4: a baseline whose itl
// gaps were emptied, removed or zeroed used to pass a 3× slower stream on
// an itl-only gate ("PASS: 2 inconclusive (2 without data)", exit 0), since
// the thin-baseline rule counted requests, not the gated metric's values.
// Now emptied or removed gaps are refused (exit 2, naming the check), and
// zeroed ones are a baseline of 0 ms gaps, which the gate decides on the
// difference: a 40× slower stream (gaps of about 40 ms, far beyond what a
// busy runner's delay explains, #29) is a regression (exit 1). Through the
// real check on the simulator.
func TestTamperedITLCannotPassASlowdown(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures")
	}
	dir := t.TempDir()
	cfg := writeConfig(t, dir, strings.Replace(tamperConfig, "run:", `gate:
  checks:
    - {metric: itl, stat: p50, tolerance: 15%}
    - {metric: itl, stat: p95, tolerance: 25%}
run:`, 1))
	good := filepath.Join(dir, "latgate.baseline.json")
	if code, _, errs := run(t, nil, "bless", "--config", cfg, "--quiet"); code != ExitPass {
		t.Fatalf("bless: exit %d\n%s", code, errs)
	}
	each := func(f func(s map[string]any)) func(m map[string]any) {
		return func(m map[string]any) {
			for j := range 2 {
				for _, s := range at(m, "targets", 0, "prompts", j, "samples").([]any) {
					f(s.(map[string]any))
				}
			}
		}
	}
	tests := []struct {
		name string
		edit func(m map[string]any)
		code int
		want string
	}{
		{"emptied", each(func(s map[string]any) { s["itl_ms"] = []any{} }), ExitUsage,
			"has 0 requests with a token gap of itl, and itl p50 needs at least 10, itl p95 needs at least 10"},
		{"removed", each(func(s map[string]any) { delete(s, "itl_ms") }), ExitUsage,
			"has 0 requests with a token gap of itl, and itl p50 needs at least 10, itl p95 needs at least 10"},
		{"zeroed", each(func(s map[string]any) {
			for k := range s["itl_ms"].([]any) {
				s["itl_ms"].([]any)[k] = 0.0
			}
		}), ExitRegression, "REGRESSED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad := filepath.Join(t.TempDir(), "baseline.json")
			editJSON(t, good, bad, tt.edit)
			code, stdout, stderr := run(t, nil, "check", "--config", cfg, "--baseline", bad, "--quiet",
				"--base-url", "sim:fast?slowdown=40")
			if code != tt.code || !strings.Contains(stdout+stderr, tt.want) {
				t.Errorf("check: exit %d, want %d and %q\nstdout:\n%s\nstderr:\n%s", code, tt.code, tt.want, stdout, stderr)
			}
			if strings.HasPrefix(statusLine(stdout), "PASS") {
				t.Errorf("a 40× slower stream passed:\n%s", stdout)
			}
		})
	}
}
