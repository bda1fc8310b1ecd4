package measure

import (
	"strings"
	"testing"

	"github.com/latgate/latgate/pkg/results"
)

// TestGiveUp feeds request outcomes to a target's tracker and checks after
// which one it gives up, and why. Events, one rune each: '.' a measured
// success, 'T' a measured timeout, 'S' a measured HTTP 5xx, 'L' one HTTP 429
// answer (retried or final), 'W' a measured request stopped at its Limit
// (slow); lower case the same in warmup ('o' a success).
func TestGiveUp(t *testing.T) {
	r := strings.Repeat
	tests := []struct {
		name          string
		warmup, meas  int
		rate          float64
		prior         [2]int // requests and failures of earlier rounds
		events        string
		wantAt        int    // 1-based event that gives up; 0 for never
		wantReasonHas string // in the reason
	}{
		{"every warmup request failed", 4, 100, 0.05, [2]int{}, "ttss", 4, "every warmup request failed (4 of 4)"},
		{"one warmup success keeps going", 4, 100, 0.05, [2]int{}, "ssso" + r(".", 10), 0, ""},
		{"five in a row of one class", 0, 100, 0.5, [2]int{}, "TTTT.TTTTT", 10, "5 requests in a row failed with timeout"},
		{"another class restarts the count", 0, 100, 0.5, [2]int{}, "TTTTSSSSTTTT", 0, ""},
		{"budget out of reach", 0, 40, 0.05, [2]int{}, "S...S...S", 9, "error budget can no longer be met: 3 measured requests failed, max_error_rate allows 2 of the 40 planned"},
		{"warmup failures are not in the budget", 2, 40, 0.05, [2]int{}, "soS...S...", 0, ""},
		{"429 storm: answers count, retried or not", 0, 100, 0.5, [2]int{}, "LLLLL", 5, "5 answers in a row were HTTP 429"},
		{"a success ends a 429 run", 0, 100, 0.5, [2]int{}, "LLLL.LLLL", 0, ""},
		{"the last request stops nothing", 0, 4, 0.25, [2]int{}, "..SS", 0, ""},
		{"one before the last does", 0, 4, 0.25, [2]int{}, ".SS.", 3, "allows 1 of the 4 planned"},
		// check's later rounds: 120 requests with 4 failures before, 20 now;
		// 5% of 140 allows 7 in all, so 3 more, not 1 (5% of 20).
		{"earlier rounds share the budget", 0, 20, 0.05, [2]int{120, 4}, "S.S.S.", 0, ""},
		{"earlier rounds can leave none", 0, 20, 0.05, [2]int{120, 6}, ".S.S", 4, "max_error_rate allows 1 more (6 of 120 failed in earlier rounds, 20 planned in this one)"},
		{"a 100% budget is never out of reach", 0, 10, 1, [2]int{}, "S.S.S.S.S.", 0, ""},
		// A cold start may pass a Limit: slow warmups alone give nothing up,
		// but they count in a streak of slow requests.
		{"slow warmups are not a dead endpoint", 4, 100, 0.5, [2]int{}, "wwww", 0, ""},
		{"slow warmups, then slow requests", 4, 100, 0.5, [2]int{}, "wwwwW", 5, "5 requests in a row failed with slow"},
		{"a cold start, then fast", 4, 100, 0.5, [2]int{}, "wwww" + r(".", 10), 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGiveUp(tt.warmup, tt.meas, tt.rate)
			if tt.prior[0] > 0 {
				g.spent(tt.prior[0], tt.prior[1], tt.rate)
			}
			at := 0
			for i, e := range tt.events {
				warm := e >= 'a' && e <= 'z'
				var stop bool
				switch e {
				case '.', 'o':
					stop = g.finished(nil, warm)
				case 'L':
					stop = g.rateLimited(results.Failure{Class: results.ErrRateLimit, Status: 429, Message: "HTTP 429: slow down"})
				case 'T', 't':
					stop = g.finished(&results.Failure{Class: results.ErrTimeout, Message: "timed out before the response headers"}, warm)
				case 'W', 'w':
					stop = g.finished(&results.Failure{Class: results.ErrSlow, Message: "timed out mid-stream after 0 chunks: still unfinished at 6s"}, warm)
				case 'S', 's':
					stop = g.finished(&results.Failure{Class: results.ErrServer, Status: 500, Message: "HTTP 500: boom"}, warm)
				default:
					t.Fatalf("bad event %q", e)
				}
				if stop && at == 0 {
					at = i + 1
				}
			}
			if at != tt.wantAt {
				t.Fatalf("gave up at event %d, want %d (err: %v)", at, tt.wantAt, g.err("t"))
			}
			err := g.err("t")
			if tt.wantAt == 0 {
				if err != nil {
					t.Fatalf("err = %v, want nil", err)
				}
				return
			}
			ge, isGiveUp := err.(*GiveUpError)
			if !isGiveUp || !strings.Contains(ge.Reason, tt.wantReasonHas) {
				t.Fatalf("err = %v, want a *GiveUpError whose reason has %q", err, tt.wantReasonHas)
			}
			if !strings.Contains(err.Error(), "the endpoint said: ") {
				t.Errorf("error %q does not quote the endpoint", err)
			}
		})
	}
}
