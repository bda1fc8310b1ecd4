package publish

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/latgate/latgate/internal/inputfile"
	"github.com/latgate/latgate/pkg/config"
)

// The one rule for paths: before anything is measured, every file a command
// will write is resolved (symbolic links, and hard links by os.SameFile) and
// refused with exit 2 when it names a file the command reads or another file
// it writes, or when it is itself a symbolic link (a baseline committed as a
// link would have bless write wherever the link points); and an output that
// cannot be written is found then, not after the measurement. The files
// the runner names ($GITHUB_STEP_SUMMARY, $GITHUB_OUTPUT) are the runner's.

// InputConfig declares a loaded config and every messages_file it read as
// inputs.
func (k *Sink) InputConfig(cfg *config.Config) {
	k.Input("the config", cfg.Path)
	for _, pr := range cfg.Prompts {
		if pr.MessagesFile != "" {
			path := pr.MessagesFile
			if !filepath.IsAbs(path) {
				path = filepath.Join(cfg.Dir, path)
			}
			k.Input(fmt.Sprintf("the messages_file of prompt %q", pr.ID), path)
		}
	}
}

// Check applies the rule to the files declared so far: no output is an
// input or another output, and every output can be written. It is a
// problem with how latgate was called (exit 2), found before anything is
// measured. A report format asked for that no format writes (a bug of
// the caller: Reports keys are render.Format names) is refused too.
func (k *Sink) Check() error {
	if len(k.unknown) > 0 {
		var names []string
		for _, f := range k.formats {
			if f.Flag != "" {
				names = append(names, f.Name)
			}
		}
		return fmt.Errorf("no output format is called %s: report files are asked for by render.Format name (%s)", strings.Join(k.unknown, ", "), strings.Join(names, ", "))
	}
	type resolved struct {
		File
		real string
		info fs.FileInfo // nil when the file does not exist
	}
	res := func(f File) resolved {
		r := resolved{File: f, real: realPath(f.Path)}
		if fi, err := os.Stat(f.Path); err == nil {
			r.info = fi
		}
		return r
	}
	same := func(a, b resolved) bool {
		return a.real == b.real || (a.info != nil && b.info != nil && os.SameFile(a.info, b.info))
	}
	var ins, outs []resolved
	for _, f := range k.inputs {
		ins = append(ins, res(f))
	}
	for _, f := range k.Files() {
		outs = append(outs, res(f))
	}
	for i, o := range outs {
		for _, in := range ins {
			if same(o, in) {
				return fmt.Errorf("%s %s is %s (%s): latgate never writes over a file it reads; write it elsewhere", o.Role, o.Path, in.Role, in.Path)
			}
		}
		for _, o2 := range outs[:i] {
			if same(o, o2) {
				return fmt.Errorf("%s %s is also %s (%s): give each output its own file", o.Role, o.Path, o2.Role, o2.Path)
			}
		}
	}
	for _, o := range outs[:len(k.outputs)] {
		if fi, err := os.Lstat(o.Path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s %s is a symbolic link to %s: latgate does not write an output through a link (one committed in a "+
				"pull request could point anywhere on the runner); name the file itself, or replace the link with the file "+
				"(found before measuring; nothing was written)", o.Role, o.Path, o.real)
		}
		if err := writable(o.Path, o.info); err != nil {
			return fmt.Errorf("%s %s cannot be written: %w (found before measuring; nothing was written)", o.Role, o.Path, err)
		}
	}
	k.checked = true
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
