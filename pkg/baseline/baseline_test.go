package baseline

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/latgate/latgate/internal/golden"
	"github.com/latgate/latgate/pkg/results"
)

// fixture is a small baseline: 2 targets × 2 prompts × 3 samples, with values
// carrying more decimals than a baseline keeps.
func fixture() *File {
	return &File{
		Schema:     Schema,
		Version:    "0.1.0",
		BlessedAt:  time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC),
		GitCommit:  "0123456789abcdef0123456789abcdef01234567",
		ConfigHash: "c0ffee00c0ffee00",
		Run:        results.Run{Requests: 3, Warmup: 1, Concurrency: 1, TimeoutMS: 60000, Order: "interleave", Seed: 1},
		Targets: []results.Target{
			fixtureTarget("primary", "", "sim", "sim-small", 400),
			fixtureTarget("fallback", "eu", "http://127.0.0.1:8080/v1", "llama3", 900),
		},
	}
}

func fixtureTarget(name, region, url, model string, base float64) results.Target {
	temp := 0.7
	return results.Target{
		Name: name, Region: region, BaseURL: url, Model: model,
		ReturnedModels:     []string{model + "-2024", model},
		SystemFingerprints: []string{"fp_b", "fp_a"},
		Params:             results.Params{MaxTokens: 64, Temperature: &temp, Stream: true},
		Prompts: []results.Prompt{
			fixturePrompt("greeting", "1a2b3c4d5e6f7a8b", base),
			fixturePrompt("summary", "9f8e7d6c5b4a3928", base+100),
		},
		Overall: results.Prompt{
			ID: "overall", Requests: 7, Errors: 1, ByClass: map[string]int{"timeout": 1},
			Metrics: fixtureMetrics(base + 50),
		},
		Requests: 7, Errors: 1, ErrorRate: 1.0 / 7, ByClass: map[string]int{"timeout": 1},
	}
}

func fixturePrompt(id, hash string, base float64) results.Prompt {
	p := results.Prompt{ID: id, Hash: hash, Requests: 3, Metrics: fixtureMetrics(base)}
	for seq := range 3 {
		v := base + float64(seq)*10.1234567
		p.Samples = append(p.Samples, results.Sample{
			Seq: seq * 2, AtMS: float64(seq) * 500.0004, TTFB: v - 20.00049, TTFT: v,
			TTFCT: v + 0.5, HasContent: true, Total: v + 300.12345, TPOT: 4.76190476,
			MaxStall: 9.87654321, ITL: []float64{4.10004, 3.99213, 5.5 + float64(seq)},
			OutputTokens: 64, TokenSource: "usage", Chunks: 65, PromptTokens: 12,
			TokensPerS: 210.123456, FinishReason: "length", Reused: seq > 0,
		})
	}
	if id == "summary" {
		p.Requests, p.Errors = 4, 1
		p.ByClass = map[string]int{"timeout": 1}
		p.Failures = []results.Failure{{Seq: 7, AtMS: 1500, Class: results.ErrTimeout, Message: "deadline exceeded"}}
	}
	return p
}

func fixtureMetrics(base float64) results.Metrics {
	s := func(d float64) *results.Summary {
		return &results.Summary{N: 3, P50: d + 10.1234567, P95: d + 19.1111111, P99: d + 20.0004999,
			Mean: d + 10.3333333, Min: d, Max: d + 20.2469134}
	}
	return results.Metrics{
		TTFB: s(base - 20), TTFT: s(base), TTFCT: s(base + 0.5), ITL: s(4), TPOT: s(4.7),
		Total: s(base + 300), MaxStall: s(9.8),
		TokensPerS: &results.RateSummary{N: 3, P50: 210.123456, P95: 215.987654, P99: 216.5, Mean: 211.0, Min: 205.555, Max: 216.6},
	}
}

func TestEncodeGolden(t *testing.T) {
	got, err := Encode(fixture())
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "encode.golden.json"), got)
}

func TestEncodeDeterministic(t *testing.T) {
	want, err := Encode(fixture())
	if err != nil {
		t.Fatal(err)
	}

	t.Run("decode then encode", func(t *testing.T) {
		f, err := Decode(want, "mem")
		if err != nil {
			t.Fatal(err)
		}
		got, err := Encode(f)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("re-encoding changed the bytes (-want +got):\n%s", diff)
		}
	})

	t.Run("shuffled input", func(t *testing.T) {
		f := fixture()
		for i := range f.Targets {
			tg := &f.Targets[i]
			slices.Reverse(tg.ReturnedModels)
			slices.Reverse(tg.SystemFingerprints)
			tg.ReturnedModels = append(tg.ReturnedModels, tg.ReturnedModels[0]) // a duplicate
			// The same counts, inserted in another order.
			tg.ByClass = map[string]int{"server": 2, "auth": 3, "timeout": 1}
			for j := range tg.Prompts {
				slices.Reverse(tg.Prompts[j].Samples)
			}
		}
		g := fixture()
		for i := range g.Targets {
			g.Targets[i].ByClass = map[string]int{"auth": 3, "timeout": 1, "server": 2}
		}
		got, err := Encode(f)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Encode(g)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("order of the input changed the bytes (-want +got):\n%s", diff)
		}
	})

	t.Run("input not modified", func(t *testing.T) {
		f := fixture()
		if _, err := Encode(f); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(fixture(), f); diff != "" {
			t.Errorf("Encode modified its input (-want +got):\n%s", diff)
		}
	})
}

// TestEncodeLayout checks the layout rules independently of the golden file.
func TestEncodeLayout(t *testing.T) {
	f := fixture()
	got, err := Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(got, []byte("}\n")) || bytes.HasSuffix(got, []byte("\n\n")) {
		t.Errorf("output does not end in exactly one newline")
	}

	// Each sample is one line holding one complete JSON object.
	var lines int
	for _, line := range strings.Split(string(got), "\n") {
		trimmed := strings.TrimSpace(line)
		if !strings.HasPrefix(trimmed, `{"seq":`) {
			continue
		}
		lines++
		if obj := strings.TrimSuffix(trimmed, ","); !json.Valid([]byte(obj)) {
			t.Errorf("sample line is not a JSON object: %s", line)
		}
		// root, targets, target, prompts, prompt, samples: six levels.
		if !strings.HasPrefix(line, strings.Repeat(" ", 12)+"{") {
			t.Errorf("sample line not indented by 12 spaces: %q", line)
		}
	}
	if want := 12; lines != want {
		t.Errorf("%d one-line samples, want %d", lines, want)
	}

	// Without samples, the layout is exactly json.MarshalIndent's with two spaces.
	for i := range f.Targets {
		for j := range f.Targets[i].Prompts {
			f.Targets[i].Prompts[j].Samples = nil
		}
	}
	got, err = Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	c, err := canonical(f)
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want)+"\n", string(got)); diff != "" {
		t.Errorf("layout differs from two-space MarshalIndent (-want +got):\n%s", diff)
	}
}

func TestEncodeRounding(t *testing.T) {
	tests := []struct {
		name string
		set  func(s *results.Sample)
		get  func(s results.Sample) float64
		want float64
	}{
		{"ms to 3 decimals, down", func(s *results.Sample) { s.TTFT = 412.1184999 }, func(s results.Sample) float64 { return s.TTFT }, 412.118},
		{"ms to 3 decimals, up", func(s *results.Sample) { s.TTFT = 412.1186 }, func(s results.Sample) float64 { return s.TTFT }, 412.119},
		{"itl element", func(s *results.Sample) { s.ITL = []float64{0.0123456} }, func(s results.Sample) float64 { return s.ITL[0] }, 0.012},
		{"tiny value becomes 0", func(s *results.Sample) { s.MaxStall = 1e-7 }, func(s results.Sample) float64 { return s.MaxStall }, 0},
		{"negative tiny value becomes 0, not -0", func(s *results.Sample) { s.AtMS = -0.0001 }, func(s results.Sample) float64 { return s.AtMS }, 0},
		{"tokens per second to 2 decimals", func(s *results.Sample) { s.TokensPerS = 52.345678 }, func(s results.Sample) float64 { return s.TokensPerS }, 52.35},
		{"huge value kept, no exponent", func(s *results.Sample) { s.Total = 1e22 }, func(s results.Sample) float64 { return s.Total }, 1e22},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fixture()
			tt.set(&f.Targets[0].Prompts[0].Samples[0])
			data, err := Encode(f)
			if err != nil {
				t.Fatal(err)
			}
			assertNoExponent(t, data)
			if bytes.Contains(data, []byte(":-0,")) || bytes.Contains(data, []byte(":-0}")) {
				t.Errorf("output holds a negative zero")
			}
			var back File // the encoding, not the values: Decode would refuse some of these
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatal(err)
			}
			if got := tt.get(back.Targets[0].Prompts[0].Samples[0]); got != tt.want {
				t.Errorf("decoded %v, want %v", got, tt.want)
			}
		})
	}

	t.Run("summaries and ratios", func(t *testing.T) {
		data, err := Encode(fixture())
		if err != nil {
			t.Fatal(err)
		}
		back, err := Decode(data, "mem")
		if err != nil {
			t.Fatal(err)
		}
		tg := back.Targets[0]
		got := []float64{tg.Prompts[0].Metrics.TTFT.P50, tg.Prompts[0].Metrics.TTFT.P99,
			tg.Prompts[0].Metrics.TokensPerS.P95, tg.ErrorRate}
		want := []float64{410.123, 420, 215.99, 0.142857}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("rounded values (-want +got):\n%s", diff)
		}
	})
}

// assertNoExponent fails if any JSON number in data uses exponent notation.
func assertNoExponent(t *testing.T, data []byte) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if n, ok := tok.(json.Number); ok && strings.ContainsAny(string(n), "eE") {
			t.Errorf("number %s uses exponent notation", n)
		}
	}
}

func TestEncodeNonFinite(t *testing.T) {
	f := fixture()
	f.Targets[1].Prompts[1].Samples[2].ITL[1] = math.Inf(1)
	_, err := Encode(f)
	if err == nil {
		t.Fatal("Encode accepted +Inf")
	}
	for _, frag := range []string{"target fallback", "prompt summary", "sample 4", "itl_ms is +Inf"} {
		if !strings.Contains(err.Error(), frag) {
			t.Errorf("error %q does not contain %q", err, frag)
		}
	}
}

func TestFromResults(t *testing.T) {
	b := fixture()
	r := &results.File{
		Schema: results.Schema, Version: b.Version, ConfigHash: b.ConfigHash,
		StartedAt: time.Date(2025, 3, 4, 5, 0, 0, 0, time.UTC), Run: b.Run,
		Targets: b.Targets,
	}
	blessed := time.Date(2025, 3, 4, 6, 6, 7, 999_999_999, time.FixedZone("CET", 3600))
	got := FromResults(r, blessed, "abc123")

	if got.BlessedAt.Location() != time.UTC || !got.BlessedAt.Equal(b.BlessedAt) {
		t.Errorf("BlessedAt = %v, want %v (UTC, whole seconds)", got.BlessedAt, b.BlessedAt)
	}
	want := fixture()
	want.BlessedAt = got.BlessedAt
	want.GitCommit = "abc123"
	for i := range want.Targets {
		for j := range want.Targets[i].Prompts {
			want.Targets[i].Prompts[j].Failures = nil
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("FromResults (-want +got):\n%s", diff)
	}
	if got.Targets[0].Prompts[1].Errors != 1 {
		t.Errorf("error count dropped with the failures")
	}

	// The baseline shares no memory with the results.
	r.Targets[0].Prompts[0].Samples[0].ITL[0] = 999
	r.Targets[0].ByClass["timeout"] = 999
	*r.Targets[0].Prompts[0].Metrics.TTFT = results.Summary{}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changing the results changed the baseline (-want +got):\n%s", diff)
	}
}
