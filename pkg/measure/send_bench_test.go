package measure

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"slices"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/stats"
)

// oaDoer is how chat's requests were sent before the wire rows (#28),
// kept to measure the shared post against: go-openai's client built each
// request from its request type, and sent it through this doer, which
// found the attempt in the context, set the fields go-openai's type
// cannot say by unmarshalling and marshalling the body again, stamped the
// send and kept the response body, which go-openai does not expose.
type oaDoer struct {
	hc      *http.Client
	headers map[string]string
	fields  map[string]json.RawMessage
}

// oaKey carries the attempt through go-openai to the doer.
type oaKey struct{}

func (d *oaDoer) Do(req *http.Request) (*http.Response, error) {
	a, _ := req.Context().Value(oaKey{}).(*attempt)
	for k, v := range d.headers {
		req.Header.Set(k, v)
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	for k, v := range d.fields {
		m[k] = v
	}
	if body, err = json.Marshal(m); err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	a.start = time.Now()
	resp, err := d.hc.Do(req)
	if err != nil {
		return resp, err
	}
	a.status, a.body = resp.StatusCode, resp.Body
	return resp, nil
}

// chatSenders returns the ways of sending prompt pr's chat request to ep
// that BenchmarkChatSend compares, each reading the answer's body to its
// end: through go-openai as before #28, and through the shared post with
// the body built once (a prompt's request) or on the spot (a chain's
// step).
func chatSenders(tb testing.TB, ep Endpoint, hc *http.Client, pr config.Prompt) (names []string, sends []func() error) {
	tb.Helper()
	c, err := newClient(ep, hc, []config.Prompt{pr})
	if err != nil {
		tb.Fatal(err)
	}
	fields, err := chatFields(ep)
	if err != nil {
		tb.Fatal(err)
	}
	cfg := openai.DefaultConfig(ep.APIKey)
	cfg.BaseURL = ep.URL
	cfg.HTTPClient = &oaDoer{hc: hc, headers: ep.Headers, fields: fields}
	oa := openai.NewClientWithConfig(cfg)
	req := chatRequest(ep, pr)
	ctx := context.Background()
	read := func(a *attempt) error {
		_, err := io.Copy(io.Discard, a.body)
		return err
	}
	viaOpenAI := func() error {
		a := &attempt{}
		st, err := oa.CreateChatCompletionStream(context.WithValue(httptrace.WithClientTrace(ctx, a.trace()), oaKey{}, a), req)
		if err != nil {
			return err
		}
		defer st.Close()
		return read(a)
	}
	viaPost := func(conv []config.Message) func() error {
		return func() error {
			a := &attempt{}
			if err := c.send(httptrace.WithClientTrace(ctx, a.trace()), a, 0, conv); err != nil {
				return err
			}
			defer a.body.Close()
			return read(a)
		}
	}
	return []string{"go-openai", "post", "post+body"}, []func() error{viaOpenAI, viaPost(nil), viaPost(pr.Messages)}
}

// BenchmarkChatSend measures what building and sending one Chat
// Completions request costs the client, against a server on 127.0.0.1
// that answers a short stream (a content chunk, the finish, the usage,
// [DONE]), the body read to its end: through go-openai as before #28
// (its request type marshalled per request, then unmarshalled and
// marshalled again to set temperature 0), through the shared post with
// the prompt's body built once, and with the body built on the spot (a
// chain's step). The target sets temperature: 0, as latency runs do. The
// sub-benchmarks give each one's allocations; ratio alternates them, one
// request each in turn, and reports each one's median ns per request and
// its ratio to go-openai's, measured in the same run (the machine's load
// shifts them alike).
func BenchmarkChatSend(b *testing.B) {
	const answer = "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n" +
		"data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" +
		"data: {\"id\":\"c\",\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":1,\"total_tokens\":10}}\n\n" +
		"data: [DONE]\n\n"
	var (
		mu     sync.Mutex
		check  bool
		bodies [][]byte // of the check below
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		if check {
			bodies = append(bodies, body)
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, answer)
	}))
	defer srv.Close()
	tg := apiTarget(config.APIChat)
	tg.Temperature = float(0)
	ep := NewEndpoint(tg, srv.URL+"/v1", func(string) string { return "sk-bench" })
	hc, closeIdle := newHTTPClient(1)
	defer closeIdle()
	names, sends := chatSenders(b, ep, hc, wirePrompt)
	mu.Lock()
	check = true
	mu.Unlock()
	for i, send := range sends {
		if err := send(); err != nil {
			b.Fatalf("%s: %v", names[i], err)
		}
	}
	mu.Lock()
	check = false
	sent := bodies
	mu.Unlock()
	if len(sent) != len(sends) {
		b.Fatalf("%d bodies arrived, want %d", len(sent), len(sends))
	}
	for i := range sent {
		if !bytes.Equal(sent[i], sent[0]) {
			b.Fatalf("%s sent %s\n%s sent %s", names[0], sent[0], names[i], sent[i])
		}
	}
	for i, send := range sends {
		b.Run(names[i], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := send(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("ratio", func(b *testing.B) {
		per := make([][]float64, len(sends))
		for b.Loop() {
			for i, send := range sends {
				start := time.Now()
				if err := send(); err != nil {
					b.Fatal(err)
				}
				per[i] = append(per[i], float64(time.Since(start)))
			}
		}
		med := make([]float64, len(per))
		for i := range per {
			slices.Sort(per[i])
			med[i] = stats.Quantile(per[i], 0.5)
			b.ReportMetric(med[i], names[i]+"-ns/req")
			if i > 0 {
				b.ReportMetric(med[i]/med[0], names[i]+"/"+names[0])
			}
		}
	})
}
