package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/latgate/latgate/internal/testkit"
)

// pathsConfig is a config with a messages_file, on the simulator.
const pathsConfig = `targets:
  - name: sim
    base_url: "sim:fast"
    model: sim
    max_tokens: 8
prompts:
  - id: inline
    messages:
      - {role: user, content: "Say hello."}
  - id: fromfile
    messages_file: msgs.json
run:
  requests: 6
  warmup: 0
  concurrency: 2
  bless_requests: 40 # a baseline every default check can be decided against
`

// pathsFixture writes a config, its messages file, a baseline and a results
// file in a fresh directory, and returns their paths.
func pathsFixture(t *testing.T) (dir, cfg, msgs, base, res string) {
	t.Helper()
	dir = t.TempDir()
	cfg = writeConfig(t, dir, pathsConfig)
	msgs = filepath.Join(dir, "msgs.json")
	if err := os.WriteFile(msgs, []byte(`[{"role":"user","content":"Summarize: latency."}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	base = filepath.Join(dir, "latgate.baseline.json")
	res = filepath.Join(dir, "results.json")
	if code, _, errs := run(t, nil, "bless", "--config", cfg, "--quiet", "--force"); code != ExitPass {
		t.Fatalf("bless: exit %d\n%s", code, errs)
	}
	if code, _, errs := run(t, nil, "measure", "--config", cfg, "--quiet", "--out", res); code != ExitPass {
		t.Fatalf("measure: exit %d\n%s", code, errs)
	}
	return dir, cfg, msgs, base, res
}

// TestOutputsNeverOverwriteInputs: every output of every command that names
// an input (config, messages_file, baseline, results inputs) or another
// output, directly, through a symbolic link or a hard link, is refused with
// exit 2 before anything runs, and every input stays byte-identical; an
// output that cannot be written is found before measuring.
func TestOutputsNeverOverwriteInputs(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures")
	}
	dir, cfg, msgs, base, res := pathsFixture(t)
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(cfg, link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.json")
	if err := os.Link(base, hard); err != nil {
		t.Fatal(err)
	}
	notDir := filepath.Join(dir, "msgs.json", "out.json") // under a file
	outside := filepath.Join(t.TempDir(), "victim.json")
	if err := os.WriteFile(outside, []byte("victim"), 0o644); err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(dir, "elsewhere.json")
	if err := os.Symlink(outside, elsewhere); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"measure -o config", []string{"measure", "-c", cfg, "-o", cfg}, "--out " + cfg + " is the config"},
		{"measure -o messages file", []string{"measure", "-c", cfg, "-o", msgs}, `is the messages_file of prompt "fromfile"`},
		{"measure -o symlink to config", []string{"measure", "-c", cfg, "-o", link}, "is the config"},
		{"measure -o baseline", []string{"measure", "-c", cfg, "-o", base}, "is the baseline"},
		{"check --junit config", []string{"check", "-c", cfg, "--junit", cfg}, "--junit " + cfg + " is the config"},
		{"check --markdown hard link of baseline", []string{"check", "-c", cfg, "--markdown", hard}, "is the baseline"},
		{"check -o messages", []string{"check", "-c", cfg, "-o", msgs}, "is the messages_file"},
		{"check two outputs", []string{"check", "-c", cfg, "--junit", filepath.Join(dir, "r.xml"), "--markdown", filepath.Join(dir, ".", "r.xml")}, "is also --junit"},
		{"check unwritable --junit", []string{"check", "-c", cfg, "--junit", notDir}, "cannot be written"},
		{"check --out is a directory", []string{"check", "-c", cfg, "--out", dir}, "it is a directory"},
		{"measure unwritable --out", []string{"measure", "-c", cfg, "--out", "/proc/latgate-results.json"}, "cannot be written"},
		{"bless -b config --force", []string{"bless", "-c", cfg, "-b", cfg, "--force"}, "the baseline " + cfg + " is the config"},
		{"bless -b messages", []string{"bless", "-c", cfg, "-b", msgs}, "is the messages_file"},
		{"bless --from is the baseline", []string{"bless", "-c", cfg, "--from", base}, "is --from"},
		{"compare --junit results", []string{"compare", "--junit", res, base, res}, "--junit " + res + " is RESULTS"},
		{"compare --markdown config", []string{"compare", "-c", cfg, "--markdown", link, base, res}, "is the config"},
		{"merge -o input", []string{"merge", "-o", res, res}, "--out " + res + " is the input"},
		{"merge -o hard link of input", []string{"merge", "-o", hard, base, res}, "is the input"},
		// #27: an output that is a link is not written through, wherever
		// it points (bless would write the baseline there).
		{"bless -b symlink elsewhere", []string{"bless", "-c", cfg, "-b", elsewhere, "--force"}, "the baseline " + elsewhere + " is a symbolic link to " + outside},
		{"measure -o symlink elsewhere", []string{"measure", "-c", cfg, "-o", elsewhere}, "--out " + elsewhere + " is a symbolic link"},
		{"check --history symlink", []string{"check", "-c", cfg, "--history", elsewhere}, "--history " + elsewhere + " is a symbolic link"},
	}
	before := testkit.Snapshot(t, dir)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md")}, tt.args...)
			if code != ExitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
			if strings.Contains(stdout, "TTFT") {
				t.Errorf("measured before refusing:\n%s", stdout)
			}
			after := testkit.Snapshot(t, dir)
			for name, data := range before {
				if string(after[name]) != string(data) {
					t.Errorf("%s changed", name)
				}
			}
			for name := range after {
				if _, ok := before[name]; !ok {
					t.Errorf("%s was created", name)
				}
			}
		})
	}
	if got := testkit.ReadFile(t, outside); got != "victim" {
		t.Errorf("the file a link points to was written: %q", got)
	}
}

// TestSummaryNamingAnInputRefused: $GITHUB_STEP_SUMMARY or $GITHUB_OUTPUT
// naming the config is refused too, and nothing is appended to it.
func TestSummaryNamingAnInputRefused(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures")
	}
	dir, cfg, _, _, _ := pathsFixture(t)
	before := testkit.Snapshot(t, dir)
	for _, v := range []string{"GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT"} {
		code, _, stderr := run(t, map[string]string{"GITHUB_ACTIONS": "true", v: cfg}, "check", "-c", cfg)
		if code != ExitUsage || !strings.Contains(stderr, "$"+v+" "+cfg+" is the config") {
			t.Errorf("%s: exit %d, stderr %q", v, code, stderr)
		}
	}
	after := testkit.Snapshot(t, dir)
	if string(after["latgate.yaml"]) != string(before["latgate.yaml"]) {
		t.Errorf("the config changed")
	}
}

// TestInputsMustBeRegularFiles: a FIFO (or a directory, or a device) as the
// config, a messages_file, the baseline, a --from or RESULTS file, or the
// history trend and tune read (issue #16 item 1: they hung) is refused
// at once with exit 2 naming it: never a hang.
func TestInputsMustBeRegularFiles(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures")
	}
	dir, cfg, msgs, base, res := pathsFixture(t)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFOs: %v", err)
	}
	fifoCfg := writeConfig(t, t.TempDir(), strings.Replace(pathsConfig, "msgs.json", fifo, 1))
	_ = msgs
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"config fifo", []string{"measure", "-c", fifo}, "a named pipe (FIFO)"},
		{"config directory", []string{"measure", "-c", dir}, "a directory"},
		{"config device", []string{"measure", "-c", "/dev/zero"}, "a device"},
		{"messages_file fifo", []string{"measure", "-c", fifoCfg}, "a named pipe (FIFO)"},
		{"baseline fifo", []string{"check", "-c", cfg, "-b", fifo}, "a named pipe (FIFO)"},
		{"bless --from fifo", []string{"bless", "-c", cfg, "--from", fifo, "-b", filepath.Join(dir, "new.json")}, "a named pipe (FIFO)"},
		{"compare RESULTS fifo", []string{"compare", base, fifo}, "a named pipe (FIFO)"},
		{"compare BASELINE fifo", []string{"compare", fifo, res}, "a named pipe (FIFO)"},
		{"merge fifo", []string{"merge", fifo}, "a named pipe (FIFO)"},
		{"trend --history fifo", []string{"trend", "-c", cfg, "--history", fifo}, "a named pipe (FIFO)"},
		{"tune --history fifo", []string{"tune", "-c", cfg, "--history", fifo}, "a named pipe (FIFO)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			type result struct {
				code           int
				stdout, stderr string
			}
			done := make(chan result, 1)
			go func() {
				code, stdout, stderr := run(t, nil, tt.args...)
				done <- result{code, stdout, stderr}
			}()
			select {
			case r := <-done:
				if r.code != ExitUsage || !strings.Contains(r.stderr, tt.want) {
					t.Errorf("exit %d, stderr %q; want 2 and %q", r.code, r.stderr, tt.want)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("%v hangs on a FIFO", tt.args)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "new.json")); err == nil {
		t.Errorf("bless --from a FIFO wrote a baseline")
	}
}

// TestMessagesFileNotUTF8Refused: a messages_file with bytes that are not
// UTF-8 is exit 2 naming the file and the byte offset, before measuring,
// and nothing is written.
func TestMessagesFileNotUTF8Refused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := writeConfig(t, dir, pathsConfig)
	msgs := filepath.Join(dir, "msgs.json")
	if err := os.WriteFile(msgs, []byte("[{\"role\":\"user\",\"content\":\"caf\xe9\"}]"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := testkit.Snapshot(t, dir)
	out := filepath.Join(dir, "out.json")
	code, stdout, stderr := run(t, nil, "measure", "--config", cfg, "--quiet", "--out", out)
	want := msgs + ": byte offset 30 (0xe9) is not UTF-8; save the file as UTF-8"
	if code != ExitUsage || !strings.Contains(stderr, want) || stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, stdout, stderr, want)
	}
	after := testkit.Snapshot(t, dir)
	if len(after) != len(before) || string(after["msgs.json"]) != string(before["msgs.json"]) || string(after["latgate.yaml"]) != string(before["latgate.yaml"]) {
		t.Errorf("files changed: before %d, after %d", len(before), len(after))
	}
}
