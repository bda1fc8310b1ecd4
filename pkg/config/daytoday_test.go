package config

import "testing"

// TestDayToDayFor: unset, the day-to-day noise goes by the endpoint (#29):
// 1% on this machine, a private network or the simulator, 15% anywhere
// else; set, it is what the config says.
func TestDayToDayFor(t *testing.T) {
	tests := []struct {
		url  string
		want float64
	}{
		{"sim", DefaultDayToDay},
		{"sim:fast?ttft=40ms", DefaultDayToDay},
		{"http://127.0.0.1:11434/v1", DefaultDayToDay},
		{"http://localhost:8000/v1", DefaultDayToDay},
		{"http://LOCALHOST./v1", DefaultDayToDay},
		{"http://vllm.localhost/v1", DefaultDayToDay},
		{"http://gpu-box.local:8000/v1", DefaultDayToDay},
		{"http://[::1]:8000/v1", DefaultDayToDay},
		{"http://10.1.2.3/v1", DefaultDayToDay},
		{"http://172.20.0.5/v1", DefaultDayToDay},
		{"http://192.168.1.9:8080/v1", DefaultDayToDay},
		{"http://[fd00::5]/v1", DefaultDayToDay},
		{"http://169.254.1.1/v1", DefaultDayToDay},
		{"https://api.openai.com/v1", DefaultDayToDayRemote},
		{"https://172.32.0.1/v1", DefaultDayToDayRemote}, // outside 172.16/12
		{"https://localhost.example.com/v1", DefaultDayToDayRemote},
		{"https://8.8.8.8/v1", DefaultDayToDayRemote},
		{"", DefaultDayToDayRemote}, // unknown: the cautious default
		{"::not a url", DefaultDayToDayRemote},
	}
	auto := DefaultGate()
	for _, tt := range tests {
		if got := auto.DayToDayFor(tt.url); got != tt.want {
			t.Errorf("DayToDayFor(%q) = %v, want %v", tt.url, got, tt.want)
		}
	}
	set := DefaultGate()
	set.DayToDay = 0.05
	if got := set.DayToDayFor("https://api.openai.com/v1"); got != 0.05 {
		t.Errorf("a set day_to_day: %v, want 0.05", got)
	}
	set.DayToDay = 0
	if got := set.DayToDayFor("https://api.openai.com/v1"); got != 0 {
		t.Errorf("day_to_day: 0%%: %v, want 0 (no day between the runs)", got)
	}
	cfg, err := Parse([]byte("targets: [{name: a, base_url: sim, model: m}]\nprompts: [{id: p, messages: [{role: user, content: hi}]}]\ngate: {day_to_day: 0%}\n"), "c.yaml", Options{})
	if err != nil || cfg.Gate.DayToDay != 0 {
		t.Errorf("day_to_day: 0%% parsed as %v (err %v), want 0", cfg.Gate.DayToDay, err)
	}
}
