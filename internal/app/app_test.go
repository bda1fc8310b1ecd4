package app

import (
	"bytes"
	"testing"

	"github.com/latgate/latgate/internal/publish"
)

// testApp is an App on buffers, with the environment env.
func testApp(t *testing.T, env map[string]string) (a *App, stdout, stderr *bytes.Buffer) {
	t.Helper()
	stdout, stderr = &bytes.Buffer{}, &bytes.Buffer{}
	getenv := func(k string) string { return env[k] }
	out := publish.New(publish.Options{Stdout: stdout, Stderr: stderr, Getenv: getenv})
	return New(Deps{Out: out, Getenv: getenv}), stdout, stderr
}
