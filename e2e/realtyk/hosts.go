package realtyk

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// hostsCommand runs bin with args in a mount namespace of its own (unshare, util-linux) where the file hosts is
// bound over /etc/hosts, so that its name lookups (Go's resolver and glibc's both read /etc/hosts first) find the
// names hosts lists; the machine's /etc/hosts is not touched (the namespace's mounts are private). Root makes the
// namespace itself; anyone else through a user namespace in which they are root. unshare and sh exec the
// command in turn, so the process started is the Gateway itself (its signals and Pdeathsig hold).
func hostsCommand(hosts, bin string, args ...string) *exec.Cmd {
	ns := []string{"--mount"}
	if os.Geteuid() != 0 {
		ns = []string{"--user", "--map-root-user", "--mount"}
	}
	argv := append(append(ns, "--", "/bin/sh", "-c", `mount --bind "$0" /etc/hosts && exec "$@"`, hosts, bin), args...)
	return exec.Command("unshare", argv...)
}

// BindHosts says why a Gateway cannot get a hosts file of its own on this machine (StartWithHosts), nil when it
// can: it runs cat under the same namespace and bind mount and reads what it printed.
func BindHosts(hosts string) error {
	want, err := os.ReadFile(hosts)
	if err != nil {
		return err
	}
	out, err := hostsCommand(hosts, "cat", "/etc/hosts").CombinedOutput()
	switch {
	case err != nil:
		return fmt.Errorf("unshare and mount --bind: %v: %s", err, strings.TrimSpace(string(out)))
	case string(out) != string(want):
		return fmt.Errorf("/etc/hosts under unshare is not %s", hosts)
	}
	return nil
}
