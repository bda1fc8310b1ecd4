package selftest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/latgate/latgate/pkg/compare"
	"github.com/latgate/latgate/pkg/config"
)

func TestVerdict(t *testing.T) {
	const most = 100000
	tests := []struct {
		name     string
		c        ResolvedCheck
		requests int
		want     string
	}{
		{"resolves the floor", ResolvedCheck{Stat: "p50", FloorMS: 20, MinChangeMS: 0.1, NeedRequests: 5, MostRequests: most}, 30, "ok"},
		{"too few requests for p95", ResolvedCheck{Stat: "p95", FloorMS: 20, MinChangeMS: 0.1, NeedRequests: 59, MostRequests: most}, 30,
			"always inconclusive: p95 needs ≥ 59 requests per prompt at 95% confidence (run.requests is 30)"},
		{"p95 beyond what the config takes", ResolvedCheck{Stat: "p95", FloorMS: 20, MinChangeMS: 0.1, NeedRequests: 59, MostRequests: 49}, 30,
			"cannot be resolved: p95 needs ≥ 59 requests per prompt at 95% confidence, more than this config can take (at most 49); gate another statistic"},
		{"noise over the floor: 4× the requests halve it", ResolvedCheck{Stat: "p50", FloorMS: 1, MinChangeMS: 2, NeedRequests: 5, MostRequests: most}, 30,
			"floor under latgate's noise here: raise the floor above 2.000ms or run.requests to ≥ 120"},
		{"more requests than the config takes", ResolvedCheck{Stat: "p50", FloorMS: 1, MinChangeMS: 200, NeedRequests: 5, MostRequests: most}, 30,
			"floor under latgate's noise here: raise the floor above 200.0ms (more requests cannot do it: it would take ≥ 1200000 per prompt, over the 100000 this config accepts)"},
		{"no noise model", ResolvedCheck{Stat: "p50", FloorMS: 1, MinChangeMS: math.NaN(), MostRequests: most}, 30, "not assessed: no noise model for this metric or statistic"},
	}
	for _, tt := range tests {
		if got := verdict(tt.c, tt.requests, 0.95); got != tt.want {
			t.Errorf("%s: verdict = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestFmtSpread(t *testing.T) {
	tests := []struct {
		s    Spread
		want string
	}{
		{Spread{Median: -0.0001, Min: -0.001, Max: 0.001}, "+0.000 ±0.001"},
		{Spread{Median: 0.0144, Min: 0.002, Max: 0.026}, "+0.014 ±0.012"},
		{Spread{Median: -0.019, Min: -0.03, Max: -0.002}, "-0.019 ±0.014"},
	}
	for _, tt := range tests {
		if got := fmtSpread(tt.s); got != tt.want {
			t.Errorf("fmtSpread(%+v) = %q, want %q", tt.s, got, tt.want)
		}
	}
}

// TestResolveStaysWithinBounds holds #23 item 6: selftest --config advised
// "raise run.requests to ≥ 37540860000000" (the config takes at most
// 100,000) for a check with its floor unset, and a floor of 0.8 µs, below
// latgate's documented 1 ms resolution. Every floor it assesses is at least
// the resolution, every "≥ N" it suggests is a value the config accepts,
// and a check no accepted value resolves says so.
func TestResolveStaysWithinBounds(t *testing.T) {
	// Noise well above the resolution: TTFT stamps off by up to 8 ms.
	rng := rand.New(rand.NewPCG(1, 2))
	var delays [][]float64
	for range 48 {
		d := []float64{8 * rng.Float64()}
		for k := 1; k < 20; k++ {
			d = append(d, d[k-1]+0.3*rng.Float64())
		}
		delays = append(delays, d)
	}
	levels := []Level{{Concurrency: 1, noise: AccuracyReport{Delays: delays}}}
	checks := `gate:
  checks:
    - {metric: ttft, stat: p50, tolerance: 20%}
    - {metric: ttft, stat: p95, tolerance: 20%, floor: 1us}
    - {metric: itl, stat: p95, tolerance: 20%, floor: 800ns}
    - {metric: ttft, stat: p99, tolerance: 20%, floor: 30ms}
`
	many := func(n int) string {
		var b strings.Builder
		b.WriteString("prompts:\n")
		for i := range n {
			fmt.Fprintf(&b, "  - {id: p%d, messages: [{role: user, content: hi}]}\n", i)
		}
		return b.String()
	}
	for _, tt := range []struct {
		name        string
		prompts     int
		wantCannot  bool
		wantMostMax int
	}{
		{"one prompt", 1, false, 100000},
		{"5000 prompts: at most 49 requests each", 5000, true, 49},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := "targets: [{name: a, base_url: sim}]\n" + many(tt.prompts) + "run: {requests: 30, warmup: 2}\n" + checks
			cfg, err := config.Parse([]byte(src), "latgate.yaml", config.Options{Getenv: func(string) string { return "" }})
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.MostRequests(); got != tt.wantMostMax {
				t.Errorf("MostRequests = %d, want %d", got, tt.wantMostMax)
			}
			res := resolve(cfg, levels)
			cannot := false
			for _, c := range res.Checks {
				if res := float64(compare.Resolution(c.Metric)) / 1e6; c.FloorMS < res {
					t.Errorf("%s %s: floor %g ms, below the resolution %g ms", c.Metric, c.Stat, c.FloorMS, res)
				}
				for _, m := range regexp.MustCompile(`(?:≥|above) ([0-9.]+)(ms|µs)?`).FindAllStringSubmatch(c.Verdict, -1) {
					v, _ := strconv.ParseFloat(m[1], 64)
					switch {
					case m[2] == "µs" || (m[2] == "ms" && v < float64(compare.Resolution(c.Metric))/1e6):
						t.Errorf("%s %s: suggests a floor below the resolution: %q", c.Metric, c.Stat, c.Verdict)
					case m[2] == "" && strings.Contains(c.Verdict, "run.requests to ≥") && v > float64(cfg.MostRequests()):
						t.Errorf("%s %s: suggests %v requests, over the %d the config accepts: %q", c.Metric, c.Stat, v, cfg.MostRequests(), c.Verdict)
					}
				}
				cannot = cannot || strings.HasPrefix(c.Verdict, "cannot be resolved")
				t.Logf("%s %s floor %gms: %s", c.Metric, c.Stat, c.FloorMS, c.Verdict)
			}
			if cannot != tt.wantCannot {
				t.Errorf("a verdict says it cannot be resolved: %t, want %t", cannot, tt.wantCannot)
			}
			// Each suggestion is accepted by the config.
			for _, c := range res.Checks {
				if m := regexp.MustCompile(`run\.requests to ≥ (\d+)`).FindStringSubmatch(c.Verdict); m != nil {
					src := strings.Replace(src, "requests: 30", "requests: "+m[1], 1)
					if _, err := config.Parse([]byte(src), "latgate.yaml", config.Options{Getenv: func(string) string { return "" }}); err != nil {
						t.Errorf("%s %s: the suggested run.requests %s is refused: %v", c.Metric, c.Stat, m[1], err)
					}
				}
			}
		})
	}
}
