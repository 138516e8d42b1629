//go:build !linux

package localproc

import "os/exec"

// dieWithTest has no portable equivalent of Linux's parent-death signal; t.Cleanup stops the processes.
func DieWithTest(*exec.Cmd) {}
