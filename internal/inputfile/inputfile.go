// Package inputfile owns reading a file latgate takes as input (a config, a
// messages_file, a baseline, a results file): it must be a regular file (a
// FIFO, device or directory is refused, never waited on), no larger than a
// cap the caller states, and it is opened without blocking, so a named pipe
// given by mistake or malice cannot hang latgate past a signal. A UTF-8
// byte-order mark at its start is dropped, so every input (YAML and JSON
// alike) accepts a file an editor saved with one.
package inputfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Caps of the files latgate reads. They are far above what a real file
// holds, and keep a hostile or mistaken input from exhausting memory.
const (
	// MaxConfig bounds a latgate.yaml.
	MaxConfig = 4 << 20
	// MaxMessages bounds a messages_file.
	MaxMessages = 16 << 20
	// MaxData bounds a baseline or results file: raw samples of the largest
	// run the config allows fit many times over.
	MaxData = 256 << 20
)

// ErrNotRegular is wrapped by the error for a path that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by the error for a file over its cap.
var ErrTooLarge = errors.New("file too large")

// Read returns the content of the regular file at path, of at most max
// bytes, without a leading byte-order mark. Errors keep fs.ErrNotExist and fs.ErrPermission for errors.Is and
// wrap ErrNotRegular or ErrTooLarge; their text does not repeat the path
// (callers name the file, as they know what it is).
func Read(path string, max int64) ([]byte, error) {
	f, err := open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, pe.Err
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := Regular(fi); err != nil {
		return nil, err
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%w: %s, over the %s limit", ErrTooLarge, size(fi.Size()), size(max))
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max { // grew while being read
		return nil, fmt.Errorf("%w: over the %s limit", ErrTooLarge, size(max))
	}
	return TrimBOM(data), nil
}

// bom is the UTF-8 encoding of U+FEFF, the byte-order mark.
var bom = []byte("\xef\xbb\xbf")

// TrimBOM returns data without a leading UTF-8 byte-order mark. Read applies
// it to every input.
func TrimBOM(data []byte) []byte { return bytes.TrimPrefix(data, bom) }

// Regular returns nil for a regular file, and otherwise an error wrapping
// ErrNotRegular that says what the file is.
func Regular(fi fs.FileInfo) error {
	m := fi.Mode()
	var what string
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0:
		what = "a device"
	default:
		what = "a special file"
	}
	return fmt.Errorf("%w: it is %s; give a file", ErrNotRegular, what)
}

func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// open opens path for reading without blocking on a FIFO or device.
func open(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|nonblock, 0)
}
