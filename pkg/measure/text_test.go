package measure

import (
	"context"
	"strings"
	"testing"
)

// TestReturnedModelDecoded (on the wire): a returned model and fingerprint
// are stored as the endpoint meant them, their JSON escapes decoded, and
// then sanitised: "a\u003cb\u003e" is "a<b>", and an escape sequence
// spelled \u001b never reaches the file raw.
func TestReturnedModelDecoded(t *testing.T) {
	srv := sseServer(t,
		step{write: `data: {"id":"c","model":"gpt-x \u003cb\u003e caf\u00e9 \u001b[2J","system_fingerprint":"fp\/1","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}` + "\n\n"},
		finish("stop"), usage(1), done)
	defer srv.Close()
	f, err := Run(context.Background(), runOpts(endpoint(srv.URL), 1))
	if err != nil {
		t.Fatal(err)
	}
	tg := f.Targets[0]
	if len(tg.ReturnedModels) != 1 || len(tg.SystemFingerprints) != 1 {
		t.Fatalf("models %q, fingerprints %q", tg.ReturnedModels, tg.SystemFingerprints)
	}
	m := tg.ReturnedModels[0]
	if !strings.HasPrefix(m, "gpt-x <b> café ") || strings.Contains(m, `\u`) || strings.ContainsRune(m, 0x1b) {
		t.Errorf("returned model %q, want %q decoded and the escape sequence neutralised", m, "gpt-x <b> café …")
	}
	if fp := tg.SystemFingerprints[0]; fp != "fp/1" {
		t.Errorf("fingerprint %q, want fp/1", fp)
	}
}
