package cli

import (
	"flag"

	ucli "github.com/urfave/cli/v2"
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
