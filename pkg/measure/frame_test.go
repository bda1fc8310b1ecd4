package measure

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// frameView is the comparable part of a frame.
type frameView struct {
	Done, Malformed, Error, Choice, Content, Reasoning, Tool bool
	Finish                                                   string
	Usage                                                    bool
	Completion, Prompt, Cached                               int
	Model, FP                                                string
}

func view(f *frame) frameView {
	return frameView{f.done, f.malformed, f.isError, f.hasChoice, f.content, f.reasoning, f.toolCall,
		string(f.finishReason), f.hasUsage, f.usage.output, f.usage.prompt, f.usage.cached, string(f.model), string(f.fingerprint)}
}

func TestParseFrame(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want frameView
	}{
		{"done", "[DONE]", frameView{Done: true}},
		{"done with spaces", " [DONE] ", frameView{Done: true}},
		{"role only is not a token",
			`{"id":"x","model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
			frameView{Choice: true, Model: "m", FP: "fp"}},
		{"content token",
			`{"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}`,
			frameView{Choice: true, Content: true}},
		{"ollama: role on every chunk, content token",
			`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"stories260k","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":" Once"},"finish_reason":null}]}`,
			frameView{Choice: true, Content: true, Model: "stories260k", FP: "fp_ollama"}},
		{"ollama: empty last chunk with finish",
			`{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":"length"}]}`,
			frameView{Choice: true, Finish: "length"}},
		{"reasoning_content", `{"choices":[{"delta":{"reasoning_content":"hmm"}}]}`, frameView{Choice: true, Reasoning: true}},
		{"reasoning (vLLM, Ollama)", `{"choices":[{"delta":{"reasoning":"hmm","content":null}}]}`, frameView{Choice: true, Reasoning: true}},
		{"empty reasoning", `{"choices":[{"delta":{"reasoning":""}}]}`, frameView{Choice: true}},
		{"tool call", `{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{"}}]}}]}`, frameView{Choice: true, Tool: true}},
		{"empty tool calls", `{"choices":[{"delta":{"tool_calls":[]}}]}`, frameView{Choice: true}},
		{"usage chunk",
			`{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":34,"total_tokens":46,"prompt_tokens_details":{"cached_tokens":8}}}`,
			frameView{Usage: true, Completion: 34, Prompt: 12, Cached: 8}},
		{"usage null", `{"choices":[{"delta":{"content":"a"}}],"usage":null}`, frameView{Choice: true, Content: true}},
		{"escaped quote in content", `{"choices":[{"delta":{"content":"\"\\"}}]}`, frameView{Choice: true, Content: true}},
		{"nested unknown fields skipped", `{"x":{"choices":[{"delta":{"content":"no"}}]},"choices":[{"logprobs":{"content":[{"a":[1,2]}]},"delta":{}}]}`, frameView{Choice: true}},
		{"second choice ignored", `{"choices":[{"delta":{}},{"delta":{"content":"b"}}]}`, frameView{Choice: true}},
		{"openai error", `{"error":{"message":"boom","type":"server_error"}}`, frameView{Error: true}},
		{"ollama error", `{"error":"boom"}`, frameView{Error: true}},
		{"error null is fine", `{"error":null,"choices":[{"delta":{"content":"a"}}]}`, frameView{Choice: true, Content: true}},
		{"malformed", `{not json`, frameView{Malformed: true}},
		{"truncated", `{"choices":[{"delta":{"content":"a"`, frameView{Malformed: true}},
		{"not an object", `[1,2]`, frameView{Malformed: true}},
		{"float token count", `{"usage":{"completion_tokens":7.0}}`, frameView{Usage: true, Completion: 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f frame
			parseFrame([]byte(tt.in), &f)
			if diff := cmp.Diff(tt.want, view(&f)); diff != "" {
				t.Errorf("parseFrame(%s) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestParseFrameAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector adds allocations")
	}
	data := []byte(`{"id":"chatcmpl-sim-1","object":"chat.completion.chunk","created":1,"model":"sim","system_fingerprint":"fp_sim","choices":[{"index":0,"delta":{"content":"tok "},"finish_reason":null}]}`)
	var f frame
	if n := testing.AllocsPerRun(100, func() { parseFrame(data, &f) }); n != 0 {
		t.Errorf("parseFrame allocates %v times per frame, want 0", n)
	}
}

func FuzzParseFrame(f *testing.F) {
	for _, s := range []string{
		"[DONE]", `{"choices":[{"delta":{"content":"x"},"finish_reason":"stop"}]}`,
		`{"usage":{"completion_tokens":3}}`, `{"error":"x"}`, `{"choices":[{"delta":{"tool_calls":[{}]}}]}`, `{`, `"`, `[[[`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fr frame
		parseFrame(data, &fr) // must not panic or loop
		if fr.malformed && (fr.token() || fr.done) {
			t.Errorf("malformed frame also reports content: %+v", view(&fr))
		}
	})
}
