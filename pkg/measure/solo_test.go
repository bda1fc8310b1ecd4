package measure

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/latgate/latgate/pkg/config"
	"github.com/latgate/latgate/pkg/sim"
)

// TestSoloRound: at concurrency 3 the last warmup round is sent one request
// at a time: by the simulator's own record, no other request was being
// served while a solo request was, and each prompt's results keep its solo
// request's TTFT. At concurrency 1 nothing is recorded (every request is
// solo, and nothing needs it).
func TestSoloRound(t *testing.T) {
	p, err := sim.ParseSpec("fast?ttft=10ms&itl=1ms&tokens=4")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sim.Start(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ep := Endpoint{Target: config.Target{Name: "sim", Model: "sim", MaxTokens: 8, APIKeyEnv: "K"}, URL: srv.URL()}
	prompts := []config.Prompt{
		{ID: "a", Messages: []config.Message{{Role: "user", Content: "a"}}},
		{ID: "b", Messages: []config.Message{{Role: "user", Content: "b"}}},
		{ID: "c", Messages: []config.Message{{Role: "user", Content: "c"}}},
	}
	for _, conc := range []int{3, 1} {
		srv.Server().Record(true)
		var mu sync.Mutex
		var warm []Progress
		f, err := Run(context.Background(), Options{
			Endpoints: []Endpoint{ep}, Prompts: prompts,
			Run: config.Run{Requests: 3, Warmup: 2, Concurrency: conc, Timeout: 10 * time.Second},
			Observer: ObserverFunc(func(p Progress) {
				if p.Warmup {
					mu.Lock()
					warm = append(warm, p)
					mu.Unlock()
				}
			}),
		})
		if err != nil {
			t.Fatal(err)
		}
		recs := srv.Server().Records()
		if conc == 1 {
			for _, p := range f.Targets[0].Prompts {
				if p.Solo != nil {
					t.Errorf("concurrency 1: prompt %s has a solo probe %+v", p.ID, p.Solo)
				}
			}
			continue
		}
		if len(warm) != 6 {
			t.Fatalf("%d warmup requests, want 6", len(warm))
		}
		for _, w := range warm[3:] { // the solo round: the last three
			seq, ok := sim.SeqFromID(w.ResponseID)
			if !ok {
				t.Fatalf("solo request without a simulator id: %q", w.ResponseID)
			}
			var solo sim.Record
			for _, r := range recs {
				if r.Seq == seq {
					solo = r
				}
			}
			end := solo.Tokens[len(solo.Tokens)-1]
			for _, r := range recs {
				if r.Seq != seq && len(r.Tokens) > 0 && r.Start.Before(end) && solo.Start.Before(r.Tokens[len(r.Tokens)-1]) {
					t.Errorf("request %d was served while solo request %d (prompt %s) was", r.Seq, seq, w.Prompt)
				}
			}
			for _, p := range f.Targets[0].Prompts {
				if p.ID == w.Prompt && (p.Solo == nil || p.Solo.TTFT != round3(w.TTFTMS)) {
					t.Errorf("prompt %s: solo probe %+v, want the TTFT of its solo request, %.3f ms", p.ID, p.Solo, w.TTFTMS)
				}
			}
		}
	}
}
