// Command appserver is a team's app server in miniature, for the tests of
// serve:: it forwards OpenAI chat completions to an upstream (latgate's
// simulator) and streams the answer back, optionally after a delay before
// it asks the upstream (the pull request's new retrieval step). GET /healthz
// answers 200 once it listens.
//
//	appserver -listen 127.0.0.1:8081 -upstream http://127.0.0.1:9000/v1 [-delay 50ms]
//
// -pids FILE writes its pid and its child's (a sleep it starts, as apps
// start workers) so tests can check both are gone after latgate stops it;
// -mute never listens (a server that never becomes ready); -exit-after N
// crashes at the request after the N-th.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"time"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8081", "address to listen on")
	upstream := flag.String("upstream", "", "the model's base URL, ending in /v1")
	delay := flag.Duration("delay", 0, "added before each request is forwarded")
	pids := flag.String("pids", "", "file to write the pid and the child's pid to")
	mute := flag.Bool("mute", false, "never listen")
	exitAfter := flag.Int("exit-after", 0, "exit with status 2 after this many answers (0: never), as a crashing build")
	flag.Parse()
	log.SetFlags(0)
	child := exec.Command("sleep", "300")
	if err := child.Start(); err != nil {
		log.Fatalf("appserver: starting a worker: %v", err)
	}
	if *pids != "" {
		if err := os.WriteFile(*pids, fmt.Appendf(nil, "%d %d", os.Getpid(), child.Process.Pid), 0o600); err != nil {
			log.Fatalf("appserver: %v", err)
		}
	}
	_, other := os.LookupEnv("OTHER_SERVICE_TOKEN")
	log.Printf("appserver: config loaded (upstream %s, delay %s, key %s, other token inherited: %v)", *upstream, *delay, os.Getenv("APP_UPSTREAM_KEY"), other)
	if *mute {
		log.Printf("appserver: waiting for a database that never comes")
		select {}
	}
	http.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") })
	var served atomic.Int64
	http.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		if n := served.Add(1); *exitAfter > 0 && n > int64(*exitAfter) {
			log.Printf("appserver: panic: nil map in the new middleware")
			os.Exit(2)
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, strings.TrimSuffix(*upstream, "/")+"/chat/completions", bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		req.Header.Set("Content-Type", "application/json")
		time.Sleep(*delay) // the pull request's retrieval step, before the model is asked
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		fl, _ := w.(http.Flusher)
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			if n > 0 {
				w.Write(buf[:n])
				if fl != nil {
					fl.Flush()
				}
			}
			if err != nil {
				return
			}
		}
	})
	log.Printf("appserver: listening on %s", *listen)
	log.Fatal(http.ListenAndServe(*listen, nil))
}
