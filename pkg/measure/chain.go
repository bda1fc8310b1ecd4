package measure

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/results"
)

// An agent chain (config steps:) is one measurement of several requests:
// step k is sent when step k−1 has answered, with the conversation so far
// (the earlier steps' messages, each followed by its answer as an
// assistant turn) and then its own messages, as an agent loop sends them.
// Each step is a request like any other (run.timeout, the 429 retries, the
// stream bounds, one classified failure); a failed step fails the chain
// with its class. The sample is the last step's request, with the chain's
// times and each step's own (results.Step).

// answerLimit bounds the text of one step's answer that latgate keeps to
// pass on: 64 KiB plus 256 bytes per max_tokens token (a token's escaped
// text is far shorter), at most 1 MiB. An answer longer than this fails
// the chain (results.ErrOverrun) rather than being cut, which would send
// another conversation. A chain holds at most results.MaxSteps answers.
func answerLimit(maxTokens int) int { return min(64<<10+256*max(maxTokens, 1), 1<<20) }

// answerText collects a step's answer text as it streams, JSON-escaped
// (the wire rows' parsers hand over string values as they are in the
// frame), to be decoded once at the end of the step.
type answerText struct {
	b     []byte
	limit int
	over  bool
}

// add appends one token's text: escaped JSON string content, or plain
// text (an sse target's whole-data tokens), which it escapes.
func (t *answerText) add(text []byte, plain bool) {
	if t.over {
		return
	}
	if len(t.b)+len(text) > t.limit {
		t.over = true
		return
	}
	if !plain {
		t.b = append(t.b, text...)
		return
	}
	const hex = "0123456789abcdef"
	for _, c := range text {
		switch {
		case c == '"' || c == '\\':
			t.b = append(t.b, '\\', c)
		case c < 0x20:
			t.b = append(t.b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			t.b = append(t.b, c)
		}
	}
}

// text decodes the collected answer.
func (t *answerText) text() (string, error) {
	q := make([]byte, 0, len(t.b)+2)
	q = append(append(append(q, '"'), t.b...), '"')
	var s string
	err := json.Unmarshal(q, &s)
	return s, err
}

// chain measures prompt i's steps one after another.
func (c *client) chain(ctx context.Context, i int, opts Options, buf []byte, gu *giveUp) outcome {
	pr := c.prompts[i]
	n := len(pr.Steps)
	// The first step's messages are the prompt's (a cold prompt's carry
	// the nonce placeholder, which every step's body then opens with).
	conv := append(make([]config.Message, 0, len(pr.Messages)+2*n), pr.Messages...)
	steps := make([]results.Step, 0, n)
	ans := &answerText{limit: answerLimit(c.ep.MaxTokens)}
	var (
		start   time.Time
		o       outcome
		retries int
		tally   results.Usage // every step's request, for the cost of the run
	)
	for k := range n {
		if k > 0 {
			text, err := ans.text()
			if err != nil || text == "" {
				why := "had no text"
				if err != nil {
					why = "could not be decoded: " + err.Error()
				}
				return stepFailure(o, &tally, k, n, results.ErrEmpty, fmt.Sprintf("the answer %s to pass on as step %d's assistant turn", why, k+1))
			}
			conv = append(conv, config.Message{Role: "assistant", Content: text})
			conv = append(conv, pr.Steps[k]...)
		}
		ans.b, ans.over = ans.b[:0], false
		o = c.attempts(ctx, i, conv, ans, opts, buf, gu)
		if o.failure != nil {
			tally.Add(nil)
			o.failure.Message = fmt.Sprintf("step %d of %d: %s", k+1, n, o.failure.Message)
			o.failure.Retries += retries
			o.usage = &tally
			return o
		}
		tally.Add(&o.sample)
		if ans.over {
			return stepFailure(o, &tally, k+1, n, results.ErrOverrun, fmt.Sprintf("the answer's text passed %d bytes, the most latgate passes on to the next step (64 KiB + 256 bytes per max_tokens token, at most 1 MiB)", ans.limit))
		}
		if k == 0 {
			start = o.start
		}
		s := &o.sample
		steps = append(steps, results.Step{StartMS: ms(o.start.Sub(start)), TTFT: s.TTFT, Total: s.Total,
			OutputTokens: s.OutputTokens, PromptTokens: s.PromptTokens, Retries: s.Retries})
		retries += s.Retries
	}
	last := steps[n-1]
	s := &o.sample
	s.Steps = steps
	s.ChainTotal = last.StartMS + last.Total
	s.ChainTTFTLast = last.StartMS + last.TTFT
	s.Retries = retries
	o.usage = &tally
	return o
}

// stepFailure is the chain's failure at step k (1-based) of n, after its
// last successful step's outcome o, with the tally of its steps' requests.
func stepFailure(o outcome, tally *results.Usage, k, n int, class, msg string) outcome {
	return outcome{start: o.start, usage: tally, failure: &results.Failure{Class: class, Message: fmt.Sprintf("step %d of %d: %s", k, n, msg)}}
}
