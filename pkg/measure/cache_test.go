package measure

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

func TestWithNonces(t *testing.T) {
	msgs := []config.Message{{Role: "user", Content: "u"}, {Role: "system", Content: "s"}}
	in := []config.Prompt{{ID: "a", Messages: msgs}, {ID: "b", Cache: results.CacheCold, Messages: msgs},
		{ID: "c", Cache: results.CacheCold, Messages: []config.Message{{Role: "user", Content: "only"}}}, {ID: "d", Cache: results.CacheWarm, Messages: msgs}}
	out, cold := withNonces(in)
	if diff := cmp.Diff([]bool{false, true, true, false}, cold); diff != "" {
		t.Errorf("cold (-want +got):\n%s", diff)
	}
	if got := out[1].Messages[1].Content; got != noncePlaceholder+"s" {
		t.Errorf("cold prompt's system message = %q: the nonce opens the system prompt", got)
	}
	if got := out[2].Messages[0].Content; got != noncePlaceholder+"only" {
		t.Errorf("cold prompt without a system message = %q", got)
	}
	if in[1].Messages[1].Content != "s" || out[0].Messages[1].Content != "s" || out[3].Messages[1].Content != "s" {
		t.Error("withNonces changed its input or a prompt that is not cold")
	}
}

// TestNonce: each request's body gets its own nonce, of the placeholder's
// length, and nothing else changes.
func TestNonce(t *testing.T) {
	body := `{"messages":[{"role":"system","content":"` + noncePlaceholder + `You are brief."}]}`
	seen := map[string]bool{}
	for range 50 {
		req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/x", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if err := nonce(req); err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(req.Body)
		again, _ := req.GetBody()
		replay, _ := io.ReadAll(again)
		if len(got) != len(body) || req.ContentLength != int64(len(body)) || !bytes.Equal(got, replay) {
			t.Fatalf("body %q (%d bytes, replay %q), want %d bytes", got, len(got), replay, len(body))
		}
		if strings.Contains(string(got), noncePlaceholder) || !strings.HasSuffix(string(got), `] You are brief."}]}`) {
			t.Fatalf("body %q: the placeholder was not replaced in place", got)
		}
		seen[string(got)] = true
	}
	if len(seen) < 50 {
		t.Errorf("%d distinct bodies of 50: nonces repeat", len(seen))
	}
}

func TestPrimeJobs(t *testing.T) {
	ps := []config.Prompt{{ID: "a"}, {ID: "b", Cache: results.CacheWarm}, {ID: "c", Cache: results.CacheCold}}
	if diff := cmp.Diff([]job{{prompt: 1}}, primeJobs(ps, 0), cmp.AllowUnexported(job{})); diff != "" {
		t.Errorf("no warmup (-want +got):\n%s", diff)
	}
	if got := primeJobs(ps, 2); got != nil {
		t.Errorf("with warmup: %v, want none (the warmup primes)", got)
	}
}
