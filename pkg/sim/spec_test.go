package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseSpec(t *testing.T) {
	preset := func(name string) Profile {
		t.Helper()
		p, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	with := func(p Profile, f func(*Profile)) Profile { f(&p); return p }
	ms := time.Millisecond
	tests := []struct {
		spec string
		want Profile
	}{
		{"", preset("default")},
		{"default", preset("default")},
		{"default?", preset("default")},
		{"fixed", preset("fixed")},
		{"default?ttft=80ms&slowdown=1.6", with(preset("default"), func(p *Profile) {
			p.TTFT.Median, p.Slowdown = 80*ms, 1.6
		})},
		{"fast?fault=429&fault_every=5", with(preset("fast"), func(p *Profile) {
			p.Fault, p.FaultEvery = Fault429, 5
		})},
		{"ollama?require_key=sk%2Dx%26y", with(preset("ollama"), func(p *Profile) { p.RequireKey = "sk-x&y" })},
		{"default?fault=", preset("default")},
		// Every key once.
		{"reasoning?ttft=1s&ttft_sigma=0.5&itl=3ms&itl_sigma=0&tokens=9&role_chunk=false" +
			"&header_delay=5ms&buffer=true&keepalive=15s&reasoning=2&reasoning_field=reasoning_content" +
			"&style=ollama&usage=0&cached_tokens=7&cache=on&prefill=100us&chain_step=3&chain_step_delay=40ms&swap=250ms&slowdown=2&cold=20&cold_x=2.5&ttft_factor=1.5&seed=42&spin=1ms" +
			"&require_key=k&fault=stall&fault_every=3&fault_after=4&retry_after=2s" +
			"&ttft_spike=0.02&itl_spike=0.01&spike_x=3&itl_request_sigma=0.15&slow_prob=0.1&slow_len=20&slow_x=1.5" +
			"&level_jump=1.3&level_period=2s&slow_after=100&serial=true&capacity=8&batch_itl=0.05&stall=1s&stall_at=3s",
			Profile{
				TTFT: Dist{Median: time.Second, Sigma: 0.5, Spike: 0.02, SpikeX: 3}, ITL: Dist{Median: 3 * ms, Spike: 0.01, SpikeX: 3}, Tokens: 9,
				HeaderDelay: Dist{Median: 5 * ms}, Buffer: true, KeepAlive: 15 * time.Second,
				Reasoning: 2, ReasoningField: ReasoningContent, Style: StyleOllama,
				CachedTokens: 7, Cache: CacheOn, Prefill: 100 * time.Microsecond, ChainStep: 3, ChainStepDelay: 40 * ms, Swap: 250 * ms, Slowdown: 2, Cold: 20, ColdX: 2.5, TTFTFactor: 1.5, Seed: 42, Spin: ms,
				RequireKey: "k", Fault: FaultStall, FaultEvery: 3, FaultAfter: 4, RetryAfter: 2 * time.Second,
				ITLRequestSigma: 0.15, Slow: SlowPeriods{Prob: 0.1, Len: 20, X: 1.5, After: 100}, Serial: true,
				Capacity: 8, BatchITL: 0.05, Stall: time.Second, StallAt: 3 * time.Second,
				Level: LevelJumps{X: 1.3, Period: 2 * time.Second},
			}},
	}
	for _, tt := range tests {
		got, err := ParseSpec(tt.spec)
		if err != nil {
			t.Errorf("ParseSpec(%q): %v", tt.spec, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseSpec(%q) (-want +got):\n%s", tt.spec, diff)
		}
	}
}

func TestParseSpecAllKeysCovered(t *testing.T) {
	const all = "ttft ttft_sigma itl itl_sigma itl_request_sigma ttft_spike itl_spike spike_x slow_prob slow_len slow_x level_jump level_period slow_after serial capacity batch_itl stall stall_at tokens role_chunk header_delay buffer keepalive reasoning " +
		"reasoning_field style usage cached_tokens cache prefill chain_step chain_step_delay swap slowdown cold cold_x ttft_factor seed spin require_key " +
		"fault fault_every fault_after retry_after"
	var got []string
	for _, k := range keys() {
		got = append(got, k.name)
	}
	if diff := cmp.Diff(strings.Fields(all), got); diff != "" {
		t.Errorf("spec keys changed: update TestParseSpec (-want +got):\n%s", diff)
	}
}

func TestParseSpecErrors(t *testing.T) {
	tests := []struct {
		spec string
		want []string // substrings of the error
	}{
		{"nope", []string{`unknown profile "nope"`, "default, fixed, fast, reasoning, ollama"}},
		{"nope?ttft=1ms", []string{`unknown profile "nope"`}},
		{"default?bogus=1", []string{`unknown key "bogus"`, "ttft, ttft_sigma"}},
		{"default?ttft=80", []string{`ttft="80"`, "unit"}},
		{"default?ttft=-1ms", []string{`ttft="-1ms"`}},
		{"default?itl=fast", []string{`itl="fast"`}},
		{"default?slowdown=0", []string{`slowdown="0"`, "> 0"}},
		{"default?ttft_factor=-2", []string{`ttft_factor="-2"`}},
		{"default?tokens=x", []string{`tokens="x"`, "integer"}},
		{"default?tokens=-3", []string{`tokens="-3"`}},
		{"default?ttft_sigma=4", []string{`ttft_sigma="4"`, "[0, 3]"}},
		{"default?usage=maybe", []string{`usage="maybe"`, "true or false"}},
		{"default?seed=-1", []string{`seed="-1"`}},
		{"default?fault=boom", []string{`fault="boom"`, `"429"`, `"echo_key"`}},
		{"default?style=vllm", []string{`style="vllm"`, `"ollama"`}},
		{"default?reasoning_field=thoughts", []string{`reasoning_field="thoughts"`}},
		{"default?ttft=1ms&ttft=2ms", []string{`"ttft" given twice`}},
		{"default?require_key=%zz", []string{"require_key", "escape"}},
		{"default?keepalive=10us", []string{"keepalive", "under 1ms"}},
		{"default?level_jump=0", []string{`level_jump="0"`, "> 0"}},
		{"default?level_jump=500", []string{"level_jump: 500 outside [0.01, 100]"}},
		{"default?level_jump=1.3&level_period=10us", []string{"level_period", "under 1ms"}},
	}
	for _, tt := range tests {
		_, err := ParseSpec(tt.spec)
		if err == nil {
			t.Errorf("ParseSpec(%q) = nil error, want one containing %q", tt.spec, tt.want)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("ParseSpec(%q) error %q does not contain %q", tt.spec, err, w)
			}
		}
	}
}

func TestDescribe(t *testing.T) {
	d := Describe()
	for _, name := range Presets() {
		if !strings.Contains(d, "  "+name+" ") {
			t.Errorf("Describe lacks preset %s", name)
		}
	}
	for _, k := range keys() {
		if !strings.Contains(d, "  "+k.name+" ") {
			t.Errorf("Describe lacks key %s", k.name)
		}
	}
	for _, f := range Faults() {
		if !strings.Contains(d, f) {
			t.Errorf("Describe lacks fault %s", f)
		}
	}
}
