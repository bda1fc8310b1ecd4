package baseline

import (
	"fmt"
	"io"

	"github.com/latgate/latgate/internal/atomicfile"
)

// Write encodes f (see Encode) and atomically replaces the file at path with
// it: a failed or interrupted write leaves the previous baseline intact. An
// existing file keeps its permission bits; a new one is 0644.
func Write(path string, f *File) error {
	return writeFile(path, f, nil)
}

// writeFile is Write with a hook that wraps the writer of the temporary file
// (nil: none), so tests can fail or stall a write halfway.
func writeFile(path string, f *File, wrap func(io.Writer) io.Writer) error {
	data, err := Encode(f)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return atomicfile.Write(path, 0o644, func(w io.Writer) error { // errors name path
		if wrap != nil {
			w = wrap(w)
		}
		_, err := w.Write(data)
		return err
	})
}
