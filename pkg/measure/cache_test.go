package measure

import (
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
// length, and nothing else changes: neither the rest of the body nor the
// prompt's body built once, which every request starts from.
func TestNonce(t *testing.T) {
	const body = `{"messages":[{"role":"system","content":"` + noncePlaceholder + `You are brief."}]}`
	built := []byte(body)
	seen := map[string]bool{}
	for range 50 {
		got := nonced(built)
		if len(got) != len(body) {
			t.Fatalf("body %q (%d bytes), want %d bytes", got, len(got), len(body))
		}
		if strings.Contains(string(got), noncePlaceholder) || !strings.HasSuffix(string(got), `] You are brief."}]}`) {
			t.Fatalf("body %q: the placeholder was not replaced in place", got)
		}
		seen[string(got)] = true
	}
	if string(built) != body {
		t.Errorf("the built body changed to %q", built)
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
