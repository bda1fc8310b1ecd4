package cli

import (
	"io"
	"strings"
	"testing"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/internal/publish"
)

// TestHelpExamplesParse: every `latgate …` line of every command's help
// examples names a command that exists, and only flags it has, each
// before the first argument (urfave/cli stops reading flags there, and ab
// refuses flags after its configs): an example copied from --help runs.
// It checks what a line says, not that its files exist.
func TestHelpExamplesParse(t *testing.T) {
	t.Parallel()
	out := publish.New(publish.Options{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }})
	app := newApp(out, Env{Getenv: func(string) string { return "" }})
	var lines int
	var walk func(path string, cmds []*ucli.Command)
	walk = func(path string, cmds []*ucli.Command) {
		for _, c := range cmds {
			for _, line := range strings.Split(c.Description, "\n") {
				line = strings.TrimSpace(line)
				if !strings.HasPrefix(line, "latgate ") {
					continue
				}
				if i := strings.IndexAny(line, "#|>&;"); i >= 0 && !strings.Contains(line[:i], "'") {
					line = line[:i] // a comment, a pipe, a redirect: the command ends there
				}
				lines++
				checkExample(t, path+c.Name, app, strings.Fields(line)[1:])
			}
			walk(path+c.Name+" ", c.Subcommands)
		}
	}
	walk("", app.Commands)
	t.Logf("%d example lines", lines)
	if lines < 20 {
		t.Errorf("only %d example lines found: the walk misses the help", lines)
	}
}

// checkExample checks one example's args (after "latgate") against app.
func checkExample(t *testing.T, in string, app *ucli.App, args []string) {
	t.Helper()
	cmds, cmd := app.Commands, (*ucli.Command)(nil)
	for len(args) > 0 {
		next := findCommand(cmds, args[0])
		if next == nil {
			break
		}
		cmd, cmds, args = next, next.Subcommands, args[1:]
	}
	if cmd == nil && len(args) == 1 && (args[0] == "--version" || args[0] == "--help") {
		return // the app's own flags
	}
	if cmd == nil {
		t.Errorf("%s --help: example %q names no command", in, strings.Join(args, " "))
		return
	}
	positional := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			if positional == "" {
				positional = a
			}
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := findFlag(cmd, name)
		switch {
		case f == nil:
			t.Errorf("%s --help: example `latgate %s … %s`: %s has no flag %s", in, cmd.Name, a, cmd.Name, a)
		case positional != "":
			t.Errorf("%s --help: example `latgate %s … %s %s`: the flag comes after the argument %q, where it is not read", in, cmd.Name, positional, a, positional)
		}
		if _, isBool := f.(*ucli.BoolFlag); f != nil && !isBool && !hasValue {
			i++ // its value
		}
	}
}

func findCommand(cmds []*ucli.Command, name string) *ucli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

func findFlag(cmd *ucli.Command, name string) ucli.Flag {
	if name == "help" || name == "h" {
		return &ucli.BoolFlag{Name: "help"}
	}
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}
