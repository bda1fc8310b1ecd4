package cli

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSelftestUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"bad level", []string{"--concurrency", "1,x"}, `"x" is not a concurrency level`},
		{"zero level", []string{"--concurrency", "0"}, `"0" is not a concurrency level`},
		{"bad profile", []string{"--profile", "nosuch"}, "nosuch"},
		{"no runs", []string{"--runs", "0"}, "--runs"},
		{"missing config", []string{"--config", "/nonexistent/latgate.yaml"}, "/nonexistent/latgate.yaml"},
		{"stray argument", []string{"latgate.yaml"}, "takes no arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errs := run(t, nil, append([]string{"selftest"}, tt.args...)...)
			if code != ExitUsage {
				t.Errorf("exit %d (%s), want %d", code, errs, ExitUsage)
			}
			if !strings.Contains(errs, tt.want) {
				t.Errorf("stderr %q does not mention %q", errs, tt.want)
			}
		})
	}
}

func TestParseLevels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{"1,16,64,256", []int{1, 16, 64, 256}, false},
		{" 64, 1 ,64", []int{1, 64}, false},
		{"8", []int{8}, false},
		{"", nil, true},
		{"1,,2", nil, true},
		{"-1", nil, true},
		{"5000", nil, true},
	}
	for _, tt := range tests {
		got, err := parseLevels(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("parseLevels(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("parseLevels(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}
