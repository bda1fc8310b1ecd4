package report

import (
	"io"
	"strings"
	"testing"

	"github.com/latgate/latgate/internal/cost"
	"github.com/latgate/latgate/internal/sanitize"
	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/results"
)

func TestMoney(t *testing.T) {
	for _, tt := range []struct {
		v    float64
		want string
	}{{0, "$0"}, {0.00031, "$0.00031"}, {0.0042, "$0.0042"}, {0.05, "$0.050"}, {0.5, "$0.50"}, {1.234, "$1.23"}, {250.4, "$250"}} {
		if got := money(tt.v); got != tt.want {
			t.Errorf("money(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestCostLine(t *testing.T) {
	known := cost.Target{Name: "primary", All: cost.Amount{USD: 0.0042, Requests: 84}, Rounds: cost.Amount{USD: 0.0011, Requests: 22}, Recorded: true}
	sent := cost.Sent{Usage: results.Usage{Requests: 84, PromptTokens: 3360, OutputTokens: 1344}, Recorded: true}
	someUnknown := cost.Sent{Usage: results.Usage{Requests: 84, Unknown: 4, PromptTokens: 3200, CachedTokens: 800, OutputTokens: 1280}, Recorded: true}
	for _, tt := range []struct {
		name, what string
		bill       cost.Bill
		want       string
	}{
		{"no usage recorded, no price", "", cost.Bill{Unpriced: []string{"primary"}}, ""},
		{"no price", "", cost.Bill{Unpriced: []string{"primary"}, Sent: sent},
			"sent: 84 requests (priming and warmup included); tokens: 3360 prompt, 1344 output; no price set (a target's price: gives the cost)"},
		{"bless, no price, some unknown", "bless cost", cost.Bill{Unpriced: []string{"primary"}, Sent: someUnknown},
			"bless sent: 84 requests (priming and warmup included); tokens: 3200 prompt (800 of them cached), 1280 output, as 80 of 84 requests reported; " +
				"no price set (a target's price: gives the cost)"},
		{"no price, none reported", "", cost.Bill{Unpriced: []string{"primary"}, Sent: cost.Sent{Usage: results.Usage{Requests: 84, Unknown: 84}, Recorded: true}},
			"sent: 84 requests (priming and warmup included); tokens unknown: none of the 84 requests reported usage; no price set (a target's price: gives the cost)"},
		{"priced, with tokens", "", cost.Bill{Targets: []cost.Target{known}, Sent: sent},
			"cost: $0.0042 for 84 requests (priming and warmup included); the gate's extra rounds added $0.0011 of it (22 requests); tokens: 3360 prompt, 1344 output"},
		{"one target with rounds", "", cost.Bill{Targets: []cost.Target{known}},
			"cost: $0.0042 for 84 requests (priming and warmup included); the gate's extra rounds added $0.0011 of it (22 requests)"},
		{"bless, no rounds", "bless cost", cost.Bill{Targets: []cost.Target{{Name: "primary", All: cost.Amount{USD: 0.0084, Requests: 161}, Recorded: true}}},
			"bless cost: $0.0084 for 161 requests (priming and warmup included)"},
		{"no usage reported", "", cost.Bill{Targets: []cost.Target{{Name: "primary", All: cost.Amount{Requests: 84, Unknown: 84}, Rounds: cost.Amount{Requests: 22, Unknown: 22}, Recorded: true}}},
			"cost: unknown (none of its 84 requests reported usage); the gate's extra rounds sent 22 requests of them, of unknown cost (no usage reported)"},
		{"some unknown", "", cost.Bill{Targets: []cost.Target{{Name: "primary", All: cost.Amount{USD: 0.004, Requests: 84, Unknown: 3}, Recorded: true}}},
			"cost: $0.0040 for the 81 of 84 requests that reported usage (3 unknown)"},
		{"not recorded", "", cost.Bill{Targets: []cost.Target{{Name: "primary"}}},
			"cost: unknown (its results record no usage: measured before latgate recorded it)"},
		{"several targets", "", cost.Bill{Targets: []cost.Target{known, {Name: "fallback@eu", All: cost.Amount{Requests: 84, Unknown: 84}, Recorded: true}}, Unpriced: []string{"canary"}},
			"cost: at least $0.0042 in all; primary: $0.0042 for 84 requests; fallback@eu: unknown (none of its 84 requests reported usage); " +
				"the gate's extra rounds added $0.0011 of it (22 requests); no price for canary"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := CostLine(tt.what, tt.bill); got != tt.want {
				t.Errorf("CostLine =\n  %q\nwant\n  %q", got, tt.want)
			}
		})
	}
}

// TestCostInReports: the bill is in the text and Markdown reports and in
// the JUnit suite of its target, as figures; without a price, nowhere.
func TestCostInReports(t *testing.T) {
	bill := cost.Bill{Targets: []cost.Target{{Name: "primary", All: cost.Amount{USD: 0.0042, Requests: 84, Unknown: 2},
		Rounds: cost.Amount{USD: 0.0011, Requests: 22}, Recorded: true}}}
	rep := passReport()
	render := func(f func(io.Writer, compare.Report, Options) error, o Options) string {
		t.Helper()
		var b strings.Builder
		if err := f(&b, rep, o); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	const line = "cost: $0.0042 for the 82 of 84 requests that reported usage (2 unknown); the gate's extra rounds added $0.0011 of it (22 requests)"
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	for name, f := range map[string]func(io.Writer, compare.Report, Options) error{"text": Verdicts, "Markdown": Markdown, "summary": GitHubSummary} {
		want := line
		if name != "text" { // Markdown: a $ would open GitHub's math
			want = strings.ReplaceAll(line, "$", `\$`)
		}
		if got := render(f, Options{Cost: bill}); !strings.Contains(flat(got), want) {
			t.Errorf("%s lacks %q:\n%s", name, want, got)
		}
		if got := render(f, Options{}); strings.Contains(got, "cost:") {
			t.Errorf("%s without a price says a cost:\n%s", name, got)
		}
	}
	junit := render(JUnit, Options{Cost: bill})
	for _, p := range []string{`name="latgate.cost_usd" value="0.0042"`, `name="latgate.cost_requests" value="84"`,
		`name="latgate.cost_unknown_requests" value="2"`, `name="latgate.rounds_cost_usd" value="0.0011"`} {
		if !strings.Contains(junit, p) {
			t.Errorf("JUnit lacks %s", p)
		}
	}
	if strings.Contains(render(JUnit, Options{}), "latgate.cost") {
		t.Error("JUnit without a price has cost properties")
	}
}

// TestMarkdownMath: hostile text cannot open GitHub's math ($…$), which
// renders LaTeX (colours, sizes) from a model's name.
func TestMarkdownMath(t *testing.T) {
	if got, want := sanitize.Markdown(`gpt $\color{red}{\Huge x}$`), `gpt \$\\color{red}{\\Huge x}\$`; got != want {
		t.Errorf("mdEscape = %q, want %q", got, want)
	}
}
