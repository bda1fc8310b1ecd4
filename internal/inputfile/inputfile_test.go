package inputfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	tests := []struct {
		name, path string
		max        int64
		want       string
		is         error
		msg        string
	}{
		{"regular", file, 5, "hello", nil, ""},
		{"too large", file, 4, "", ErrTooLarge, "5 bytes, over the 4 bytes limit"},
		{"fifo", fifo, 100, "", ErrNotRegular, "a named pipe (FIFO)"},
		{"directory", dir, 100, "", ErrNotRegular, "a directory"},
		{"device", "/dev/zero", 100, "", ErrNotRegular, "a device"},
		{"missing", filepath.Join(dir, "nope"), 100, "", fs.ErrNotExist, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan struct{})
			var (
				got []byte
				err error
			)
			go func() { got, err = Read(tt.path, tt.max); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("Read(%s) blocked", tt.path)
			}
			if tt.is == nil {
				if err != nil || string(got) != tt.want {
					t.Fatalf("Read = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("Read error %v, want %v containing %q", err, tt.is, tt.msg)
			}
		})
	}
}
