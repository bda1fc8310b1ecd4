package cli

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// flagLines are the OPTIONS lines of `latgate ARGS... --help`, by the
// flag's first name.
func flagLines(t *testing.T, args ...string) map[string]string {
	t.Helper()
	code, out, errs := run(t, nil, append(args, "--help")...)
	if code != ExitPass {
		t.Fatalf("%s --help: exit %d\n%s", strings.Join(args, " "), code, errs)
	}
	_, opts, ok := strings.Cut(out, "\nOPTIONS:\n")
	if !ok {
		t.Fatalf("%s --help has no OPTIONS:\n%s", strings.Join(args, " "), out)
	}
	lines := map[string]string{}
	for _, l := range strings.Split(opts, "\n") {
		l = strings.TrimSpace(l)
		if name, _, ok := strings.Cut(l, " "); ok && strings.HasPrefix(name, "--") {
			lines[strings.TrimSuffix(name, ",")] = l
		}
	}
	return lines
}

// allCommands are the paths of every command --help lists, subcommands
// included ("history export"), without the help command.
func allCommands(t *testing.T, parent ...string) [][]string {
	t.Helper()
	_, out, _ := run(t, nil, append(parent, "--help")...)
	_, list, ok := strings.Cut(out, "\nCOMMANDS:\n")
	if !ok {
		return nil
	}
	list, _, _ = strings.Cut(list, "\n\n")
	var paths [][]string
	for _, l := range strings.Split(list, "\n") {
		name, _, _ := strings.Cut(strings.TrimSpace(l), " ")
		name = strings.TrimSuffix(name, ",")
		if name == "" || name == "help" {
			continue
		}
		path := append(append([]string{}, parent...), name)
		paths = append(paths, path)
		paths = append(paths, allCommands(t, path...)...)
	}
	return paths
}

// saysDefault is a default stated in a flag's help: urfave/cli's
// "(default: …)", or one the usage says itself.
var saysDefault = regexp.MustCompile(`\(default[: ]|; default[: ]`)

// TestFlagDefaults: a flag's help states one default, the true one. ab's
// --block and sweep's --duration said theirs in the usage and urfave/cli
// added its zero value after it: "(default 10, …) (default: 0)".
func TestFlagDefaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		flag string
		want string
	}{
		{[]string{"ab"}, "--block", "--block value             rounds a side per block under --schedule blocks (default: 10, or the candidate's ab.block)"},
		{[]string{"sweep"}, "--duration", "--duration value          how long to measure each rate (requests = rate × duration, spread over the prompts) (default: run.requests a prompt)"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " ")+" "+tt.flag, func(t *testing.T) {
			t.Parallel()
			if d := cmp.Diff(tt.want, flagLines(t, tt.args...)[tt.flag]); d != "" {
				t.Errorf("help line (-want +got):\n%s", d)
			}
		})
	}

	// Every flag of every command states at most one default.
	commands := allCommands(t)
	if !slices.ContainsFunc(commands, func(p []string) bool { return slices.Equal(p, []string{"history", "export"}) }) {
		t.Fatalf("the commands --help lists miss history export: %q", commands)
	}
	for _, args := range commands {
		for name, line := range flagLines(t, args...) {
			if n := len(saysDefault.FindAllString(line, -1)); n > 1 {
				t.Errorf("%s %s states %d defaults:\n%s", strings.Join(args, " "), name, n, line)
			}
		}
	}
}
