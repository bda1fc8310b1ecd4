package measure

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/sim"
)

// Sentinels of TestRedirectsKeepCredentials: the key, an sse.headers_env
// value and a key in the base URL's query string.
const (
	redirectKey     = "sk-REDIRECT-SENTINEL-0123456789"
	redirectSession = "sess-REDIRECT-SENTINEL-4242"
	redirectQuery   = "qk-REDIRECT-SENTINEL-77"
)

// credentialLog records what reached a server that must never get a
// credential: every request, and every credential it carried.
type credentialLog struct {
	mu       sync.Mutex
	requests int
	leaked   []string
}

func (l *credentialLog) record(r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.requests++
	for _, h := range []string{"Authorization", "X-Api-Key", "X-Goog-Api-Key", "X-Session", "Cookie"} {
		if v := r.Header.Get(h); v != "" {
			l.leaked = append(l.leaked, h+": "+v)
		}
	}
	if strings.Contains(r.URL.RawQuery, redirectQuery) {
		l.leaked = append(l.leaked, "query: "+r.URL.RawQuery)
	}
}

func (l *credentialLog) read() (int, []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.requests, append([]string(nil), l.leaked...)
}

// redirector serves the simulator, except under /hop/CODE/DEST/…, which it
// answers with a redirect of status CODE to the rest of the path (and the
// query) at DEST: "other-port" (another server on 127.0.0.1), "other-host"
// (that server as localhost) or "same" (this server).
func redirector(t *testing.T, s http.Handler, otherPort string) *httptest.Server {
	t.Helper()
	var self *httptest.Server
	self = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest, ok := strings.CutPrefix(r.URL.Path, "/hop/")
		if !ok {
			s.ServeHTTP(w, r)
			return
		}
		parts := strings.SplitN(rest, "/", 3)
		code, _ := strconv.Atoi(parts[0])
		dest := map[string]string{"other-port": "http://127.0.0.1:" + otherPort, "other-host": "http://localhost:" + otherPort, "same": self.URL}[parts[1]]
		loc := dest + "/" + parts[2]
		if r.URL.RawQuery != "" {
			loc += "?" + r.URL.RawQuery
		}
		w.Header().Set("Location", loc)
		w.WriteHeader(code)
	}))
	t.Cleanup(self.Close)
	return self
}

// TestRedirectsKeepCredentials holds #27 item 2: a trusted endpoint that
// answers 301, 302, 303, 307 or 308 with another origin — another host, or
// the same host on another port, where net/http keeps Authorization — gets
// no request sent there by any API, so neither the key (Authorization,
// x-api-key, x-goog-api-key), nor an sse.headers_env value, nor a key in the
// base URL's query string leaves the origin; the request fails naming the
// redirect. A redirect within the origin is followed as before.
func TestRedirectsKeepCredentials(t *testing.T) {
	p, err := sim.ParseSpec("fast?tokens=4")
	if err != nil {
		t.Fatal(err)
	}
	simSrv := sim.New(p)
	t.Cleanup(simSrv.Close)
	var other credentialLog
	thief := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		other.record(r)
		simSrv.ServeHTTP(w, r) // it would answer: only the policy keeps the run from succeeding there
	}))
	t.Cleanup(thief.Close)
	thiefURL, _ := url.Parse(thief.URL)
	front := redirector(t, simSrv, thiefURL.Port())
	// The path each API's base URL has on the simulator.
	simPath := func(api string) string {
		running, err := sim.Start(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		defer running.Close()
		u, _ := url.Parse(running.URLFor(api))
		return u.Path
	}
	env := func(name string) string {
		return map[string]string{"SIM_KEY": redirectKey, "APP_SESSION": redirectSession}[name]
	}
	measureVia := func(t *testing.T, api string, code int, dest string) (*Endpoint, error, string) {
		t.Helper()
		tg := apiTarget(api)
		tg.MaxErrorRate = 1
		if api == config.APISSE {
			tg.SSE.HeadersEnv = map[string]string{"X-Session": "APP_SESSION"}
		}
		base := front.URL + "/hop/" + strconv.Itoa(code) + "/" + dest + simPath(api)
		if api == config.APIChat {
			base += "?api-key=" + redirectQuery
		}
		ep := NewEndpoint(tg, base, env)
		f, err := Run(context.Background(), Options{Endpoints: []Endpoint{ep}, Prompts: []config.Prompt{cachedPrompt},
			Run: config.Run{Requests: 1, Concurrency: 1, Timeout: 5 * time.Second}})
		msg := ""
		if fl := f.Targets[0].Prompts[0].Failures; len(fl) > 0 {
			msg = fl[0].Message
		}
		return &ep, err, msg
	}
	codes := []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect}
	for _, api := range config.APIs() {
		for _, code := range codes {
			for _, dest := range []string{"other-port", "other-host"} {
				t.Run(api+"/"+strconv.Itoa(code)+"/"+dest, func(t *testing.T) {
					_, _, msg := measureVia(t, api, code, dest)
					want := "HTTP " + strconv.Itoa(code) + ": redirected to another origin, http://"
					if !strings.Contains(msg, want) || !strings.Contains(msg, "set base_url to where the API is served") {
						t.Errorf("failure %q, want it to say %q and the fix", msg, want)
					}
					for _, secret := range []string{redirectKey, redirectSession, redirectQuery} {
						if strings.Contains(msg, secret) {
							t.Errorf("the failure names a credential: %q", msg)
						}
					}
				})
			}
			t.Run(api+"/"+strconv.Itoa(code)+"/same-origin", func(t *testing.T) {
				_, _, msg := measureVia(t, api, code, "same")
				if strings.Contains(msg, "another origin") {
					t.Errorf("a redirect within the origin was refused: %q", msg)
				}
				// 307 and 308 keep the method and body: the stream is measured.
				if (code == http.StatusTemporaryRedirect || code == http.StatusPermanentRedirect) && msg != "" {
					t.Errorf("a %d within the origin failed: %q", code, msg)
				}
			})
		}
	}
	if n, leaked := other.read(); n != 0 || len(leaked) != 0 {
		t.Errorf("%d requests reached the other origin, carrying %q", n, leaked)
	}
}
