package measure

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// TestNDJSONStreams: an app's own newline-delimited JSON stream read as
// api: ndjson with its own pointers, over the wire on loopback: the lines
// at token_pointer are tokens, a line with done_pointer true ends the
// answer (or, without one, the end of the body does), an error line is a
// stream error; an event stream fails at the headers naming api: sse, and
// one JSON object under application/json says to ask for a stream.
func TestNDJSONStreams(t *testing.T) {
	lines := func(ct string, body ...string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ct)
			for _, l := range body {
				fmt.Fprintln(w, l)
				w.(http.Flusher).Flush()
			}
		}
	}
	tokens := []string{`{"type":"token","data":{"text":"Our"}}`, `{"type":"meta","data":{"sources":3}}`, `{"type":"token","data":{"text":" refund"}}`, ``, `{"type":"token","data":{"text":" policy."}}`}
	done := `{"type":"end","end":true,"reason":"complete","usage":{"in":12,"out":3}}`
	app := config.NDJSON{Body: map[string]any{"q": "{{prompt}}"}, TokenPointer: "/data/text", DonePointer: "/end", FinishPointer: "/reason",
		ErrorPointer: "/error", PromptTokensPointer: "/usage/in", OutputTokensPointer: "/usage/out"}
	noDone := app
	noDone.DonePointer, noDone.FinishPointer = "", ""
	type got struct {
		Samples, Errors int
		Finish, Source  string
		Output, Prompt  int
		Class, Message  string
	}
	for _, tt := range []struct {
		name    string
		h       http.HandlerFunc
		o       config.NDJSON
		want    got
		message string // what the failure message must hold
	}{
		{"done line", lines("application/x-ndjson", append(tokens, done)...), app, got{Samples: 2, Finish: "complete", Source: "usage", Output: 3, Prompt: 12}, ""},
		{"end of body", lines("application/x-ndjson", tokens...), noDone, got{Samples: 2, Finish: "end", Source: "chunks", Output: 3}, ""},
		{"no done line", lines("application/x-ndjson", tokens...), app, got{Errors: 2, Class: results.ErrTruncated}, "stream ended without a done line after 3 chunks"},
		{"error line", lines("application/x-ndjson", tokens[0], `{"error":"model overloaded"}`), app, got{Errors: 2, Class: results.ErrStreamErr}, "error in stream after 1 chunks: model overloaded"},
		{"not JSON", lines("application/x-ndjson", tokens[0], `data: {"text":"x"}`), app, got{Errors: 2, Class: results.ErrMalformed}, `malformed frame after 1 chunks: data: {"text":"x"}`},
		{"an event stream", lines("text/event-stream", `data: {"text":"x"}`), app, got{Errors: 2, Class: results.ErrMalformed}, "server-sent events, not newline-delimited JSON: set api: sse"},
		{"not streamed", lines("application/json; charset=utf-8", `{"data":{"text":"Our refund policy."},"end":true}`), app, got{Errors: 2, Class: results.ErrMalformed}, "answered in one JSON object, not a stream: set stream: true in ndjson.body"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.h)
			defer srv.Close()
			o := tt.o
			tg := config.Target{Name: "app", Model: "m", API: config.APINDJSON, MaxTokens: 64, MaxErrorRate: 1, NDJSON: &o}
			f, err := Run(context.Background(), Options{
				Endpoints:  []Endpoint{NewEndpoint(tg, srv.URL, func(string) string { return "" })},
				Prompts:    []config.Prompt{{ID: "p", Messages: []config.Message{{Role: "user", Content: "hi"}}}},
				Run:        config.Run{Requests: 2, Concurrency: 1, Timeout: 10 * time.Second, Order: "interleave", Seed: 1},
				MaxRetries: -1,
			})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			p := f.Targets[0].Prompts[0]
			g := got{Samples: len(p.Samples), Errors: p.Errors}
			if len(p.Samples) > 0 {
				s := p.Samples[0]
				g.Finish, g.Source, g.Output, g.Prompt = s.FinishReason, s.TokenSource, s.OutputTokens, s.PromptTokens
			}
			if len(p.Failures) > 0 {
				g.Class = p.Failures[0].Class
				if !strings.Contains(p.Failures[0].Message, tt.message) {
					t.Errorf("failure %q, want it to hold %q", p.Failures[0].Message, tt.message)
				}
			}
			if diff := cmp.Diff(tt.want, g, cmpIgnoreMessage); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

var cmpIgnoreMessage = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Message" }, cmp.Ignore())

// FuzzNDJSONLine: the ndjson walk (Ollama's pointers) validates a line as
// encoding/json does, never panics, and a malformed line reports nothing
// else.
func FuzzNDJSONLine(f *testing.F) {
	for _, s := range []string{
		`{"message":{"content":"x","thinking":"y"},"done":false}`, `{"done":true,"done_reason":"stop","eval_count":3}`,
		`{"error":"boom"}`, `{"message":[1,{"content":"x"}]}`, `{"done":tru}`, `{"a":01}`, `[`, `"x"`,
	} {
		f.Add([]byte(s))
	}
	o := config.NDJSONPresets()["ollama"]
	w, err := ndjsonWire(Endpoint{Target: config.Target{API: config.APINDJSON, NDJSON: &o}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fr frame
		w.parse(nil, data, &fr)
		if want := wantMalformed(data); fr.malformed != want {
			t.Errorf("parse(%q): malformed = %v, json.Valid says %v", data, fr.malformed, want)
		}
		if fr.malformed && (fr.token() || fr.done || fr.isError || fr.hasUsage) {
			t.Errorf("malformed line also reports more: %+v", view(&fr))
		}
	})
}

// TestNDJSONPointerWalk: a key written with escapes is the key it spells,
// and an array index past 100 is found without allocating.
func TestNDJSONPointerWalk(t *testing.T) {
	o := config.NDJSON{TokenPointer: "/c/150/t", DonePointer: "/done", ErrorPointer: "/error"}
	w, err := ndjsonWire(Endpoint{Target: config.Target{API: config.APINDJSON, NDJSON: &o}})
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(`{"c":[` + strings.Repeat(`0,`, 150) + `{"t":"x"}]}`)
	var f frame
	if w.parse(nil, line, &f); !f.content || string(f.text) != "x" {
		t.Errorf("index 150: content %v %q, want the token x", f.content, f.text)
	}
	if !raceEnabled {
		if n := testing.AllocsPerRun(50, func() { w.parse(nil, line, &f) }); n != 0 {
			t.Errorf("the walk of an index past 100 allocates %v times", n)
		}
	}
	ollama := config.NDJSONPresets()["ollama"]
	w, err = ndjsonWire(Endpoint{Target: config.Target{API: config.APINDJSON, NDJSON: &ollama}})
	if err != nil {
		t.Fatal(err)
	}
	if w.parse(nil, []byte(`{"\u006dessage":{"cont\u0065nt":"hi"},"done":false}`), &f); !f.content || string(f.text) != "hi" {
		t.Errorf("escaped keys: content %v %q, want the token hi", f.content, f.text)
	}
}
