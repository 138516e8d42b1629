package realtyk

import (
	"os/exec"
	"syscall"
)

// dieWithTest makes the kernel kill cmd when the test process dies, so that a test binary killed by a timeout
// leaves no Gateway or Redis running (t.Cleanup runs only when the test ends normally).
func dieWithTest(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
