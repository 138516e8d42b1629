//go:build !linux

package realtyk

import "os/exec"

// dieWithTest has no portable equivalent of Linux's parent-death signal; t.Cleanup stops the processes.
func dieWithTest(*exec.Cmd) {}
