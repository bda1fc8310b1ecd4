package suggest

import "testing"

func TestClosest(t *testing.T) {
	cmds := []string{"check", "bless", "compare", "measure", "merge", "init", "selftest", "sim", "version", "help"}
	tests := []struct {
		in   string
		from []string
		want string
	}{
		{"chek", cmds, "check"},
		{"blss", cmds, "bless"},
		{"comapre", cmds, "compare"},
		{"mesure", cmds, "measure"},
		{"verison", cmds, "version"},
		{"CHECK", cmds, "check"},
		{"xyzzy", cmds, ""},
		{"q", cmds, ""},
		{"", cmds, ""},
		{"junti", []string{"junit", "markdown", "strict"}, "junit"},
		{"juint", []string{"quiet", "junit"}, "junit"}, // a transposition is one edit
		{"base_url", []string{"base-url", "baseline"}, "base-url"},
		{"max_token", []string{"max_tokens", "model"}, "max_tokens"},
		{"anything", nil, ""},
	}
	for _, tt := range tests {
		if got := Closest(tt.in, tt.from); got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"check", "chekc", 1}, {"ca", "abc", 3}, {"same", "same", 0},
	}
	for _, tt := range tests {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
