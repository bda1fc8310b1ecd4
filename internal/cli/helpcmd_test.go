package cli

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHelpOfSubcommands: help, at the top or under history, prints the
// page --help prints for the command it names, subcommands included
// (urfave/cli's help printed history's page without them, and history's for
// export; history had no help subcommand, and took any word for a topic).
func TestHelpOfSubcommands(t *testing.T) {
	t.Parallel()
	page := func(t *testing.T, args ...string) string {
		t.Helper()
		code, out, errs := run(t, nil, append(args, "--help")...)
		if code != ExitPass || errs != "" {
			t.Fatalf("%s --help: exit %d\n%s", strings.Join(args, " "), code, errs)
		}
		return out
	}
	history, export := page(t, "history"), page(t, "history", "export")
	if !strings.Contains(history, "\nCOMMANDS:\n   export  ") {
		t.Fatalf("history --help lists no export:\n%s", history)
	}
	if !strings.Contains(export, "\n   EXIT CODES:\n      0  exported\n") {
		t.Errorf("history export --help has no exit codes:\n%s", export)
	}
	tests := []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"help", "history"}, ExitPass, history, ""},
		{[]string{"help", "history", "export"}, ExitPass, export, ""},
		{[]string{"h", "history", "export"}, ExitPass, export, ""},
		{[]string{"history", "help"}, ExitPass, history, ""},
		{[]string{"history", "help", "export"}, ExitPass, export, ""},
		{[]string{"history", "h", "export"}, ExitPass, export, ""},
		{[]string{"history"}, ExitPass, history, ""},
		{[]string{"help", "check"}, ExitPass, page(t, "check"), ""},
		{[]string{"history", "bogus"}, ExitUsage, "", "latgate: unknown command \"bogus\": see latgate history --help\n"},
		{[]string{"history", "expotr"}, ExitUsage, "", "latgate: unknown command \"expotr\"; did you mean \"export\"? (see latgate history --help)\n"},
		{[]string{"help", "history", "expotr"}, ExitUsage, "", "latgate: No help topic for 'history expotr'; did you mean \"export\"?\n"},
		{[]string{"history", "help", "expotr"}, ExitUsage, "", "latgate: No help topic for 'expotr'; did you mean \"export\"?\n"},
		{[]string{"help", "chek"}, ExitUsage, "", "latgate: No help topic for 'chek'; did you mean \"check\"?\n"},
		{[]string{"help", "check", "extra"}, ExitUsage, "", "latgate: No help topic for 'check extra'\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			code, out, errs := run(t, nil, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			if d := cmp.Diff(tt.stdout, out); d != "" {
				t.Errorf("stdout (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.stderr, errs); d != "" {
				t.Errorf("stderr (-want +got):\n%s", d)
			}
		})
	}
}
