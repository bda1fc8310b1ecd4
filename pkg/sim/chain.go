package sim

import (
	"encoding/json"
	"time"
)

// An agent chain sends its steps one after another, each with the
// conversation so far: step N's request holds N−1 assistant turns (role
// "assistant", Gemini's "model"). ChainStep and ChainStepDelay slow one
// step of every chain, so a test can change one step and see the chain's
// metrics move.

// assistantTurns counts the assistant turns of a JSON array of messages
// ({"role": …}); 0 for anything else.
func assistantTurns(raw json.RawMessage) int {
	var msgs []struct {
		Role string `json:"role"`
	}
	if json.Unmarshal(raw, &msgs) != nil {
		return 0
	}
	n := 0
	for _, m := range msgs {
		if m.Role == "assistant" || m.Role == "model" {
			n++
		}
	}
	return n
}

// stepDelay delays the tokens of plan by ChainStepDelay when the request is
// step ChainStep of a chain (it holds ChainStep−1 assistant turns).
func (p Profile) stepDelay(plan *Plan, turns int) {
	if p.ChainStep <= 0 || p.ChainStepDelay <= 0 || turns != p.ChainStep-1 {
		return
	}
	delay(plan, p.ChainStepDelay)
}

// delay moves every token of plan, and its finish, d later.
func delay(plan *Plan, d time.Duration) {
	for k := range plan.Tokens {
		plan.Tokens[k] += d
	}
	plan.Finish += d
}
