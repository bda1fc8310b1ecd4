//go:build unix

package serve

import (
	"os/exec"
	"syscall"
)

// ownGroup puts the process in a process group of its own, so that what
// it starts is stopped with it and a terminal's Ctrl-C reaches latgate
// only (which then stops the group).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	deathSignal(cmd.SysProcAttr)
}

// terminate asks the process group to stop.
func terminate(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }

// kill stops what is left of the process group.
func kill(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
