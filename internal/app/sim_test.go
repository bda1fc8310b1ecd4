package app

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestSimServes runs `latgate sim`'s use case and streams one answer from it.
func TestSimServes(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	a, _, stderr := testApp(t, nil)
	done := make(chan error, 1)
	go func() { done <- a.Sim(ctx, addr, "fast?tokens=3") }()
	var resp *http.Response
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		resp, err = http.Post("http://"+addr+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
		if err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("latgate sim did not answer: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "data: [DONE]") || strings.Count(string(body), `"content":"`) < 3 {
		t.Errorf("status %d, body:\n%s", resp.StatusCode, body)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("sim returned %v after cancel, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("sim did not stop on cancel")
	}
	a.Out.Flush()
	if !strings.Contains(stderr.String(), "serving profile") {
		t.Errorf("stderr = %q", stderr.String())
	}
}
