package compare

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/latgate/latgate/pkg/results"
)

func TestCompatible(t *testing.T) {
	temp := 0.7
	mkBase := func() Side {
		return Side{
			Run: results.Run{Requests: 30, Warmup: 2, Concurrency: 1},
			Targets: []results.Target{
				{Name: "t", BaseURL: "https://api.example.com/v1", Model: "m", Params: results.Params{MaxTokens: 64, Stream: true, ExtraHash: "e1"},
					Prompts: []results.Prompt{{ID: "greeting", Hash: "1a2b3c4d5e6f7a8b"}, {ID: "code", Hash: "c0de"}}},
				{Name: "sim", BaseURL: "sim:fast?ttft=100", Model: "m", Params: results.Params{MaxTokens: 64, Stream: true}},
			},
		}
	}
	tests := []struct {
		name   string
		change func(cur *Side)
		want   []Mismatch
	}{
		{"identical", func(*Side) {}, nil},
		{"request and warmup counts may differ", func(c *Side) { c.Run.Requests, c.Run.Warmup = 100, 0 }, nil},
		{"same endpoint spelled differently", func(c *Side) { c.Targets[0].BaseURL = "HTTPS://API.example.com/v1/" }, nil},
		{"concurrency", func(c *Side) { c.Run.Concurrency = 4 },
			[]Mismatch{{Field: FieldConcurrency, Baseline: "1", Current: "4"}}},
		{"model", func(c *Side) { c.Targets[0].Model = "m2" },
			[]Mismatch{{Target: "t", Field: FieldModel, Baseline: "m", Current: "m2"}}},
		{"host", func(c *Side) { c.Targets[0].BaseURL = "https://other.example.com/v1" },
			[]Mismatch{{Target: "t", Field: FieldBaseURL, Baseline: "https://api.example.com/v1", Current: "https://other.example.com/v1"}}},
		{"path", func(c *Side) { c.Targets[0].BaseURL = "https://api.example.com/v2" },
			[]Mismatch{{Target: "t", Field: FieldBaseURL, Baseline: "https://api.example.com/v1", Current: "https://api.example.com/v2"}}},
		// A simulator profile is the simulator's latency, which the gate
		// compares: rehearsing a slowdown must not be refused.
		{"simulator parameters are latency, not a new endpoint", func(c *Side) { c.Targets[1].BaseURL = "sim:fast?ttft=200" }, nil},
		{"simulator replaced by a real endpoint", func(c *Side) { c.Targets[1].BaseURL = "http://127.0.0.1:8000/v1" },
			[]Mismatch{{Target: "sim", Field: FieldBaseURL, Baseline: "sim:fast?ttft=100", Current: "http://127.0.0.1:8000/v1"}}},
		{"params", func(c *Side) {
			c.Targets[0].Params = results.Params{MaxTokens: 128, Temperature: &temp, Stream: false, ExtraHash: "e2e2e2e2e2e2"}
		}, []Mismatch{
			{Target: "t", Field: FieldMaxTokens, Baseline: "64", Current: "128"},
			{Target: "t", Field: FieldTemperature, Baseline: "unset", Current: "0.7"},
			{Target: "t", Field: FieldStream, Baseline: "true", Current: "false"},
			{Target: "t", Field: FieldExtra, Baseline: "e1", Current: "e2e2e2e2…"},
		}},
		{"prompts edited, removed and added", func(c *Side) {
			c.Targets[0].Prompts = []results.Prompt{{ID: "new"}, {ID: "greeting", Hash: "9f8e7d6c5b4a3928"}}
		}, []Mismatch{
			{Target: "t", Prompt: "greeting", Field: FieldPromptHash, Baseline: "1a2b3c4d5e6f7a8b", Current: "9f8e7d6c5b4a3928"},
			{Target: "t", Prompt: "code", Field: FieldPrompt, Baseline: "code"},
			{Target: "t", Prompt: "new", Field: FieldPrompt, Current: "new"},
		}},
		{"a missing hash is not an edit", func(c *Side) { c.Targets[0].Prompts[1].Hash = "" }, nil},
		{"targets removed and added", func(c *Side) {
			c.Targets[1].Name = "sim2"
			c.Targets[0].Region = "eu"
		}, []Mismatch{
			{Target: "t", Field: FieldTarget, Baseline: "t"},
			{Target: "sim", Field: FieldTarget, Baseline: "sim"},
			{Target: "t", Region: "eu", Field: FieldTarget, Current: "t"},
			{Target: "sim2", Field: FieldTarget, Current: "sim2"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cur := mkBase()
			tt.change(&cur)
			got := Compatible(mkBase(), cur)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatches (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMismatchMessage(t *testing.T) {
	tests := []struct {
		m    Mismatch
		want string
	}{
		{Mismatch{Target: "t", Prompt: "greeting", Field: FieldPromptHash, Baseline: "1a2b3c4d5e6f7a8b", Current: "9f8e7d6c5b4a3928"},
			"prompt \"greeting\" of target t was edited since the baseline was blessed (hash 1a2b3c4d… → 9f8e7d6c…): run `latgate bless` to accept the new prompt set, or revert the edit"},
		{Mismatch{Target: "t", Prompt: "code", Field: FieldPrompt, Baseline: "code"},
			"prompt \"code\" of target t is in the baseline but not in this run: restore it, or run `latgate bless` to accept the new prompt set"},
		{Mismatch{Target: "t", Prompt: "new", Field: FieldPrompt, Current: "new"},
			"prompt \"new\" of target t is not in the baseline: run `latgate bless` to accept the new prompt set, or remove it"},
		{Mismatch{Target: "t", Region: "eu", Field: FieldTarget, Baseline: "t"},
			"target t (region eu) is in the baseline but not in this run: restore it, or run `latgate bless` to accept the new target set"},
		{Mismatch{Target: "t", Field: FieldTarget, Current: "t"},
			"target t is not in the baseline: run `latgate bless` to accept it into the baseline, or remove it"},
		{Mismatch{Target: "t", Field: FieldModel, Baseline: "m", Current: "m2"},
			"target t: model changed from \"m\" to \"m2\" since the baseline was blessed, and it changes latency: restore it, or run `latgate bless` to accept the new setting"},
		{Mismatch{Target: "t", Field: FieldMaxTokens, Baseline: "64", Current: "128"},
			"target t: max_tokens changed from 64 to 128 since the baseline was blessed, and it changes latency: restore it, or run `latgate bless` to accept the new setting"},
		{Mismatch{Field: FieldConcurrency, Baseline: "1", Current: "4"},
			"run.concurrency changed from 1 to 4 since the baseline was blessed, and it changes latency: restore it, or run `latgate bless` to accept the new setting"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.m.Message()); diff != "" {
			t.Errorf("%s message (-want +got):\n%s", tt.m.Field, diff)
		}
		var err error = tt.m
		var m Mismatch
		if !errors.As(err, &m) || err.Error() != tt.m.Message() {
			t.Errorf("%s: Error() = %q, want Message()", tt.m.Field, err.Error())
		}
		if !strings.Contains(tt.m.Message(), "latgate bless") {
			t.Errorf("%s: message does not say how to fix it", tt.m.Field)
		}
	}
}
