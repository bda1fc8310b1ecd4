package serve

import "syscall"

// deathSignal has Linux kill the server when latgate itself dies without
// stopping it (SIGKILL, a second Ctrl-C): the server must not outlive the
// run. (What the server started lives on then; the CI runner's cleanup of
// the job's processes takes it.)
func deathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
