package cli

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/latgate/latgate/internal/testkit"
	"github.com/latgate/latgate/pkg/results"
)

// interrupt runs the latgate binary with args, sends sig once it has
// reported progress (some requests are done, most are not), and returns its
// exit code and output.
func interrupt(t *testing.T, bin string, sig os.Signal, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "GITHUB_ACTIONS=") // not inside Actions
	cmd.Stdout = &out
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	progress := make(chan struct{})
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(pipe)
		sent := false
		for sc.Scan() {
			errb.WriteString(sc.Text() + "\n")
			if !sent && strings.Contains(sc.Text(), " requests") {
				sent = true
				close(progress)
			}
		}
	}()
	// Generous: it only bounds a broken test on a slow machine.
	select {
	case <-progress:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-scanned
		cmd.Wait()
		t.Fatalf("no progress within 60 s\nstderr:\n%s", errb.String())
	}
	sentAt := time.Now()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	<-scanned
	err = cmd.Wait()
	if el := time.Since(sentAt); el > 15*time.Second {
		t.Errorf("latgate took %v to stop after %v", el, sig)
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		code = 0
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// TestSignals interrupts check, measure and bless with SIGINT and SIGTERM in
// the middle of a run: each exits 3, check and measure write the requests
// done so far marked partial, and the baseline is never touched.
func TestSignals(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds latgate and runs it")
	}
	bin := testkit.Latgate(t)
	dir := t.TempDir()
	const requests = 60
	cfg := faultConfig(t, dir, "sim:fast", requests, 8)
	basePath := filepath.Join(dir, "latgate.baseline.json")
	if code, stdout, stderr := run(t, nil, "bless", "--config", cfg, "--quiet", "--force"); code != ExitPass {
		t.Fatalf("bless: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	blessed, err := os.ReadFile(basePath)
	if err != nil {
		t.Fatal(err)
	}
	// About 150 ms a request, 8 at a time: over a second for the whole run.
	const slow = "sim:default?ttft=150ms&ttft_sigma=0"

	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		for _, command := range []string{"check", "measure", "bless"} {
			t.Run(command+"/"+sig.String(), func(t *testing.T) {
				out := filepath.Join(dir, command+".results.json")
				args := []string{command, "--config", cfg, "--base-url", slow}
				if command != "bless" {
					args = append(args, "--out", out)
				}
				code, stdout, stderr := interrupt(t, bin, sig, args...)
				if code != ExitMeasurement {
					t.Errorf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
				}
				if !strings.Contains(stdout, "PARTIAL RUN: measurement interrupted") {
					t.Errorf("stdout does not say the run is partial:\n%s", stdout)
				}
				now, err := os.ReadFile(basePath)
				if err != nil || !bytes.Equal(now, blessed) {
					t.Errorf("the baseline changed (%v)", err)
				}
				testkit.AssertNoTemp(t, dir)
				if command == "bless" {
					if !strings.Contains(stderr, "was not changed") {
						t.Errorf("stderr does not say the baseline was not changed:\n%s", stderr)
					}
					return
				}
				f, err := results.Read(out)
				if err != nil {
					t.Fatalf("no partial results: %v\nstderr:\n%s", err, stderr)
				}
				n := len(f.Targets[0].Prompts[0].Samples)
				if !f.Partial || !strings.Contains(f.PartialReason, "interrupted") || n == 0 || n >= requests {
					t.Errorf("partial %v (%q) with %d samples; want a partial run with some of the %d", f.Partial, f.PartialReason, n, requests)
				}
				if fl := f.Targets[0].Prompts[0].Failures; len(fl) > 0 {
					t.Errorf("requests cut by the signal were recorded as failures: %+v", fl)
				}
			})
		}
	}
}
