package sim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Running is a simulator serving real HTTP on a loopback port.
type Running struct {
	srv  *Server
	hs   *http.Server
	url  string
	stop func() bool // unregisters the context.AfterFunc of Start

	served   chan struct{} // closed when hs.Serve returned
	serveErr error

	closeOnce sync.Once
	closeErr  error
	mu        sync.Mutex // guards stop, set after the server starts
}

// Start serves profile p on 127.0.0.1 at a free port until Close or until
// ctx is done.
func Start(ctx context.Context, p Profile) (*Running, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("sim: listen: %w", err)
	}
	r := start(ln, New(p))
	// Set stop before the callback can run: Close reads it.
	r.mu.Lock()
	r.stop = context.AfterFunc(ctx, func() { _ = r.Close() })
	r.mu.Unlock()
	return r, nil
}

// Serve serves profile p on ln until ctx is done, then shuts down, ending
// streams in flight, and returns nil. It closes ln.
func Serve(ctx context.Context, ln net.Listener, p Profile) error {
	if err := p.Validate(); err != nil {
		_ = ln.Close()
		return err
	}
	r := start(ln, New(p))
	select {
	case <-ctx.Done():
		return r.Close()
	case <-r.served:
		r.srv.Close()
		return fmt.Errorf("sim: serve: %w", r.serveErr)
	}
}

func start(ln net.Listener, s *Server) *Running {
	r := &Running{
		srv: s,
		hs: &http.Server{
			Handler:           s,
			ReadHeaderTimeout: 10 * time.Second,
			ErrorLog:          log.New(io.Discard, "", 0), // library code prints nothing
		},
		url:    "http://" + ln.Addr().String() + "/v1",
		served: make(chan struct{}),
	}
	go func() {
		defer close(r.served)
		r.serveErr = r.hs.Serve(ln)
	}()
	return r
}

// URL returns the base URL, "http://127.0.0.1:PORT/v1".
func (r *Running) URL() string { return r.url }

// URLFor returns the base URL a target of the given API (a config api:
// value) uses with this simulator: URL() for chat, responses and anthropic,
// "http://127.0.0.1:PORT/v1beta" for gemini, and the app stream's own URL,
// "http://127.0.0.1:PORT/app/chat", for sse, and Ollama's native API,
// "http://127.0.0.1:PORT/api/chat", for ndjson.
func (r *Running) URLFor(api string) string {
	host := strings.TrimSuffix(r.url, "/v1")
	switch api {
	case "gemini":
		return host + "/v1beta"
	case "sse":
		return host + pathApp
	case "ndjson":
		return host + pathOllama
	}
	return r.url
}

// Server returns the handler, for its recorder.
func (r *Running) Server() *Server { return r.srv }

// Close ends the streams in flight (stalled ones too), closes the listener
// and the connections, and waits for the server to stop. It is safe to call
// more than once.
func (r *Running) Close() error {
	r.closeOnce.Do(func() {
		r.mu.Lock()
		stop := r.stop
		r.mu.Unlock()
		if stop != nil {
			stop()
		}
		r.srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := r.hs.Shutdown(ctx); err != nil {
			_ = r.hs.Close()
			r.closeErr = fmt.Errorf("sim: shutdown: %w", err)
		}
		<-r.served
		if r.closeErr == nil && !errors.Is(r.serveErr, http.ErrServerClosed) {
			r.closeErr = fmt.Errorf("sim: serve: %w", r.serveErr)
		}
	})
	return r.closeErr
}
