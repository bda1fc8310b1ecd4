package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMessages pins the whole error of a config with bad values in its
// scalar fields (run, gate, a target's scalars, slo, price), byte for byte
// and in order, errors on one line included: the schema tables must say
// exactly what the hand-written checks they replace said.
func TestMessages(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"run requests zero",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {requests: 0}
`,
			`latgate.yaml:3: run.requests: must be between 1 and 100000, got 0; e.g. requests: 30`},
		{"run requests too many",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {requests: 100001}
`,
			`latgate.yaml:3: run.requests: must be between 1 and 100000, got 100001; e.g. requests: 30`},
		{"run requests not a number",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {requests: x}
`,
			`latgate.yaml:3: run.requests: want an integer, got "x"; e.g. requests: 30`},
		{"run requests float",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {requests: 1.5}
`,
			`latgate.yaml:3: run.requests: want an integer, got the number 1.5; e.g. requests: 30`},
		{"run requests overflow",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {requests: 99999999999999999999}
`,
			`latgate.yaml:3: run.requests: want an integer, got the number 99999999999999999999; e.g. requests: 30`},
		{"run warmup negative",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {warmup: -1}
`,
			`latgate.yaml:3: run.warmup: must be between 0 and 10000, got -1; e.g. warmup: 2 (0 disables warmup)`},
		{"run warmup too many",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {warmup: 1000000}
`,
			`latgate.yaml:3: run.warmup: must be between 0 and 10000, got 1000000; e.g. warmup: 2 (0 disables warmup)`},
		{"run concurrency zero",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {concurrency: 0}
`,
			`latgate.yaml:3: run.concurrency: must be between 1 and 1024, got 0; e.g. concurrency: 1`},
		{"run concurrency too many",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {concurrency: 100000}
`,
			`latgate.yaml:3: run.concurrency: must be between 1 and 1024, got 100000; e.g. concurrency: 1`},
		{"run timeout zero",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {timeout: 0s}
`,
			`latgate.yaml:3: run.timeout: must be above 0 and at most 1h0m0s, got 0s; e.g. timeout: 60s`},
		{"run timeout no unit",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {timeout: 60}
`,
			`latgate.yaml:3: run.timeout: 60 has no unit; add a unit, e.g. 60s`},
		{"run timeout negative number",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {timeout: -5}
`,
			`latgate.yaml:3: run.timeout: the number -5 is not a duration; write a positive number with a unit (ns, us, ms, s, m, h), e.g. timeout: 60s`},
		{"run timeout word",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {timeout: fast}
`,
			`latgate.yaml:3: run.timeout: "fast" is not a duration; write a number with a unit (ns, us, ms, s, m, h), e.g. timeout: 60s`},
		{"run timeout too long",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {timeout: 100h}
`,
			`latgate.yaml:3: run.timeout: must be above 0 and at most 1h0m0s, got 100h0m0s; e.g. timeout: 60s`},
		{"run timeout list",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {timeout: [1]}
`,
			`latgate.yaml:3: run.timeout: want a duration, got a list; e.g. timeout: 60s`},
		{"run order unknown",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {order: random}
`,
			`latgate.yaml:3: run.order: "random" is not an order; use interleave (default) or shuffle`},
		{"run order number",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {order: 3}
`,
			`latgate.yaml:3: run.order: "3" is not an order; use interleave (default) or shuffle`},
		{"run order list",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {order: [a]}
`,
			`latgate.yaml:3: run.order: want a string, got a list; e.g. order: interleave`},
		{"run order unprintable",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {order: "a\tb"}
`,
			`latgate.yaml:3: run.order: holds a tab (\t) at byte 1; a config value is one line of printable text, as it is printed in terminals, reports and Markdown: remove it`},
		{"run seed word",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {seed: x}
`,
			`latgate.yaml:3: run.seed: want an integer, got "x"; e.g. seed: 1`},
		{"run max_requests below requests",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {max_requests: 10}
`,
			`latgate.yaml:3: run.max_requests: 10 is below run.requests (60): it is the cap of check's extra rounds; set it to run.requests to measure exactly that many`},
		{"run max_requests zero",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {max_requests: 0}
`,
			`latgate.yaml:3: run.max_requests: must be between 1 and 100000, got 0; e.g. max_requests: 150`},
		{"run max_requests word",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {max_requests: x}
`,
			`latgate.yaml:3: run.max_requests: want an integer, got "x"; e.g. max_requests: 150`},
		{"run max_requests below bad requests",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {requests: 0, max_requests: 10}
`,
			`latgate.yaml:3: run.requests: must be between 1 and 100000, got 0; e.g. requests: 30
latgate.yaml:3: run.max_requests: 10 is below run.requests (60): it is the cap of check's extra rounds; set it to run.requests to measure exactly that many`},
		{"run bless_requests zero",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {bless_requests: 0}
`,
			`latgate.yaml:3: run.bless_requests: must be between 1 and 100000, got 0; e.g. bless_requests: 240`},
		{"run bless_requests word",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {bless_requests: x}
`,
			`latgate.yaml:3: run.bless_requests: want an integer, got "x"; e.g. bless_requests: 240`},
		{"run all bad on one line",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {requests: 0, max_requests: 0, bless_requests: 0, warmup: -1, concurrency: 0, timeout: 0s, order: x, seed: y}
`,
			`latgate.yaml:3: run.requests: must be between 1 and 100000, got 0; e.g. requests: 30
latgate.yaml:3: run.warmup: must be between 0 and 10000, got -1; e.g. warmup: 2 (0 disables warmup)
latgate.yaml:3: run.concurrency: must be between 1 and 1024, got 0; e.g. concurrency: 1
latgate.yaml:3: run.timeout: must be above 0 and at most 1h0m0s, got 0s; e.g. timeout: 60s
latgate.yaml:3: run.order: "x" is not an order; use interleave (default) or shuffle
latgate.yaml:3: run.seed: want an integer, got "y"; e.g. seed: 1
latgate.yaml:3: run.max_requests: must be between 1 and 100000, got 0; e.g. max_requests: 150
latgate.yaml:3: run.bless_requests: must be between 1 and 100000, got 0; e.g. bless_requests: 240`},
		{"run all bad reversed",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {seed: y, order: x, timeout: 0s, concurrency: 0, warmup: -1, bless_requests: 0, max_requests: 0, requests: 0}
`,
			`latgate.yaml:3: run.requests: must be between 1 and 100000, got 0; e.g. requests: 30
latgate.yaml:3: run.warmup: must be between 0 and 10000, got -1; e.g. warmup: 2 (0 disables warmup)
latgate.yaml:3: run.concurrency: must be between 1 and 1024, got 0; e.g. concurrency: 1
latgate.yaml:3: run.timeout: must be above 0 and at most 1h0m0s, got 0s; e.g. timeout: 60s
latgate.yaml:3: run.order: "x" is not an order; use interleave (default) or shuffle
latgate.yaml:3: run.seed: want an integer, got "y"; e.g. seed: 1
latgate.yaml:3: run.max_requests: must be between 1 and 100000, got 0; e.g. max_requests: 150
latgate.yaml:3: run.bless_requests: must be between 1 and 100000, got 0; e.g. bless_requests: 240`},
		{"run block",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run:
  requests: 0
  warmup: -1
  concurrency: 0
  timeout: 0s
  order: x
  seed: y
  max_requests: 0
  bless_requests: 0
`,
			`latgate.yaml:4: run.requests: must be between 1 and 100000, got 0; e.g. requests: 30
latgate.yaml:5: run.warmup: must be between 0 and 10000, got -1; e.g. warmup: 2 (0 disables warmup)
latgate.yaml:6: run.concurrency: must be between 1 and 1024, got 0; e.g. concurrency: 1
latgate.yaml:7: run.timeout: must be above 0 and at most 1h0m0s, got 0s; e.g. timeout: 60s
latgate.yaml:8: run.order: "x" is not an order; use interleave (default) or shuffle
latgate.yaml:9: run.seed: want an integer, got "y"; e.g. seed: 1
latgate.yaml:10: run.max_requests: must be between 1 and 100000, got 0; e.g. max_requests: 150
latgate.yaml:11: run.bless_requests: must be between 1 and 100000, got 0; e.g. bless_requests: 240`},
		{"run unknown key",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {flux: 1}
`,
			`latgate.yaml:3: run.flux: unknown key "flux"; valid keys here: requests, max_requests, bless_requests, warmup, concurrency, timeout, order, seed, rate, arrival, duration, max_in_flight`},
		{"run misspelt key",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {requsts: 1}
`,
			`latgate.yaml:3: run.requsts: unknown key "requsts"; did you mean "requests"?`},
		{"run secret key",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: {token: abc}
`,
			`latgate.yaml:3: run.token: credentials never go in the config file; remove this key and set api_key_env on the target to the name of an environment variable holding the key`},
		{"run duplicate key",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run:
  seed: 1
  seed: 2
`,
			`latgate.yaml:5: run.seed: duplicate key (first at line 4); keep one`},
		{"run list",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
run: [1]
`,
			`latgate.yaml:3: run: want a mapping (key: value lines), got a list`},
		{"run merge",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
base: &b {requests: 0}
run: {<<: *b, warmup: -1}
`,
			`latgate.yaml:3: base: unknown key "base"; did you mean "gate"?
latgate.yaml:3: run.requests: must be between 1 and 100000, got 0; e.g. requests: 30
latgate.yaml:4: run.warmup: must be between 0 and 10000, got -1; e.g. warmup: 2 (0 disables warmup)`},
		{"run too large",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p0, messages: [{role: user, content: hi}]}, {id: p1, messages: [{role: user, content: hi}]}, {id: p2, messages: [{role: user, content: hi}]}, {id: p3, messages: [{role: user, content: hi}]}, {id: p4, messages: [{role: user, content: hi}]}, {id: p5, messages: [{role: user, content: hi}]}, {id: p6, messages: [{role: user, content: hi}]}, {id: p7, messages: [{role: user, content: hi}]}, {id: p8, messages: [{role: user, content: hi}]}, {id: p9, messages: [{role: user, content: hi}]}, {id: p10, messages: [{role: user, content: hi}]}]
run: {requests: 100000}
`,
			`latgate.yaml:3: run: (100000 requests + 2 warmup) × 11 prompts is over the 1000000 requests one target may send; lower run.requests or run.warmup`},
		{"run rounds too large",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p0, messages: [{role: user, content: hi}]}, {id: p1, messages: [{role: user, content: hi}]}, {id: p2, messages: [{role: user, content: hi}]}, {id: p3, messages: [{role: user, content: hi}]}, {id: p4, messages: [{role: user, content: hi}]}, {id: p5, messages: [{role: user, content: hi}]}, {id: p6, messages: [{role: user, content: hi}]}, {id: p7, messages: [{role: user, content: hi}]}, {id: p8, messages: [{role: user, content: hi}]}, {id: p9, messages: [{role: user, content: hi}]}, {id: p10, messages: [{role: user, content: hi}]}]
run: {requests: 30000}
`,
			`latgate.yaml:3: run: (100000 requests + 2 warmup) × 11 prompts is over the 1000000 requests one target may send; lower run.requests or run.warmup (run.max_requests 75000 and run.bless_requests 100000 count too; lower them)`},
		{"run max_requests below requests counts as unset",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p0, messages: [{role: user, content: hi}]}, {id: p1, messages: [{role: user, content: hi}]}, {id: p2, messages: [{role: user, content: hi}]}, {id: p3, messages: [{role: user, content: hi}]}, {id: p4, messages: [{role: user, content: hi}]}, {id: p5, messages: [{role: user, content: hi}]}, {id: p6, messages: [{role: user, content: hi}]}, {id: p7, messages: [{role: user, content: hi}]}, {id: p8, messages: [{role: user, content: hi}]}, {id: p9, messages: [{role: user, content: hi}]}, {id: p10, messages: [{role: user, content: hi}]}]
run: {requests: 30000, max_requests: 100}
`,
			`latgate.yaml:3: run.max_requests: 100 is below run.requests (30000): it is the cap of check's extra rounds; set it to run.requests to measure exactly that many
latgate.yaml:3: run: (100000 requests + 2 warmup) × 11 prompts is over the 1000000 requests one target may send; lower run.requests or run.warmup (run.max_requests 75000 and run.bless_requests 100000 count too; lower them)`},
		{"gate confidence 50",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: {confidence: 50%}
`,
			`latgate.yaml:3: gate.confidence: must be above 50% and below 100%; e.g. confidence: 95%`},
		{"gate confidence 100",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: {confidence: 100%}
`,
			`latgate.yaml:3: gate.confidence: must be above 50% and below 100%; e.g. confidence: 95%`},
		{"gate confidence ambiguous",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: {confidence: 2}
`,
			`latgate.yaml:3: gate.confidence: 2 is ambiguous; write 2% for a percentage or a fraction below 1 (e.g. 0.05)`},
		{"gate confidence word",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: {confidence: x}
`,
			`latgate.yaml:3: gate.confidence: "x" is not a percentage; write a percentage like 95% or a fraction like 0.05`},
		{"gate confidence bad percent",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: {confidence: x%}
`,
			`latgate.yaml:3: gate.confidence: "x%" is not a percentage; write e.g. confidence: 95%`},
		{"gate confidence list",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: {confidence: [1]}
`,
			`latgate.yaml:3: gate.confidence: want a percentage, got a list; e.g. confidence: 95%`},
		{"gate ok_confidence 50",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: {ok_confidence: 50%}
`,
			`latgate.yaml:3: gate.ok_confidence: must be above 50% and below 100%: how sure an ok is that the change is within its tolerance (one-sided); e.g. ok_confidence: 90%`},
		{"gate ok_confidence word",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: {ok_confidence: x}
`,
			`latgate.yaml:3: gate.ok_confidence: "x" is not a percentage; write a percentage like 90% or a fraction like 0.05`},
		{"gate resamples few",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: {resamples: 99}
`,
			`latgate.yaml:3: gate.resamples: must be between 100 and 1000000, got 99; e.g. resamples: 2000`},
		{"gate resamples many",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: {resamples: 1000001}
`,
			`latgate.yaml:3: gate.resamples: must be between 100 and 1000000, got 1000001; e.g. resamples: 2000`},
		{"gate resamples word",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: {resamples: x}
`,
			`latgate.yaml:3: gate.resamples: want an integer, got "x"; e.g. resamples: 2000`},
		{"gate seed word",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: {seed: x}
`,
			`latgate.yaml:3: gate.seed: want an integer, got "x"; e.g. seed: 1`},
		{"gate aggregate yes",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: {aggregate: yes}
`,
			`latgate.yaml:3: gate.aggregate: want true or false, got "yes"; e.g. aggregate: true`},
		{"gate aggregate number",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: {aggregate: 1}
`,
			`latgate.yaml:3: gate.aggregate: want true or false, got the number 1; e.g. aggregate: true`},
		{"gate day_to_day negative",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: {day_to_day: -1%}
`,
			`latgate.yaml:3: gate.day_to_day: must be between 0% and 100%: the σ of a run's level from day to day; e.g. day_to_day: 2%`},
		{"gate day_to_day over",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: {day_to_day: 101%}
`,
			`latgate.yaml:3: gate.day_to_day: must be between 0% and 100%: the σ of a run's level from day to day; e.g. day_to_day: 2%`},
		{"gate day_to_day ambiguous",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: {day_to_day: 2}
`,
			`latgate.yaml:3: gate.day_to_day: 2 is ambiguous; write 2% for a percentage or a fraction below 1 (e.g. 0.05)`},
		{"gate on_inconclusive unknown",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: {on_inconclusive: ignore}
`,
			`latgate.yaml:3: gate.on_inconclusive: "ignore" is not one of pass, warn, fail; e.g. on_inconclusive: warn`},
		{"gate on_inconclusive list",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: {on_inconclusive: [a]}
`,
			`latgate.yaml:3: gate.on_inconclusive: want a string, got a list; e.g. on_inconclusive: warn`},
		{"gate max_baseline_age zero days",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: {max_baseline_age: 0d}
`,
			`latgate.yaml:3: gate.max_baseline_age: "0d" is not an age; write a positive number of days (at most 3650) or a duration, e.g. max_baseline_age: 30d`},
		{"gate max_baseline_age too many days",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: {max_baseline_age: 4000d}
`,
			`latgate.yaml:3: gate.max_baseline_age: "4000d" is not an age; write a positive number of days (at most 3650) or a duration, e.g. max_baseline_age: 30d`},
		{"gate max_baseline_age no unit",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: {max_baseline_age: 30}
`,
			`latgate.yaml:3: gate.max_baseline_age: 30 has no unit; add a unit, e.g. 30d`},
		{"gate max_baseline_age zero",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: {max_baseline_age: 0s}
`,
			`latgate.yaml:3: gate.max_baseline_age: must be > 0, got 0s; e.g. max_baseline_age: 30d`},
		{"gate max_baseline_age word",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: {max_baseline_age: x}
`,
			`latgate.yaml:3: gate.max_baseline_age: "x" is not a duration; write a number with a unit (ns, us, ms, s, m, h), e.g. max_baseline_age: 30d`},
		{"gate all bad on one line",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: {confidence: 2, resamples: 1, seed: x, aggregate: 1, max_baseline_age: 0s, day_to_day: 2, ok_confidence: 2, on_inconclusive: x}
`,
			`latgate.yaml:3: gate.confidence: 2 is ambiguous; write 2% for a percentage or a fraction below 1 (e.g. 0.05)
latgate.yaml:3: gate.ok_confidence: 2 is ambiguous; write 2% for a percentage or a fraction below 1 (e.g. 0.05)
latgate.yaml:3: gate.resamples: must be between 100 and 1000000, got 1; e.g. resamples: 2000
latgate.yaml:3: gate.seed: want an integer, got "x"; e.g. seed: 1
latgate.yaml:3: gate.aggregate: want true or false, got the number 1; e.g. aggregate: true
latgate.yaml:3: gate.day_to_day: 2 is ambiguous; write 2% for a percentage or a fraction below 1 (e.g. 0.05)
latgate.yaml:3: gate.on_inconclusive: "x" is not one of pass, warn, fail; e.g. on_inconclusive: warn
latgate.yaml:3: gate.max_baseline_age: must be > 0, got 0s; e.g. max_baseline_age: 30d`},
		{"gate all bad reversed",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: {on_inconclusive: x, ok_confidence: 2, day_to_day: 2, max_baseline_age: 0s, aggregate: 1, seed: x, resamples: 1, confidence: 2}
`,
			`latgate.yaml:3: gate.confidence: 2 is ambiguous; write 2% for a percentage or a fraction below 1 (e.g. 0.05)
latgate.yaml:3: gate.ok_confidence: 2 is ambiguous; write 2% for a percentage or a fraction below 1 (e.g. 0.05)
latgate.yaml:3: gate.resamples: must be between 100 and 1000000, got 1; e.g. resamples: 2000
latgate.yaml:3: gate.seed: want an integer, got "x"; e.g. seed: 1
latgate.yaml:3: gate.aggregate: want true or false, got the number 1; e.g. aggregate: true
latgate.yaml:3: gate.day_to_day: 2 is ambiguous; write 2% for a percentage or a fraction below 1 (e.g. 0.05)
latgate.yaml:3: gate.on_inconclusive: "x" is not one of pass, warn, fail; e.g. on_inconclusive: warn
latgate.yaml:3: gate.max_baseline_age: must be > 0, got 0s; e.g. max_baseline_age: 30d`},
		{"gate block",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate:
  confidence: 2
  resamples: 1
  seed: x
  aggregate: 1
  max_baseline_age: 0s
  day_to_day: 2
  ok_confidence: 2
  on_inconclusive: x
`,
			`latgate.yaml:4: gate.confidence: 2 is ambiguous; write 2% for a percentage or a fraction below 1 (e.g. 0.05)
latgate.yaml:5: gate.resamples: must be between 100 and 1000000, got 1; e.g. resamples: 2000
latgate.yaml:6: gate.seed: want an integer, got "x"; e.g. seed: 1
latgate.yaml:7: gate.aggregate: want true or false, got the number 1; e.g. aggregate: true
latgate.yaml:8: gate.max_baseline_age: must be > 0, got 0s; e.g. max_baseline_age: 30d
latgate.yaml:9: gate.day_to_day: 2 is ambiguous; write 2% for a percentage or a fraction below 1 (e.g. 0.05)
latgate.yaml:10: gate.ok_confidence: 2 is ambiguous; write 2% for a percentage or a fraction below 1 (e.g. 0.05)
latgate.yaml:11: gate.on_inconclusive: "x" is not one of pass, warn, fail; e.g. on_inconclusive: warn`},
		{"gate unknown key",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: {confidnce: 95%}
`,
			`latgate.yaml:3: gate.confidnce: unknown key "confidnce"; did you mean "confidence"?`},
		{"gate unknown key far",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: {zzzzzzzzz: 1}
`,
			`latgate.yaml:3: gate.zzzzzzzzz: unknown key "zzzzzzzzz"; valid keys here: confidence, resamples, seed, aggregate, checks, overrides, max_baseline_age, day_to_day, ok_confidence, on_inconclusive`},
		{"gate list",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: [1]
`,
			`latgate.yaml:3: gate: want a mapping (key: value lines), got a list`},
		{"gate checks and scalars on one line",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gate: {confidence: 2, checks: [{metric: ttft, stat: p50, tolerance: -1%}], ok_confidence: 2}
`,
			`latgate.yaml:3: gate.confidence: 2 is ambiguous; write 2% for a percentage or a fraction below 1 (e.g. 0.05)
latgate.yaml:3: gate.ok_confidence: 2 is ambiguous; write 2% for a percentage or a fraction below 1 (e.g. 0.05)
latgate.yaml:3: gate.checks[0].tolerance: must be >= 0%; e.g. tolerance: 20%`},
		{"target region list",
			`targets: [{name: a, base_url: sim, region: [x]}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].region: want a string, got a list; e.g. region: eu-west`},
		{"target region unprintable",
			`targets: [{name: a, base_url: sim, region: "a\tb"}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].region: holds a tab (\t) at byte 1; a config value is one line of printable text, as it is printed in terminals, reports and Markdown: remove it`},
		{"target max_tokens zero",
			`targets: [{name: a, base_url: sim, max_tokens: 0}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].max_tokens: must be between 1 and 1048576, got 0; e.g. max_tokens: 64 (the default)`},
		{"target max_tokens many",
			`targets: [{name: a, base_url: sim, max_tokens: 1000000000}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].max_tokens: must be between 1 and 1048576, got 1000000000; e.g. max_tokens: 64 (the default)`},
		{"target max_tokens word",
			`targets: [{name: a, base_url: sim, max_tokens: x}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].max_tokens: want an integer, got "x"; e.g. max_tokens: 64`},
		{"target temperature high",
			`targets: [{name: a, base_url: sim, temperature: 3}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].temperature: must be between 0 and 2, got 3; e.g. temperature: 0, or remove it for the server's default`},
		{"target temperature negative",
			`targets: [{name: a, base_url: sim, temperature: -1}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].temperature: must be between 0 and 2, got -1; e.g. temperature: 0, or remove it for the server's default`},
		{"target temperature word",
			`targets: [{name: a, base_url: sim, temperature: x}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].temperature: want a number, got "x"; e.g. temperature: 0`},
		{"target temperature nan",
			`targets: [{name: a, base_url: sim, temperature: .nan}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].temperature: want a finite number, got the number .nan; e.g. temperature: 0`},
		{"target include_usage number",
			`targets: [{name: a, base_url: sim, include_usage: 1}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].include_usage: want true or false, got the number 1; e.g. include_usage: true`},
		{"target include_usage anthropic",
			`targets: [{name: a, base_url: sim, api: anthropic, include_usage: true}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].include_usage: applies to api: chat only (stream_options.include_usage); the anthropic API always reports usage: remove it`},
		{"target include_usage bad anthropic",
			`targets: [{name: a, base_url: sim, api: anthropic, include_usage: 1}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].include_usage: want true or false, got the number 1; e.g. include_usage: true
latgate.yaml:1: targets[0].include_usage: applies to api: chat only (stream_options.include_usage); the anthropic API always reports usage: remove it`},
		{"target max_error_rate over",
			`targets: [{name: a, base_url: sim, max_error_rate: 101%}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].max_error_rate: must be between 0% and 100%; e.g. max_error_rate: 5%`},
		{"target max_error_rate negative",
			`targets: [{name: a, base_url: sim, max_error_rate: -1%}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].max_error_rate: must be between 0% and 100%; e.g. max_error_rate: 5%`},
		{"target max_error_rate ambiguous",
			`targets: [{name: a, base_url: sim, max_error_rate: 2}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].max_error_rate: 2 is ambiguous; write 2% for a percentage or a fraction below 1 (e.g. 0.05)`},
		{"target max_error_rate word",
			`targets: [{name: a, base_url: sim, max_error_rate: x}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].max_error_rate: "x" is not a percentage; write a percentage like 5% or a fraction like 0.05`},
		{"target all bad on one line",
			`targets: [{name: a, base_url: sim, region: [x], max_tokens: 0, temperature: 3, include_usage: 1, max_error_rate: 2}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].region: want a string, got a list; e.g. region: eu-west
latgate.yaml:1: targets[0].max_tokens: must be between 1 and 1048576, got 0; e.g. max_tokens: 64 (the default)
latgate.yaml:1: targets[0].temperature: must be between 0 and 2, got 3; e.g. temperature: 0, or remove it for the server's default
latgate.yaml:1: targets[0].include_usage: want true or false, got the number 1; e.g. include_usage: true
latgate.yaml:1: targets[0].max_error_rate: 2 is ambiguous; write 2% for a percentage or a fraction below 1 (e.g. 0.05)`},
		{"target all bad reversed",
			`targets: [{name: a, base_url: sim, max_error_rate: 2, include_usage: 1, temperature: 3, max_tokens: 0, region: [x]}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].region: want a string, got a list; e.g. region: eu-west
latgate.yaml:1: targets[0].max_tokens: must be between 1 and 1048576, got 0; e.g. max_tokens: 64 (the default)
latgate.yaml:1: targets[0].temperature: must be between 0 and 2, got 3; e.g. temperature: 0, or remove it for the server's default
latgate.yaml:1: targets[0].include_usage: want true or false, got the number 1; e.g. include_usage: true
latgate.yaml:1: targets[0].max_error_rate: 2 is ambiguous; write 2% for a percentage or a fraction below 1 (e.g. 0.05)`},
		{"target api first",
			`targets: [{name: "a b", region: [x], api: x, base_url: sim, max_error_rate: 2}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].api: "x" is not an API latgate speaks; use one of chat, responses, anthropic, gemini, sse, ndjson (chat is the default: OpenAI Chat Completions and every compatible server)
latgate.yaml:1: targets[0].name: "a b" has characters outside A-Z a-z 0-9 . _ -; use e.g. name: primary
latgate.yaml:1: targets[0].region: want a string, got a list; e.g. region: eu-west
latgate.yaml:1: targets[0].max_error_rate: 2 is ambiguous; write 2% for a percentage or a fraction below 1 (e.g. 0.05)`},
		{"target sse and max_error_rate",
			`targets: [{name: a, base_url: sim, api: anthropic, include_usage: true, sse: {}, max_error_rate: 2}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].include_usage: applies to api: chat only (stream_options.include_usage); the anthropic API always reports usage: remove it
latgate.yaml:1: targets[0].sse: applies to api: sse only; remove it or set api: sse
latgate.yaml:1: targets[0].max_error_rate: 2 is ambiguous; write 2% for a percentage or a fraction below 1 (e.g. 0.05)`},
		{"target unknown key",
			`targets: [{name: a, base_url: sim, max_token: 1}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].max_token: unknown key "max_token"; did you mean "max_tokens"?`},
		{"target secret key",
			`targets: [{name: a, base_url: sim, api_key: sk-123}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].api_key: API keys never go in the config file; remove this key, put the key in an environment variable and name it with api_key_env (e.g. api_key_env: OPENAI_API_KEY)`},
		{"target unknown far",
			`targets: [{name: a, base_url: sim, zzzzzzzzzz: 1}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].zzzzzzzzzz: unknown key "zzzzzzzzzz"; valid keys here: name, region, api, base_url, model, api_key_env, max_tokens, temperature, headers, extra_body, include_usage, max_error_rate, sse, ndjson, slo, price, serve`},
		{"serve on the simulator",
			`targets: [{name: a, base_url: sim, serve: {command: [./app]}}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].serve: base_url sim is latgate's built-in simulator, which needs no server; serve: starts your own, so set base_url to where it listens (e.g. http://127.0.0.1:8081/v1)`},
		{"serve without command",
			`targets: [{name: a, base_url: "http://127.0.0.1:8081/v1", model: m, serve: {ready: "port:8081"}}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].serve: missing command; name the program and its arguments as a list, e.g. serve: {command: [./bin/app, --port, "8081"], ready: "port:8081"}`},
		{"serve command as one string with spaces",
			`targets: [{name: a, base_url: "http://127.0.0.1:8081/v1", model: m, serve: {command: ["app --port 8081"]}}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].serve.command[0]: "app --port 8081" holds spaces: the command runs without a shell, one list item per argument; write e.g. command: [./bin/app, --port, "8081"] (or [sh, -c, "..."] for a shell)`},
		{"serve ready neither port nor URL",
			`targets: [{name: a, base_url: "http://127.0.0.1:8081/v1", model: m, serve: {command: [./app], ready: "8081"}}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].serve.ready: "8081" is neither port:N nor an http(s) URL; write ready: port:8081 (ready when 127.0.0.1:8081 accepts a connection) or ready: http://127.0.0.1:8081/healthz (ready when it answers 2xx)`},
		{"serve port out of range",
			`targets: [{name: a, base_url: "http://127.0.0.1:8081/v1", model: m, serve: {command: [./app], ready: "port:70000"}}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].serve.ready: "port:70000" is not port:N with N from 1 to 65535; e.g. ready: port:8081`},
		{"serve env with a secret",
			`targets: [{name: a, base_url: "http://127.0.0.1:8081/v1", model: m, serve: {command: [./app], env: {OPENAI_API_KEY: sk-123, TOKENIZERS_PARALLELISM: "false"}}}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].serve.env.OPENAI_API_KEY: looks like a credential, and serve.env is committed with the config; remove it, export OPENAI_API_KEY in the job (a secret) and list it in serve.pass_env: [OPENAI_API_KEY]`},
		{"serve pass_env with a value",
			`targets: [{name: a, base_url: "http://127.0.0.1:8081/v1", model: m, serve: {command: [./app], pass_env: [sk-proj-abcdef123456]}}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].serve.pass_env[0]: "sk-p…" is not an environment variable name (letters, digits, _); name the variable, never its value, e.g. pass_env: [OPENAI_API_KEY]`},
		{"serve env number unquoted",
			`targets: [{name: a, base_url: "http://127.0.0.1:8081/v1", model: m, serve: {command: [./app], env: {PORT: [1]}}}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].serve.env.PORT: want a string value, got a list; quote numbers, e.g. PORT: "8081"`},
		{"serve ready timeout without unit",
			`targets: [{name: a, base_url: "http://127.0.0.1:8081/v1", model: m, serve: {command: [./app], ready_timeout: 30}}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].serve.ready_timeout: 30 has no unit; add a unit, e.g. 30s`},
		{"target missing name and model",
			`targets: [{base_url: http://x/v1, max_tokens: 0}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0]: missing required field name; add e.g. name: primary
latgate.yaml:1: targets[0]: missing required field model; add e.g. model: gpt-4o-mini
latgate.yaml:1: targets[0].max_tokens: must be between 1 and 1048576, got 0; e.g. max_tokens: 64 (the default)`},
		{"target block",
			`targets:
  - name: a
    base_url: sim
    region: [x]
    max_tokens: 0
    temperature: 3
    include_usage: 1
    max_error_rate: 2
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:4: targets[0].region: want a string, got a list; e.g. region: eu-west
latgate.yaml:5: targets[0].max_tokens: must be between 1 and 1048576, got 0; e.g. max_tokens: 64 (the default)
latgate.yaml:6: targets[0].temperature: must be between 0 and 2, got 3; e.g. temperature: 0, or remove it for the server's default
latgate.yaml:7: targets[0].include_usage: want true or false, got the number 1; e.g. include_usage: true
latgate.yaml:8: targets[0].max_error_rate: 2 is ambiguous; write 2% for a percentage or a fraction below 1 (e.g. 0.05)`},
		{"slo zero",
			`targets: [{name: a, base_url: sim, slo: {ttft: 0s}}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].slo.ttft: must be > 0, got 0s; e.g. slo: {ttft: 500ms, itl: 50ms}`},
		{"slo too long",
			`targets: [{name: a, base_url: sim, slo: {ttft: 25h}}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].slo.ttft: 25h0m0s is longer than a day; e.g. slo: {ttft: 500ms, itl: 50ms}`},
		{"slo no unit",
			`targets: [{name: a, base_url: sim, slo: {itl: 5}}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].slo.itl: 5 has no unit; add a unit, e.g. 5ms`},
		{"slo empty",
			`targets: [{name: a, base_url: sim, slo: {}}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].slo: sets no limit; add one or more of ttfb, ttft, ttfct, itl, tpot, total, max_stall, e.g. slo: {ttft: 500ms, itl: 50ms}`},
		{"slo unknown key",
			`targets: [{name: a, base_url: sim, slo: {tfft: 1ms}}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].slo.tfft: unknown key "tfft"; did you mean "ttft"?
latgate.yaml:1: targets[0].slo: sets no limit; add one or more of ttfb, ttft, ttfct, itl, tpot, total, max_stall, e.g. slo: {ttft: 500ms, itl: 50ms}`},
		{"slo not a mapping",
			`targets: [{name: a, base_url: sim, slo: 5}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].slo: want a mapping (key: value lines), got the number 5`},
		{"slo all bad",
			`targets: [{name: a, base_url: sim, slo: {ttfb: 0s, ttft: 25h, ttfct: x, itl: 5, tpot: -1ms, total: [1], max_stall: 0s}}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].slo.ttfb: must be > 0, got 0s; e.g. slo: {ttft: 500ms, itl: 50ms}
latgate.yaml:1: targets[0].slo.ttft: 25h0m0s is longer than a day; e.g. slo: {ttft: 500ms, itl: 50ms}
latgate.yaml:1: targets[0].slo.ttfct: "x" is not a duration; write a number with a unit (ns, us, ms, s, m, h), e.g. ttfct: 500ms
latgate.yaml:1: targets[0].slo.itl: 5 has no unit; add a unit, e.g. 5ms
latgate.yaml:1: targets[0].slo.tpot: must be > 0, got -1ms; e.g. slo: {ttft: 500ms, itl: 50ms}
latgate.yaml:1: targets[0].slo.total: want a duration, got a list; e.g. total: 500ms
latgate.yaml:1: targets[0].slo.max_stall: must be > 0, got 0s; e.g. slo: {ttft: 500ms, itl: 50ms}`},
		{"slo all bad reversed",
			`targets: [{name: a, base_url: sim, slo: {max_stall: 0s, total: [1], tpot: -1ms, itl: 5, ttfct: x, ttft: 25h, ttfb: 0s}}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].slo.ttfb: must be > 0, got 0s; e.g. slo: {ttft: 500ms, itl: 50ms}
latgate.yaml:1: targets[0].slo.ttft: 25h0m0s is longer than a day; e.g. slo: {ttft: 500ms, itl: 50ms}
latgate.yaml:1: targets[0].slo.ttfct: "x" is not a duration; write a number with a unit (ns, us, ms, s, m, h), e.g. ttfct: 500ms
latgate.yaml:1: targets[0].slo.itl: 5 has no unit; add a unit, e.g. 5ms
latgate.yaml:1: targets[0].slo.tpot: must be > 0, got -1ms; e.g. slo: {ttft: 500ms, itl: 50ms}
latgate.yaml:1: targets[0].slo.total: want a duration, got a list; e.g. total: 500ms
latgate.yaml:1: targets[0].slo.max_stall: must be > 0, got 0s; e.g. slo: {ttft: 500ms, itl: 50ms}`},
		{"slo null values",
			`targets: [{name: a, base_url: sim, slo: {ttft: null}}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			""},
		{"prompt slo",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, slo: {ttft: 0s, itl: 25h}, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:2: prompts[0].slo.ttft: must be > 0, got 0s; e.g. slo: {ttft: 500ms, itl: 50ms}
latgate.yaml:2: prompts[0].slo.itl: 25h0m0s is longer than a day; e.g. slo: {ttft: 500ms, itl: 50ms}`},
		{"price negative",
			`targets: [{name: a, base_url: sim, price: {input: -1, output: 2}}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].price.input: must be ≥ 0 (US dollars per million tokens), got -1; e.g. price: {input: 2.50, cached: 1.25, output: 10.00}`},
		{"price implausible",
			`targets: [{name: a, base_url: sim, price: {input: 200000, output: 1}}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].price.input: 200000 dollars per million tokens is implausible: the price is per million tokens, in dollars; e.g. price: {input: 2.50, cached: 1.25, output: 10.00}`},
		{"price word",
			`targets: [{name: a, base_url: sim, price: {input: x, output: 1}}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].price.input: want a number, got "x"; e.g. input: 2.50`},
		{"price missing input",
			`targets: [{name: a, base_url: sim, price: {output: 1}}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].price: missing input; a price sets input and output (cached and cache_write are optional, input's price when absent), in US dollars per million tokens, e.g. price: {input: 2.50, cached: 1.25, output: 10.00}`},
		{"price missing output",
			`targets: [{name: a, base_url: sim, price: {input: 1}}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].price: missing output; a price sets input and output (cached and cache_write are optional, input's price when absent), in US dollars per million tokens, e.g. price: {input: 2.50, cached: 1.25, output: 10.00}`},
		{"price empty",
			`targets: [{name: a, base_url: sim, price: {}}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].price: missing input and output; a price sets input and output (cached and cache_write are optional, input's price when absent), in US dollars per million tokens, e.g. price: {input: 2.50, cached: 1.25, output: 10.00}`},
		{"price all bad",
			`targets: [{name: a, base_url: sim, price: {input: -1, cached: 1e6, cache_write: x, output: .inf}}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].price.input: must be ≥ 0 (US dollars per million tokens), got -1; e.g. price: {input: 2.50, cached: 1.25, output: 10.00}
latgate.yaml:1: targets[0].price.output: want a finite number, got the number .inf; e.g. output: 2.50
latgate.yaml:1: targets[0].price.cached: 1000000 dollars per million tokens is implausible: the price is per million tokens, in dollars; e.g. price: {input: 2.50, cached: 1.25, output: 10.00}
latgate.yaml:1: targets[0].price.cache_write: want a number, got "x"; e.g. cache_write: 2.50`},
		{"price all bad reversed",
			`targets: [{name: a, base_url: sim, price: {output: .inf, cache_write: x, cached: 1e6, input: -1}}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].price.input: must be ≥ 0 (US dollars per million tokens), got -1; e.g. price: {input: 2.50, cached: 1.25, output: 10.00}
latgate.yaml:1: targets[0].price.output: want a finite number, got the number .inf; e.g. output: 2.50
latgate.yaml:1: targets[0].price.cached: 1000000 dollars per million tokens is implausible: the price is per million tokens, in dollars; e.g. price: {input: 2.50, cached: 1.25, output: 10.00}
latgate.yaml:1: targets[0].price.cache_write: want a number, got "x"; e.g. cache_write: 2.50`},
		{"price missing with bad",
			`targets: [{name: a, base_url: sim, price: {cached: -1}}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].price.cached: must be ≥ 0 (US dollars per million tokens), got -1; e.g. price: {input: 2.50, cached: 1.25, output: 10.00}
latgate.yaml:1: targets[0].price: missing input and output; a price sets input and output (cached and cache_write are optional, input's price when absent), in US dollars per million tokens, e.g. price: {input: 2.50, cached: 1.25, output: 10.00}`},
		{"price unknown",
			`targets: [{name: a, base_url: sim, price: {input: 1, output: 2, cache_read: 3}}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].price.cache_read: unknown key "cache_read"; valid keys here: input, cached, cache_write, output`},
		{"price list",
			`targets: [{name: a, base_url: sim, price: [1]}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:1: targets[0].price: want a mapping (key: value lines), got a list`},
		{"prompt cache",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, cache: hot, messages: [{role: user, content: hi}]}]
`,
			`latgate.yaml:2: prompts[0].cache: "hot" is not warm or cold; warm primes the provider's prompt cache and expects hits, cold makes every request miss it (a nonce opens the prompt); leave cache out to measure the cache as it comes`},
		{"top unknown",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
gat: {}
`,
			`latgate.yaml:3: gat: unknown key "gat"; did you mean "gate"?`},
		{"baseline empty",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
baseline: ""
`,
			`latgate.yaml:3: baseline: empty path; remove the key to use latgate.baseline.json beside the config`},
		{"history empty",
			`targets: [{name: a, base_url: sim}]
prompts: [{id: p, messages: [{role: user, content: hi}]}]
history: ""
`,
			`latgate.yaml:3: history: empty path; remove the key to keep no history, or e.g. history: latgate.history.jsonl`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if _, err := Parse([]byte(tt.src), "latgate.yaml", Options{Getenv: noEnv, CheckSimSpec: checkSim}); err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}
