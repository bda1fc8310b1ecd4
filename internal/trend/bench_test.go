package trend

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latgate/latgate/internal/history"
	"github.com/latgate/latgate/pkg/config"
)

// BenchmarkHistory1000 parses a 1000-run history of 10 prompts (the bytes of
// the file) and analyses its 40 series (10 prompts × the 4 default checks)
// at the default window, as `latgate trend` does each night. It prints the
// file size; the time per op is the figure.
func BenchmarkHistory1000(b *testing.B) {
	const runs, prompts = 1000, 10
	rng := rand.New(rand.NewPCG(1, 1))
	var file bytes.Buffer
	var spec Spec
	for p := range prompts {
		for _, c := range config.DefaultChecks() {
			spec.Series = append(spec.Series, SeriesSpec{Target: "sim", Prompt: fmt.Sprintf("prompt-%02d", p), Metric: c.Metric, Stat: mustStat(c.Stat),
				Tolerance: c.Tolerance.Rel, FloorMS: 1, Baseline: 100})
		}
	}
	for k := range runs {
		r := history.Record{Schema: history.Schema, At: night0.AddDate(0, 0, k), Commit: fmt.Sprintf("c%05d", k), Targets: []history.Target{{Name: "sim", Model: "sim"}}}
		for p := range prompts {
			m := map[string]history.Stats{}
			for _, name := range []string{"ttfb", "ttft", "ttfct", "itl", "tpot", "total", "max_stall"} {
				v := 100 * math.Exp(0.05*rng.NormFloat64())
				us := func(x float64) float64 { return math.Round(x*1000) / 1000 } // as FromResults keeps them
				m[name] = history.MakeStats(60, map[string]float64{"p50": us(v), "p90": us(1.4 * v), "p95": us(1.5 * v), "p99": us(1.8 * v), "mean": us(1.1 * v)})
			}
			r.Targets[0].Prompts = append(r.Targets[0].Prompts, history.Prompt{ID: fmt.Sprintf("prompt-%02d", p), Hash: "h", Metrics: m})
		}
		line, err := history.Encode(r)
		if err != nil {
			b.Fatal(err)
		}
		file.Write(line)
	}
	data := file.Bytes()
	b.ResetTimer()
	for b.Loop() {
		h := history.Parse(data)
		if len(h.Records) != runs {
			b.Fatalf("%d records", len(h.Records))
		}
		if rep := Analyze(h.Records, spec, Options{}); len(rep.Series) != 40 {
			b.Fatal("series")
		}
	}
	b.ReportMetric(float64(len(data))/1e6, "MB_history")
}
