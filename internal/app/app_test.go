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

// TestCommitURL: the history records a run's commit page where the CI says
// where the repository is (GitHub Actions, GitLab CI), and nothing
// elsewhere or for a commit that is not one.
func TestCommitURL(t *testing.T) {
	for _, tt := range []struct {
		env    map[string]string
		commit string
		want   string
	}{
		{map[string]string{"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "acme/app"}, "abc123", "https://github.com/acme/app/commit/abc123"},
		{map[string]string{"CI_PROJECT_URL": "https://gitlab.com/acme/app/"}, "abc123", "https://gitlab.com/acme/app/-/commit/abc123"},
		{map[string]string{}, "abc123", ""},
		{map[string]string{"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "acme/app"}, "", ""},
		{map[string]string{"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "acme/app"}, "../x?y", ""},
	} {
		a, _, _ := testApp(t, tt.env)
		if got := a.commitURL(tt.commit); got != tt.want {
			t.Errorf("commitURL(%q) with %v = %q, want %q", tt.commit, tt.env, got, tt.want)
		}
	}
}
