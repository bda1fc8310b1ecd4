package testkit

import (
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"
)

// Collector is an OTLP/HTTP metrics collector on 127.0.0.1: it decodes
// every POST to /v1/metrics with the official OTLP protobuf types, keeps
// it, and answers with its status (200 and an empty
// ExportMetricsServiceResponse when it is 0 or 200).
type Collector struct {
	// URL is the collector's base URL, http://127.0.0.1:PORT (https:// for a TLS one; its metrics
	// are at URL + "/v1/metrics").
	URL string

	srv     *httptest.Server
	mu      sync.Mutex
	posts   []Post
	refused bool
}

// Post is one export the collector received.
type Post struct {
	Path    string
	Header  http.Header
	Body    []byte // as sent, protobuf
	Request *colmetricpb.ExportMetricsServiceRequest
}

// NewCollector starts a collector answering status; Close (also at the
// test's end) stops it, after which connections to URL are refused.
func NewCollector(t testing.TB, status int) *Collector {
	t.Helper()
	return newCollector(t, status, httptest.NewServer)
}

// NewTLSCollector is NewCollector over HTTPS, with httptest's own
// certificate: CAFile writes it as a PEM file for the client to trust.
func NewTLSCollector(t testing.TB, status int) *Collector {
	t.Helper()
	return newCollector(t, status, httptest.NewTLSServer)
}

// CAFile writes the certificate of a TLS collector as a PEM file in a
// temporary directory of t and returns its path.
func (c *Collector) CAFile(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "collector-ca.pem")
	b := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.srv.Certificate().Raw})
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func newCollector(t testing.TB, status int, start func(http.Handler) *httptest.Server) *Collector {
	t.Helper()
	c := &Collector{}
	c.srv = start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("collector: reading the body: %v", err)
			return
		}
		req := &colmetricpb.ExportMetricsServiceRequest{}
		if r.Method != http.MethodPost || r.URL.Path != "/v1/metrics" || r.Header.Get("Content-Type") != "application/x-protobuf" {
			t.Errorf("collector: got %s %s (Content-Type %q), want POST /v1/metrics of application/x-protobuf", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
		} else if err := proto.Unmarshal(body, req); err != nil {
			t.Errorf("collector: the body is no ExportMetricsServiceRequest: %v", err)
		}
		c.mu.Lock()
		c.posts = append(c.posts, Post{Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Request: req})
		c.mu.Unlock()
		if status != 0 && status != http.StatusOK {
			http.Error(w, "collector test double: "+http.StatusText(status), status)
			return
		}
		resp, _ := proto.Marshal(&colmetricpb.ExportMetricsServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(resp)
	}))
	c.URL = c.srv.URL
	t.Cleanup(c.Close)
	return c
}

// Close stops the collector: connections to its URL are refused from now on.
func (c *Collector) Close() { c.srv.Close() }

// Posts returns the exports received so far.
func (c *Collector) Posts() []Post {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.posts)
}

// Point is one histogram data point of an export, flattened for
// assertions: its metric's name and unit, the resource's and the point's
// attributes (values as strings), and its count and sum.
type Point struct {
	Metric, Unit string
	Resource     map[string]string
	Attrs        map[string]string
	Count        uint64
	Sum          float64
	// Histogram is false for a metric that is no histogram (its count and
	// sum are then zero).
	Histogram bool
}

// Points flattens the exports' metrics into points, in the order sent.
func Points(posts []Post) []Point {
	var out []Point
	for _, p := range posts {
		for _, rm := range p.Request.GetResourceMetrics() {
			res := attrs(rm.GetResource().GetAttributes())
			for _, sm := range rm.GetScopeMetrics() {
				for _, m := range sm.GetMetrics() {
					h := m.GetHistogram()
					if h == nil {
						out = append(out, Point{Metric: m.GetName(), Unit: m.GetUnit(), Resource: res})
						continue
					}
					for _, dp := range h.GetDataPoints() {
						out = append(out, Point{Metric: m.GetName(), Unit: m.GetUnit(), Resource: res, Attrs: attrs(dp.GetAttributes()),
							Count: dp.GetCount(), Sum: dp.GetSum(), Histogram: true})
					}
				}
			}
		}
	}
	return out
}

// attrs are key-values as strings (an int as its digits).
func attrs(kvs []*commonpb.KeyValue) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		out[kv.GetKey()] = anyValue(kv.GetValue())
	}
	return out
}

func anyValue(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *commonpb.AnyValue_BoolValue:
		if x.BoolValue {
			return "true"
		}
		return "false"
	}
	return v.String()
}
