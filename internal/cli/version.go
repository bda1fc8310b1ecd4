package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/latgate/latgate/internal/publish"
)

// buildInfo describes this binary, from the Go build info: what `latgate
// version` and `latgate --version` print, and what a results file records.
type buildInfo struct {
	// Version is the link-time Version, else the module version: v1.2.3 from
	// `go install …@v1.2.3`, a pseudo-version (v0.0.0-DATE-REV[+dirty]) from a
	// build in a Git checkout, or "(devel)" when neither is known.
	Version string
	// Revision, Time and Modified come from the VCS stamp (`go build` in a
	// Git checkout; empty with -buildvcs=false or from a module zip).
	Revision string
	Time     string
	Modified bool
	// GoVersion is the toolchain that built the binary.
	GoVersion string
}

// readBuild reads this binary's build info.
func readBuild() buildInfo {
	info, ok := debug.ReadBuildInfo()
	return buildFrom(info, ok, Version)
}

// buildFrom is readBuild's logic on given build info, for tests.
func buildFrom(info *debug.BuildInfo, ok bool, override string) buildInfo {
	b := buildInfo{Version: "(devel)", GoVersion: runtime.Version()}
	if ok && info != nil {
		if v := info.Main.Version; v != "" {
			b.Version = v
		}
		if info.GoVersion != "" {
			b.GoVersion = info.GoVersion
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Revision = s.Value
			case "vcs.time":
				b.Time = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	if override != "" {
		b.Version = override
	}
	return b
}

// String is the one-line form: "v1.2.3 (revision 0123456789ab, modified, go1.26.0)".
func (b buildInfo) String() string {
	var parts []string
	if b.Revision != "" {
		rev := b.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		parts = append(parts, "revision "+rev)
	}
	if b.Modified {
		parts = append(parts, "modified")
	}
	parts = append(parts, b.GoVersion)
	return fmt.Sprintf("%s (%s)", b.Version, strings.Join(parts, ", "))
}

func versionCommand(out *publish.Streams, b buildInfo) *ucli.Command {
	return &ucli.Command{
		Name:  "version",
		Usage: "print latgate's version, VCS revision and Go version",
		Description: `EXAMPLES:
   latgate version
   latgate --version

Prints the same line as 'latgate --version', then the details:

  latgate version v1.2.3 (revision 0123456789ab, go1.26.0)
  version:   v1.2.3       module version (go install ...@v1.2.3), or a release's tag
  revision:  0123456...   the Git commit it was built from ("unknown" without VCS stamping)
  time:      2026-...     that commit's time
  modified:  false        true when built from a checkout with uncommitted changes
                          ("unknown" without VCS stamping)
  go:        go1.26.0     the Go toolchain that built it`,
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usageErr(fmt.Errorf("version takes no arguments, got %q", c.Args().First()))
			}
			rev, when := b.Revision, b.Time
			if rev == "" {
				rev = "unknown (built without VCS information)"
			}
			if when == "" {
				when = "unknown"
			}
			modified := fmt.Sprint(b.Modified)
			if b.Revision == "" {
				modified = "unknown" // without VCS stamping Go cannot tell
			}
			_, err := fmt.Fprintf(out.Stdout, "latgate version %s\nversion:   %s\nrevision:  %s\ntime:      %s\nmodified:  %s\ngo:        %s\n",
				b, b.Version, rev, when, modified, b.GoVersion)
			return err
		},
	}
}
