package measure

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
	"github.com/latgate/latgate/pkg/sim"
)

// The golden transcripts in testdata/streams are the stream shapes each
// provider documents (event names, field names and order, usage objects,
// CRLF line ends on Gemini, pings, signature deltas, an app's bookkeeping
// events), written from their API references and their SDKs' stream
// types and test fixtures: openai-go's responses event types,
// anthropic-sdk-go's message stream events and fallback fixtures,
// go-genai's GenerateContentResponse and its SSE scanner. They check the
// adapters against the real shapes, and the simulator against them.

// goldenClient is a client of api's target (not on the network: read only).
func goldenClient(t *testing.T, api string) *client {
	t.Helper()
	c, err := newClient(NewEndpoint(apiTarget(api), "http://127.0.0.1:1/v1", func(string) string { return "k" }), http.DefaultClient, []config.Prompt{cachedPrompt})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// readGolden measures a transcript read 7 bytes at a time (every line split
// across reads).
func readGolden(t *testing.T, api, file string) outcome {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", "streams", file))
	if err != nil {
		t.Fatal(err)
	}
	c := goldenClient(t, api)
	ct := "text/event-stream"
	if strings.HasSuffix(file, ".ndjson") {
		ct = "application/x-ndjson"
	}
	a := &attempt{body: io.NopCloser(&chunkedReader{data: body, sizes: []int{7}}), start: time.Now(), status: 200, contentType: ct}
	return c.read(context.Background(), a, make([]byte, 32<<10))
}

func TestGoldenStreams(t *testing.T) {
	type got struct {
		Chunks                                                int
		HasContent, Status                                    bool
		Finish, Source                                        string
		Output, Prompt, Cached, CacheCreation, Reasoning, ITL int
		ID, Model                                             string
	}
	tests := []struct {
		file, api string
		want      got
	}{
		{"chat.sse", config.APIChat, got{Chunks: 2, HasContent: true, Finish: "stop", Source: "usage", Output: 3, Prompt: 1254, Cached: 1152, ITL: 1, ID: "chatcmpl-BwXf2aC9tqL1", Model: "gpt-4o-mini-2024-07-18"}},
		{"responses.sse", config.APIResponses, got{Chunks: 3, HasContent: true, Finish: "completed", Source: "usage", Output: 75, Prompt: 1090, Cached: 1024, Reasoning: 64, ITL: 2, ID: "resp_68a1e0b3c2f88190a1b2c3d4e5f60718", Model: "gpt-5-mini-2025-08-07"}},
		{"responses_tool.sse", config.APIResponses, got{Chunks: 3, Finish: "completed", Source: "usage", Output: 17, Prompt: 291, ITL: 2, ID: "resp_68a1f2", Model: "gpt-4.1-2025-04-14"}},
		{"responses_incomplete.sse", config.APIResponses, got{Chunks: 2, HasContent: true, Finish: "max_output_tokens", Source: "usage", Output: 16, Prompt: 12, ITL: 1, ID: "resp_1", Model: "gpt-4o-mini"}},
		{"anthropic.sse", config.APIAnthropic, got{Chunks: 5, HasContent: true, Finish: "end_turn", Source: "usage", Output: 58, Prompt: 2060, Cached: 2048, ITL: 4, ID: "msg_01XFDUDYJgAACzvnptvVoYEL", Model: "claude-sonnet-4-5-20250929"}},
		// The first input_json_delta is empty: no token.
		{"anthropic_tool.sse", config.APIAnthropic, got{Chunks: 2, Finish: "tool_use", Source: "usage", Output: 40, Prompt: 543, CacheCreation: 512, ITL: 1, ID: "msg_tool", Model: "claude-haiku-4-5"}},
		{"gemini.sse", config.APIGemini, got{Chunks: 3, HasContent: true, Finish: "STOP", Source: "usage", Output: 134, Prompt: 9, Cached: 4, Reasoning: 120, ITL: 2, ID: "8Yk0aPfXL4-WqtsPrsXl0QQ", Model: "gemini-2.5-flash"}},
		// An app stream: two status events, a citations event and a comment that are no tokens.
		{"sse.sse", config.APISSE, got{Chunks: 2, HasContent: true, Status: true, Finish: "done", Source: "chunks", Output: 2, ITL: 1, ID: "7f1c"}},
		// Ollama's native /api/chat (ndjson: {preset: ollama}): a thinking
		// line, three content lines (a blank line between two), the done
		// line with the counts.
		{"ollama.ndjson", config.APINDJSON, got{Chunks: 4, HasContent: true, Finish: "stop", Source: "usage", Output: 4, Prompt: 26, ITL: 3, Model: "qwen3:0.6b"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			o := readGolden(t, tt.api, tt.file)
			if o.failure != nil {
				t.Fatalf("failure %+v", *o.failure)
			}
			s := o.sample
			g := got{s.Chunks, s.HasContent, s.FirstStatus > 0, s.FinishReason, s.TokenSource, s.OutputTokens, s.PromptTokens, s.CachedTokens, s.CacheCreationTokens, s.ReasoningTokens, len(s.ITL), o.id, o.model}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("sample (-want +got):\n%s", diff)
			}
		})
	}
	for _, tt := range []struct{ file, api, class, msg string }{
		{"anthropic_error.sse", config.APIAnthropic, results.ErrStreamErr, "error in stream after 1 chunks: overloaded_error: Overloaded"},
		{"responses_failed.sse", config.APIResponses, results.ErrStreamErr, "error in stream after 1 chunks: server_error: The model produced invalid content."},
		{"gemini_error.sse", config.APIGemini, results.ErrStreamErr, "error in stream after 1 chunks: UNAVAILABLE: The model is overloaded. Please try again later."},
	} {
		t.Run(tt.file, func(t *testing.T) {
			o := readGolden(t, tt.api, tt.file)
			if o.failure == nil || o.failure.Class != tt.class || o.failure.Message != tt.msg {
				t.Errorf("failure %+v, want {%s %q}", o.failure, tt.class, tt.msg)
			}
		})
	}
}

// shape is a stream's sequence of events, repeats collapsed: by name on
// the APIs whose events are named, by what the frame holds on the others
// (chat, gemini). Pings are left out (they come at any time), and so are an
// app's events that its sse section does not name.
func shape(t *testing.T, api string, body []byte) []string {
	t.Helper()
	c := goldenClient(t, api)
	var (
		out   []string
		event string
		f     frame
	)
	named := map[string]bool{}
	for _, l := range [][]string{appSSE().TokenEvents, appSSE().ReasoningEvents, appSSE().StatusEvents, appSSE().DoneEvents, appSSE().ErrorEvents} {
		for _, e := range l {
			named[e] = true
		}
	}
	for _, line := range strings.Split(strings.ReplaceAll(string(body), "\r\n", "\n"), "\n") {
		if api == config.APINDJSON && line != "" {
			line = "data:" + line // every line is a payload
		}
		switch {
		case line == "":
			event = ""
		case strings.HasPrefix(line, "event:"):
			event = strings.TrimSpace(line[6:])
		case strings.HasPrefix(line, "data:"):
			label := event
			if label == "" {
				c.wire.parse(nil, []byte(line[5:]), &f)
				var kinds []string
				for _, k := range []struct {
					on   bool
					name string
				}{{f.done, "done"}, {f.malformed, "bad"}, {f.isError, "error"}, {f.reasoning, "reasoning"}, {f.content, "content"}, {f.toolCall, "tool"}, {len(f.finishReason) > 0, "finish"}, {f.hasUsage, "usage"}} {
					if k.on {
						kinds = append(kinds, k.name)
					}
				}
				label = strings.Join(kinds, "+")
				if label == "" {
					label = "control"
				}
			}
			if label == "ping" || api == config.APISSE && !named[label] {
				continue
			}
			if len(out) == 0 || out[len(out)-1] != label {
				out = append(out, label)
			}
		}
	}
	return out
}

// tee keeps a copy of every response body it carries.
type tee struct {
	rt   http.RoundTripper
	body *bytes.Buffer
}

func (tr tee) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := tr.rt.RoundTrip(r)
	if err == nil {
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.TeeReader(resp.Body, tr.body), resp.Body}
	}
	return resp, err
}

// TestSimSpeaksTheGoldenShapes: the simulator's stream of each API has the
// event sequence of the provider's documented one (testdata/streams).
func TestSimSpeaksTheGoldenShapes(t *testing.T) {
	tool := config.Prompt{ID: "tool", Messages: []config.Message{{Role: "user", Content: "Echo hello."}}, Tools: []config.Tool{{Name: "echo"}}}
	for _, tt := range []struct {
		file, api, spec string
		prompt          config.Prompt
	}{
		{"chat.sse", config.APIChat, "fast?tokens=3", cachedPrompt},
		{"responses.sse", config.APIResponses, "fast?tokens=3&reasoning=2", cachedPrompt},
		{"responses_tool.sse", config.APIResponses, "fast?tokens=3", tool},
		{"anthropic.sse", config.APIAnthropic, "fast?tokens=3&reasoning=2", cachedPrompt},
		{"anthropic_tool.sse", config.APIAnthropic, "fast?tokens=3", tool},
		{"gemini.sse", config.APIGemini, "fast?tokens=3&reasoning=1", cachedPrompt},
		{"sse.sse", config.APISSE, "fast?tokens=3", cachedPrompt},
		{"ollama.ndjson", config.APINDJSON, "fast?tokens=3&reasoning=1", cachedPrompt},
	} {
		t.Run(tt.file, func(t *testing.T) {
			golden, err := os.ReadFile(filepath.Join("testdata", "streams", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			p, err := sim.ParseSpec(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			srv, err := sim.Start(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			var body bytes.Buffer
			tr := http.DefaultTransport.(*http.Transport).Clone()
			defer tr.CloseIdleConnections()
			c, err := newClient(NewEndpoint(apiTarget(tt.api), srv.URLFor(tt.api), func(string) string { return "k" }), &http.Client{Transport: tee{tr, &body}}, []config.Prompt{tt.prompt})
			if err != nil {
				t.Fatal(err)
			}
			if o := c.stream(context.Background(), 0, nil, nil, 10*time.Second, make([]byte, 32<<10)); o.failure != nil {
				t.Fatalf("failure %+v", *o.failure)
			}
			want := shape(t, tt.api, golden)
			t.Logf("%s: %s", tt.api, strings.Join(want, ", "))
			if diff := cmp.Diff(want, shape(t, tt.api, body.Bytes())); diff != "" {
				t.Errorf("event sequence (-documented +simulator):\n%s\nsimulator's stream:\n%s", diff, body.String())
			}
		})
	}
}
