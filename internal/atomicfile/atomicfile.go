// Package atomicfile owns replacing a file atomically: readers, and a crash at
// any moment, see either the old content or the new, never a partial file.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// WriteFile atomically replaces path with data. See Write.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write atomically replaces path with what write writes. It writes to a
// temporary file in the same directory (".NAME-*.tmp", NAME being the base
// name without its extension), fsyncs it, renames it over path and fsyncs the
// directory. On any error the temporary file is removed and path is left as it
// was. Temporary files of the same pattern that a killed write left behind,
// over a minute old, are removed first. An existing file keeps its
// permission bits; a new one gets perm. A
// symbolic link at path is followed, so the file it points to is replaced.
func Write(path string, perm fs.FileMode, write func(w io.Writer) error) (err error) {
	target, mode, err := destination(path, perm)
	if err != nil {
		return err
	}
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o755); err != nil { // reports/junit.xml in a fresh checkout
		return fmt.Errorf("write %s: %w", path, err)
	}
	removeStale(dir, tempPattern(target), time.Now())
	tmp, err := os.CreateTemp(dir, tempPattern(target))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()           // a second Close after the first is harmless
			os.Remove(tmp.Name()) // absent after a successful rename: harmless
		}
	}()
	if err := write(tmp); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("write %s: replaced, but syncing directory %s failed: %w", path, dir, err)
	}
	return nil
}

// destination resolves a symbolic link at path and returns the file to
// replace and the permission bits the new file gets.
func destination(path string, perm fs.FileMode) (string, fs.FileMode, error) {
	target := path
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if target, err = filepath.EvalSymlinks(path); err != nil {
			return "", 0, fmt.Errorf("write %s: %w", path, err)
		}
	}
	fi, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return target, perm, nil
	case err != nil:
		return "", 0, fmt.Errorf("write %s: %w", path, err)
	case !fi.Mode().IsRegular():
		return "", 0, fmt.Errorf("write %s: not a regular file", path)
	}
	return target, fi.Mode().Perm(), nil
}

// tempPattern is the os.CreateTemp pattern for replacing path:
// "latgate.baseline.json" → ".latgate.baseline-*.tmp".
func tempPattern(path string) string {
	base := filepath.Base(path)
	if stem := strings.TrimSuffix(base, filepath.Ext(base)); stem != "" {
		base = stem
	}
	return "." + base + "-*.tmp"
}

// staleAge is how old a temporary file of ours must be to be removed: a
// write in progress (by another latgate) never takes that long between
// creating its file and renaming it.
const staleAge = time.Minute

// removeStale removes the temporary files that an earlier write of the same
// file left when it was killed (SIGKILL, power loss): only files named by
// pattern (".NAME-*.tmp", the "*" being os.CreateTemp's digits), regular,
// and last modified over staleAge ago. Errors are ignored: this is cleanup.
func removeStale(dir, pattern string, now time.Time) {
	prefix, suffix, _ := strings.Cut(pattern, "*")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		mid, ok := strings.CutPrefix(name, prefix)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		if mid, ok = strings.CutSuffix(mid, suffix); !ok || mid == "" || strings.Trim(mid, "0123456789") != "" {
			continue
		}
		if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > staleAge {
			os.Remove(filepath.Join(dir, name))
		}
	}
}

// syncDir makes a rename in dir durable. File systems that cannot sync a
// directory (and Windows, where directories cannot be opened) are not errors.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, errors.ErrUnsupported) && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return nil
}
