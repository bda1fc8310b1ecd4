//go:build unix && !linux

package serve

import "syscall"

// deathSignal: only Linux can tie a process's life to its parent's.
func deathSignal(*syscall.SysProcAttr) {}
