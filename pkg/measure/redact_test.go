package measure

import (
	"encoding/base64"
	"testing"
)

func TestRedactor(t *testing.T) {
	const key = "sk-test-0123456789"
	basic := base64.StdEncoding.EncodeToString([]byte("bob:s3cret!@x"))
	tests := []struct {
		name, key, url, msg, want string
	}{
		{"key", key, "http://127.0.0.1/v1", "bad key " + key + " given", "bad key [REDACTED] given"},
		{"key twice", key, "", key + "," + key, "[REDACTED],[REDACTED]"},
		{"key clipped", key, "", "Authorization: Bearer sk-test-0123…", "Authorization: Bearer [REDACTED]…"},
		{"clipped, not the key", key, "", "a long body…", "a long body…"},
		{"no key", "", "", "nothing " + key[:3] + "…", "nothing sk-…"},
		{"password decoded", "", "http://bob:s3cret%21%40x@127.0.0.1/v1", "pass s3cret!@x here", "pass [REDACTED] here"},
		{"password as written", "", "http://bob:s3cret%21%40x@127.0.0.1/v1", "url bob:s3cret%21%40x@host", "url [REDACTED]@host"},
		{"basic auth", "", "http://bob:s3cret%21%40x@127.0.0.1/v1", "Authorization: Basic " + basic, "Authorization: Basic [REDACTED]"},
		{"user without password", "", "http://bob@127.0.0.1/v1", "user bob", "user bob"},
		{"too short to redact", "", "http://bob:x@127.0.0.1/v1", "x marks", "x marks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := redactor(tt.key, tt.url)(tt.msg); got != tt.want {
				t.Errorf("redact(%q) = %q, want %q", tt.msg, got, tt.want)
			}
		})
	}
}
