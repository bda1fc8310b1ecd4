package serve

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the process in a new process group, so that a console's
// Ctrl-C reaches latgate only.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// terminate: Windows has no SIGTERM to send another process group; the
// process is killed (what it started may outlive it).
func terminate(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

func kill(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
