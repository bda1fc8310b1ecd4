//go:build unix

package inputfile

import "syscall"

// nonblock makes open return at once on a FIFO that has no writer (a
// regular file reads the same with it).
const nonblock = syscall.O_NONBLOCK
