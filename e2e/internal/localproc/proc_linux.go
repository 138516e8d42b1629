package localproc

import (
	"os/exec"
	"syscall"
)

// DieWithTest makes the kernel kill cmd when the test process dies, so that a test binary killed by a timeout
// leaves no server it started running (t.Cleanup runs only when the test ends normally).
func DieWithTest(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
