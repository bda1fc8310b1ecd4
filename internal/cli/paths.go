package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/latgate/latgate/internal/inputfile"
	"github.com/latgate/latgate/pkg/config"
)

// The one rule for paths: before anything is measured, every file a command
// will write is resolved (symbolic links, and hard links by os.SameFile) and
// refused with exit 2 when it names a file the command reads or another file
// it writes; and an output that cannot be written is found then, not after
// the measurement.

// namedFile is a file a command reads or writes, with how the user named it
// ("--out", "the config", "$GITHUB_STEP_SUMMARY").
type namedFile struct {
	role, path string
}

// ioPlan lists what a command reads and writes.
type ioPlan struct {
	inputs  []namedFile
	outputs []namedFile
	// appends are files latgate appends to ($GITHUB_STEP_SUMMARY,
	// $GITHUB_OUTPUT): they must not be an input or an output, but are the
	// runner's to create, so they are not probed.
	appends []namedFile
	// checked is set once check has passed.
	checked bool
}

func (p *ioPlan) in(role, path string) {
	if path != "" {
		p.inputs = append(p.inputs, namedFile{role, path})
	}
}

func (p *ioPlan) out(role, path string) {
	if path != "" {
		p.outputs = append(p.outputs, namedFile{role, path})
	}
}

// config adds a loaded config and every messages_file it read.
func (p *ioPlan) config(cfg *config.Config) {
	p.in("the config", cfg.Path)
	for _, pr := range cfg.Prompts {
		if pr.MessagesFile != "" {
			path := pr.MessagesFile
			if !filepath.IsAbs(path) {
				path = filepath.Join(cfg.Dir, path)
			}
			p.in(fmt.Sprintf("the messages_file of prompt %q", pr.ID), path)
		}
	}
}

// githubFiles adds the files GitHub Actions has latgate append to.
func (p *ioPlan) githubFiles(env Env) {
	if env.Getenv("GITHUB_ACTIONS") != "true" {
		return
	}
	for _, name := range []string{"GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT"} {
		if v := env.Getenv(name); v != "" {
			p.appends = append(p.appends, namedFile{"$" + name, v})
		}
	}
}

// check applies the rule. Every error maps to exit code 2.
func (p *ioPlan) check() error {
	type resolved struct {
		namedFile
		real string
		info fs.FileInfo // nil when the file does not exist
	}
	res := func(f namedFile) resolved {
		r := resolved{namedFile: f, real: realPath(f.path)}
		if fi, err := os.Stat(f.path); err == nil {
			r.info = fi
		}
		return r
	}
	same := func(a, b resolved) bool {
		return a.real == b.real || (a.info != nil && b.info != nil && os.SameFile(a.info, b.info))
	}
	var ins, outs []resolved
	for _, f := range p.inputs {
		ins = append(ins, res(f))
	}
	for _, f := range append(append([]namedFile{}, p.outputs...), p.appends...) {
		outs = append(outs, res(f))
	}
	for i, o := range outs {
		for _, in := range ins {
			if same(o, in) {
				return usageErr(fmt.Errorf("%s %s is %s (%s): latgate never writes over a file it reads; write it elsewhere", o.role, o.path, in.role, in.path))
			}
		}
		for _, o2 := range outs[:i] {
			if same(o, o2) {
				return usageErr(fmt.Errorf("%s %s is also %s (%s): give each output its own file", o.role, o.path, o2.role, o2.path))
			}
		}
	}
	for _, o := range outs[:len(p.outputs)] {
		if err := writable(o.path, o.info); err != nil {
			return usageErr(fmt.Errorf("%s %s cannot be written: %w (found before measuring; nothing was written)", o.role, o.path, err))
		}
	}
	p.checked = true
	return nil
}

// realPath returns path absolute with every symbolic link resolved; for a
// file that does not exist yet, its directory's links are resolved.
func realPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	if d, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(d, filepath.Base(abs))
	}
	return abs
}

// writable probes whether an output can be replaced the way atomicfile
// does it (a temporary file in its directory, then a rename), by creating
// and removing a temporary file there; an existing output is not touched.
// A directory that does not exist yet is probed at its nearest existing
// ancestor, where it would be created.
func writable(path string, info fs.FileInfo) error {
	if info != nil {
		if err := inputfile.Regular(info); err != nil {
			return err
		}
	}
	dir := filepath.Dir(realPath(path))
	for {
		fi, err := os.Stat(dir)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("%s is not a directory", dir)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return err
		}
		dir = parent
	}
	f, err := os.CreateTemp(dir, ".latgate-probe-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("cannot create a file in %s: %w", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}
