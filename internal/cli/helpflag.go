package cli

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/internal/suggest"
)

// urfave/cli adds one shared HelpFlag and one shared VersionFlag to every
// App, and their Apply writes to them: two Apps parsing flags at once (the
// CLI's tests run latgate in parallel in one process) race. These stand in
// for them with an Apply that only registers the flags on the set; they
// print and behave the same.
func init() {
	for _, f := range []*ucli.Flag{&ucli.HelpFlag, &ucli.VersionFlag} {
		if b, ok := (*f).(*ucli.BoolFlag); ok {
			*f = sharedBoolFlag{b}
		}
	}
}

// sharedBoolFlag is a BoolFlag whose Apply leaves the flag unchanged.
type sharedBoolFlag struct{ *ucli.BoolFlag }

func (f sharedBoolFlag) Apply(set *flag.FlagSet) error {
	for _, name := range f.Names() {
		set.Bool(name, false, f.Usage)
	}
	return nil
}

// GetDefaultText is empty, as a BoolFlag with DisableDefaultText shows it.
func (f sharedBoolFlag) GetDefaultText() string { return "" }

// helpCommand is a "help" command of one App alone, named, aliased and
// listed as urfave/cli's own (which every App shares, and writes to when it
// runs). It is the root's, and a command of subcommands' (hidden there, as
// --help lists the subcommands): `latgate help history export` and
// `latgate history help export` both print export's --help. Each topic is
// shown by running the command it names with --help, so that help and
// --help print the same page.
func helpCommand(hidden bool) *ucli.Command {
	return &ucli.Command{
		Name:      "help",
		Aliases:   []string{"h"},
		Usage:     "Shows a list of commands or help for one command",
		ArgsUsage: "[command]",
		Hidden:    hidden,
		// Not urfave/cli's shared help command under this one.
		HideHelpCommand: true,
		Action:          showHelp,
	}
}

// showHelp is the help command's action: the help of the command its
// arguments name, a path of subcommands from the command that help is a
// subcommand of (the App, or history).
func showHelp(c *ucli.Context) error {
	lineage := c.Lineage() // help, the command it is under, that one's parent
	parent := lineage[1]
	isRoot := len(lineage) < 3 || lineage[2].App == nil
	if c.NArg() == 0 {
		if isRoot {
			return ucli.ShowAppHelp(parent)
		}
		return ucli.ShowSubcommandHelp(parent)
	}
	topics := c.Args().Slice()
	var path []*ucli.Command
	cmds := parent.Command.Subcommands
	for i, topic := range topics {
		var found *ucli.Command
		for _, cmd := range cmds {
			if cmd.HasName(topic) {
				found = cmd
			}
		}
		if found == nil {
			msg := fmt.Sprintf("No help topic for '%s'", strings.Join(topics[:i+1], " "))
			if s := suggest.Closest(topic, commandNames(cmds)); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			return usageErr(errors.New(msg))
		}
		path = append(path, found)
		cmds = found.Subcommands
	}
	// As if `PARENT TOPIC... --help` was run: the first command parses the
	// rest, and its setup names its subcommands (export's HelpName).
	ctx := ucli.NewContext(c.App, nil, parent)
	ctx.Command = path[0]
	return path[0].Run(ctx, append(topics, "--help")...)
}

// unknownCommand is the usage error for name, none of cmds: with the
// closest of their names, and the help page (helpName --help) that lists
// them.
func unknownCommand(name string, cmds []*ucli.Command, helpName string) error {
	if s := suggest.Closest(name, commandNames(cmds)); s != "" {
		return usageErr(fmt.Errorf("unknown command %q; did you mean %q? (see %s --help)", name, s, helpName))
	}
	return usageErr(fmt.Errorf("unknown command %q: see %s --help", name, helpName))
}
