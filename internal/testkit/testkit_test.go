package testkit

import "testing"

// TestFreePortNeverTwice: the ports FreePort hands out in one process are
// distinct, however many tests draw them before any listens.
func TestFreePortNeverTwice(t *testing.T) {
	seen := map[string]bool{}
	for range 500 {
		p := FreePort(t)
		if seen[p] {
			t.Fatalf("port %s handed out twice", p)
		}
		seen[p] = true
	}
}
