package publish

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// NewFile is a file to create that must not exist yet.
type NewFile struct {
	Path string
	Data []byte
}

// ExistsError refuses to create files, some of which exist: nothing was
// written.
type ExistsError struct {
	Paths []string
}

func (e *ExistsError) Error() string { return fmt.Sprintf("%q exist", e.Paths) }

// Create writes files that must not exist yet, creating their directories:
// when any exists, nothing is written (an *ExistsError); when one cannot be
// written, those written before are removed, so it writes all or nothing.
func Create(files []NewFile) error {
	var existing []string
	for _, f := range files {
		if _, err := os.Lstat(f.Path); err == nil {
			existing = append(existing, f.Path)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if len(existing) > 0 {
		return &ExistsError{existing}
	}
	var written []string
	for _, f := range files {
		if err := createNew(f.Path, f.Data); err != nil {
			for _, w := range written {
				os.Remove(w)
			}
			return err
		}
		written = append(written, f.Path)
	}
	return nil
}

// createNew writes a new file, creating its directory; it fails if the file
// exists, and leaves no partial file behind.
func createNew(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// IsDir reports whether path is a directory.
func IsDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// Exists reports whether something is at path.
func Exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
